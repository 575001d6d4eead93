import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../ports.js';
import { pgbouncerIni } from './configs.js';
import { startInDirectory, startServer, waitUntil } from './processes.js';

/** A real PgBouncer on loopback in transaction pooling mode, in front of one database of the test server. */
export interface PgBouncerPeer {
  port: number;
  pid: number;
  /** The database through the pooler: what DATABASE_URL names in a pooled deployment. */
  url: string;
  /** Runs a command (`show pools`, `show servers`…) on PgBouncer's admin console. */
  admin(command: string): Promise<Record<string, unknown>[]>;
  /** SIGTERM by PID, waits for the exit, removes the temporary directory. Idempotent. */
  stop(): Promise<void>;
}

const PGBOUNCER = '/usr/sbin/pgbouncer';
/** PgBouncer refuses to run as root; the machine's PostgreSQL user is there wherever the server is. */
const RUN_AS = 'postgres';
const START_MS = 15_000;

/**
 * Starts PgBouncer for `databaseUrl`'s database with `poolSize` server connections: few enough that
 * transactions of different clients, and consecutive transactions of one client, share them.
 */
export async function startPgBouncer(databaseUrl: string, poolSize = 3): Promise<PgBouncerPeer> {
  if (process.getuid?.() !== 0) throw new Error('startPgBouncer needs root (it runs PgBouncer as the postgres user)');
  const target = new URL(databaseUrl);
  const database = target.pathname.slice(1);
  const user = decodeURIComponent(target.username) || 'postgres';
  return startInDirectory('pgbouncer-peer-', async (dir, keep) => {
    await chmod(dir, 0o755); // PgBouncer, as postgres, reads its files here
    const port = await freePort();
    const ini = join(dir, 'pgbouncer.ini');
    const userlist = join(dir, 'userlist.txt');
    await writeFile(userlist, `"${user}" ""\n`, { mode: 0o644 });
    await writeFile(ini, pgbouncerIni({ databaseUrl, user, port, userlist, poolSize, roundRobin: true }), { mode: 0o644 });
    const server = keep(startServer(PGBOUNCER, [ini], join(dir, 'pgbouncer.log'), { user: RUN_AS }));
    const url = `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`;
    await waitUntil(
      `PgBouncer on 127.0.0.1:${port}`,
      () => query(url, 'select true as up').then(([row]) => row.up === true),
      [server],
      START_MS,
    );
    return {
      port,
      pid: server.pid,
      url,
      admin: (command: string) => query(`postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/pgbouncer`, command),
    };
  });
}

/** One statement on a connection of its own (the admin console speaks only the simple protocol, which pg uses without parameters). */
async function query(url: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}
