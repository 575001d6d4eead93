import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A server a harness started: its PID, where its output goes, and when it has exited. */
export interface ServerProcess {
  pid: number;
  logPath: string;
  /** Resolves once the process has exited (and been reaped), with its exit code or signal. */
  exited: Promise<string>;
  hasExited(): boolean;
}

/**
 * Starts `command` with stdout and stderr appended to `logPath`, stdin closed. The kernel kills it
 * should the test process die without stopping it (a crashed or killed test worker runs no hooks):
 * `setpriv --pdeathsig` sets that up and then executes `command`, so the PID is the server's own.
 */
export function startServer(command: string, args: string[], logPath: string, options: { user?: string } = {}): ServerProcess {
  const log = openSync(logPath, 'a');
  let child: ChildProcess;
  // As `user` (servers that refuse root, such as PostgreSQL's): setpriv changes user and executes, keeping the PID.
  const as = options.user ? ['--reuid', options.user, '--regid', options.user, '--init-groups'] : [];
  try {
    child = spawn('setpriv', [...as, '--pdeathsig', 'KILL', '--', command, ...args], { stdio: ['ignore', log, log] });
  } finally {
    closeSync(log);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${command}`);
  let done = false;
  const exited = new Promise<string>((resolve) => {
    const gone = (how: string) => {
      done = true;
      resolve(how);
    };
    child.on('error', (error) => gone(`error ${error.message}`));
    child.on('exit', (code, signal) => gone(signal ?? `code ${code}`));
  });
  return { pid, logPath, exited, hasExited: () => done };
}

/**
 * Starts a server in a new temporary directory (its configuration, data and log): `start` writes what it needs
 * there and starts the server through `keep`. Should `start` fail, what it started is stopped and the directory
 * removed; afterwards the answer's `stop` does the same (by PID, once however often it is called).
 */
export async function startInDirectory<T extends object>(
  prefix: string,
  start: (dir: string, keep: (server: ServerProcess) => ServerProcess) => Promise<T>,
): Promise<T & { stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const servers: ServerProcess[] = [];
  const stopAll = async () => {
    await Promise.all(servers.map((server) => stopServer(server)));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const started = await start(dir, (server) => {
      servers.push(server);
      return server;
    });
    let stopping: Promise<void> | undefined;
    return Object.assign(started, { stop: () => (stopping ??= stopAll()) });
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Sends `signal` to the process and waits until it has gone; SIGKILL when it outlives `ms`. Nothing when it is already gone. */
export async function stopServer(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM', ms = 10_000): Promise<void> {
  if (server.hasExited()) return;
  signalPid(server.pid, signal);
  const gone = await Promise.race([server.exited.then(() => true), sleep(ms).then(() => false)]);
  if (!gone) {
    signalPid(server.pid, 'SIGKILL');
    await server.exited;
  }
}

/** `process.kill` that ignores a process already gone. */
export function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether the process is gone: no such PID, or a zombie nobody has reaped yet. */
export function isGone(pid: number): boolean {
  if (!isRunning(pid)) return true;
  return procStat(pid)[0] === 'Z';
}

/** The PIDs of the process's children, grandchildren…, read from /proc (Linux). */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(procStat(Number(entry))[1]);
    if (ppid) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

/** The paths the process holds open (files, folders), read from /proc (Linux); none when it is gone or not ours to read. */
export function openPaths(pid: number): string[] {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  return fds.flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}

/** The fields of /proc/<pid>/stat after the command name: state, ppid, …; none when the process is gone. */
function procStat(pid: number): string[] {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return [];
  }
  // The command name (field 2) may hold spaces and parentheses: the other fields follow the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Waits until none of `pids` is left (processes that are not this process's children, so no exit event). */
export async function waitGone(pids: number[], ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (pids.some((pid) => !isGone(pid))) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** Runs a command to completion; rejects with its output when it fails. */
export function run(command: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
    // A command that exits without reading its input breaks the pipe: its exit status tells what happened.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` right now. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * Polls `ready` until it answers true. Fails when `ms` pass or one of `servers` exits first, with
 * the servers' logs in the message.
 */
export async function waitUntil(what: string, ready: () => Promise<boolean>, servers: ServerProcess[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const dead = servers.find((server) => server.hasExited());
    if (dead) throw new Error(`${what}: PID ${dead.pid} exited (${await dead.exited})\n${await logsOf(servers)}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not ready after ${ms} ms\n${await logsOf(servers)}`);
    await sleep(100);
  }
}

/** The tail of each server's log, for error messages. */
export async function logsOf(servers: ServerProcess[]): Promise<string> {
  const logs = await Promise.all(
    servers.map(async (server) => {
      const text = await readFile(server.logPath, 'utf8').catch(() => '(no log)');
      return `--- ${server.logPath} (PID ${server.pid})\n${text.split('\n').slice(-40).join('\n')}`;
    }),
  );
  return logs.join('\n');
}
