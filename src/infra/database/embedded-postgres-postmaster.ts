import { readFile, stat, unlink } from 'node:fs/promises';
import { platform } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptsConnections, HOST, isValidPort } from './embedded-postgres-address.js';
import { EmbeddedPostgresError, isErrno } from './embedded-postgres-error.js';

// Detecting a running postmaster

export interface PostmasterInfo {
  pid: number;
  port: number;
  status: string;
}

async function readPostmasterPid(clusterDir: string): Promise<PostmasterInfo | undefined> {
  let text: string;
  try {
    text = await readFile(join(clusterDir, 'postmaster.pid'), 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
  // Lines: pid, data dir, start time, port, socket dir, listen address, shmem key, status.
  const lines = text.split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return { pid: 0, port: 0, status: 'invalid' };
  return { pid, port: isValidPort(port) ? port : 0, status: (lines[7] ?? '').trim() };
}

/**
 * Returns the live postmaster serving clusterDir, or undefined when none runs. A stale pid file
 * (dead PID, or a PID now used by an unrelated program) is removed so that postgres starts cleanly.
 */
export async function findRunningPostmaster(clusterDir: string): Promise<PostmasterInfo | undefined> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  const deadline = Date.now() + 15_000;
  for (;;) {
    const info = await readPostmasterPid(clusterDir);
    if (!info) return undefined;
    if (info.pid === 0 && Date.now() - (await stat(pidFile)).mtimeMs < 5_000 && Date.now() < deadline) {
      await sleep(100); // being written by a postmaster that is starting right now
      continue;
    }

    if (info.pid === 0 || !(await isPostgresProcess(info.pid))) {
      await unlink(pidFile).catch((error: unknown) => {
        if (!isErrno(error, 'ENOENT')) throw error;
      });
      return undefined;
    }
    if (info.port && (await acceptsConnections(info.port))) return info;

    // Alive but not (yet / any more) accepting connections: starting up, recovering or shutting down.
    if (Date.now() > deadline) {
      throw new EmbeddedPostgresError(
        `A PostgreSQL server (PID ${info.pid}, status "${info.status || 'unknown'}") holds ${pidFile} but does not accept ` +
          `connections on ${HOST}:${info.port || '?'}. Stop that process, or remove the pid file if it is not PostgreSQL.`,
      );
    }
    await sleep(100);
  }
}

async function isPostgresProcess(pid: number): Promise<boolean> {
  if (pid === process.pid) return false; // recycled PID, e.g. after a container restart
  const info = await processInfo(pid);
  return info !== undefined && (info.comm === undefined || info.comm.startsWith('postgres'));
}

export async function isLiveProcess(pid: number): Promise<boolean> {
  return (await processInfo(pid)) !== undefined;
}

/**
 * undefined when the process does not exist or is a zombie. A zombie (state Z) counts as dead: a
 * postmaster killed after its owner died is re-parented to PID 1, which in many containers never
 * reaps it, and kill(pid, 0) keeps succeeding. `comm` is only known on Linux.
 */
async function processInfo(pid: number): Promise<{ comm?: string } | undefined> {
  if (!isProcessAlive(pid)) return undefined;
  if (platform() !== 'linux') return {};
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8'); // "pid (comm) state ..."
    const close = stat.lastIndexOf(')');
    const state = stat.charAt(close + 2);
    return state === 'Z' || state === 'X' ? undefined : { comm: stat.slice(stat.indexOf('(') + 1, close) };
  } catch {
    return undefined; // exited in between
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, 'EPERM'); // exists, owned by another user
  }
}
