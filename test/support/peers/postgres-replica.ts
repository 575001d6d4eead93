import { appendFile, chown, mkdtemp, rm } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../ports.js';
import { run, startServer, stopServer, waitUntil, type ServerProcess } from './processes.js';

/**
 * A PostgreSQL primary of the test's own and a streaming replica of it (`pg_basebackup -R`), each on a
 * loopback port of its own, as the postgres OS user (PostgreSQL refuses root). Its own primary rather
 * than the shared test server: replication needs `wal_level`, a replication line in pg_hba.conf and a
 * copy of the whole cluster, none of which the suite's server should be changed or copied for.
 */
export interface ReplicatedPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` on the primary and on the replica. */
  primaryUrl(database?: string): string;
  replicaUrl(database?: string): string;
  replica: { pid: number; port: number };
  /** Runs `statements` on the primary's `postgres` database (creating a database, say). */
  primarySql(statements: string): Promise<void>;
  /** Waits until the replica has replayed everything the primary had written when asked. */
  caughtUp(ms?: number): Promise<void>;
  /** Stops the replica (SIGTERM: a fast shutdown, its connections ended) and waits for its exit. */
  stopReplica(): Promise<void>;
  /** Starts the replica again on its port. */
  startReplica(): Promise<void>;
  /** Stops both by PID and removes their files. Idempotent. */
  stop(): Promise<void>;
}

const OS_USER = 'postgres';
const START_MS = 30_000;

/** The newest PostgreSQL server installed (Debian keeps them under /usr/lib/postgresql/<major>/bin). */
function serverBin(program: string): string {
  const majors = readdirSync('/usr/lib/postgresql')
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  if (majors.length === 0) throw new Error('no PostgreSQL server under /usr/lib/postgresql');
  return join('/usr/lib/postgresql', majors[0], 'bin', program);
}

const asPostgres = (program: string, args: string[]) =>
  run('setpriv', ['--reuid', OS_USER, '--regid', OS_USER, '--init-groups', '--', serverBin(program), ...args]);

export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  if (process.getuid?.() !== 0) throw new Error('startReplicatedPostgres needs root (it runs the servers as the postgres user)');
  const dir = await mkdtemp(join(tmpdir(), 'pg-replicated-'));
  await chown(dir, ...(await ids()));
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const servers: ServerProcess[] = [];
  let replica: ServerProcess | undefined;
  const url = (port: number, database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const answers = (port: number) => () => withClient(url(port), async () => true).catch(() => false);
  // Both listen on loopback only, with their sockets in the test's folder; fsync off: nothing here outlives the run.
  const serverArgs = (dataDir: string, port: number) => [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dir}`,
    '-c',
    'fsync=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'shared_buffers=32MB',
  ];

  const startReplicaServer = async () => {
    replica = startServer(serverBin('postgres'), serverArgs(replicaDir, replicaPort), join(dir, 'replica.log'), { user: OS_USER });
    servers.push(replica);
    await waitUntil('the replica', answers(replicaPort), [replica], START_MS);
  };

  const stopAll = async () => {
    await Promise.all(servers.map((server) => stopServer(server, 'SIGINT')));
    await rm(dir, { recursive: true, force: true });
  };

  try {
    // trust on loopback, replication included (initdb's pg_hba.conf has `host replication all 127.0.0.1/32`).
    await asPostgres('initdb', ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
    await appendFile(primaryDir + '/postgresql.conf', '\nwal_level = replica\nmax_wal_senders = 4\nwal_keep_size = 256MB\n');
    const primary = startServer(serverBin('postgres'), serverArgs(primaryDir, primaryPort), join(dir, 'primary.log'), { user: OS_USER });
    servers.push(primary);
    await waitUntil('the primary', answers(primaryPort), [primary], START_MS);
    // -R writes standby.signal and primary_conninfo; -c fast checkpoints now rather than at the next scheduled one.
    await asPostgres('pg_basebackup', [
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
    ]);
    // A replica that tells its primary what it reads: long report reads are not cancelled by vacuum's cleanup.
    await appendFile(join(replicaDir, 'postgresql.conf'), '\nhot_standby_feedback = on\n');
    await startReplicaServer();
  } catch (error) {
    await stopAll();
    throw error;
  }

  const primaryUrl = (database?: string) => url(primaryPort, database);
  return {
    primaryUrl,
    replicaUrl: (database?: string) => url(replicaPort, database),
    replica: {
      get pid() {
        return replica!.pid;
      },
      port: replicaPort,
    },
    primarySql: (statements) => withClient(primaryUrl(), async (client) => void (await client.query(statements))),
    async caughtUp(ms = 20_000) {
      const { rows } = await withClient(primaryUrl(), (client) =>
        client.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn'),
      );
      await waitUntil(
        'the replica catching up',
        () =>
          withClient(url(replicaPort), async (client) => {
            const replayed = await client.query<{ done: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [rows[0].lsn]);
            return replayed.rows[0].done;
          }),
        [replica!],
        ms,
      );
    },
    async stopReplica() {
      if (replica) await stopServer(replica, 'SIGINT');
    },
    startReplica: startReplicaServer,
    stop: stopAll,
  };
}

async function ids(): Promise<[number, number]> {
  const [uid, gid] = await Promise.all([run('id', ['-u', OS_USER]), run('id', ['-g', OS_USER])]);
  return [Number(uid.trim()), Number(gid.trim())];
}

async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
