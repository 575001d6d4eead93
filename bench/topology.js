// `node bench/topology.js` (after `npm run build`): the production topology on loopback, for a person to try:
// N instances of the built service (default 3) behind HAProxy (round robin, health-checked on /health/ready),
// optionally through PgBouncer in transaction pooling mode, on a fresh database of DATABASE_URL's server (else
// the machine's PostgreSQL on 5432) and REDIS_URL's Redis (default redis://127.0.0.1:6379), which shares the
// per-key rate limits. It creates a store with a demo catalogue and prints its API key and the balancer's
// address. Ctrl-C (or SIGTERM) stops everything it started, each by its PID, and drops the database.
//
// Options: --instances N (default 3), --port P (the balancer's, default 8080), --pgbouncer (DATABASE_URL of the
// instances is a PgBouncer on a free port, DATABASE_DIRECT_URL the database; needs root: PgBouncer runs as the
// postgres user). The same configurations as the tests' peers (test/support/peers/configs.js).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile, chmod } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { haproxyConfig, pgbouncerIni } from '../test/support/peers/configs.js';
import { assertBuilt, cleanupStack, cli, createDatabase, freePort, log, startService } from './lib.js';

const { values: args } = parseArgs({
  options: {
    instances: { type: 'string', default: '3' },
    port: { type: 'string', default: '8080' },
    pgbouncer: { type: 'boolean', default: false },
  },
});
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** A server started with the kernel told to kill it should this script die without stopping it; ready once `port` accepts. */
async function startPeer(name, command, commandArgs, port) {
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', command, ...commandArgs], { stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = once(child, 'exit');
  const deadline = Date.now() + 15_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`${name} did not start on 127.0.0.1:${port} (see its output above)`);
    await sleep(100);
  }
  return {
    pid: child.pid,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGTERM');
      await exited;
    },
  };
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function startPgBouncer(databaseUrl, dir) {
  const target = new URL(databaseUrl);
  const database = target.pathname.slice(1);
  const port = await freePort();
  await chmod(dir, 0o755); // PgBouncer, as postgres, reads its files here
  await writeFile(join(dir, 'userlist.txt'), '"postgres" ""\n');
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    pgbouncerIni({ databaseUrl, user: 'postgres', port, userlist: join(dir, 'userlist.txt'), poolSize: 20 }),
  );
  // PgBouncer refuses root: setpriv runs it as postgres, and sets the parent-death signal again after the switch.
  const bouncer = await startPeer(
    'PgBouncer',
    'setpriv',
    [
      '--reuid=postgres',
      '--regid=postgres',
      '--init-groups',
      '--pdeathsig',
      'KILL',
      '--',
      '/usr/sbin/pgbouncer',
      join(dir, 'pgbouncer.ini'),
    ],
    port,
  );
  return { ...bouncer, url: `postgres://postgres@127.0.0.1:${port}/${database}` };
}

const { cleanups, run } = cleanupStack();

await run(async () => {
  assertBuilt();
  const count = Number(args.instances);
  const dir = await mkdtemp(join(tmpdir(), 'storefront-topology-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const database = await createDatabase('storefront_topology');
  cleanups.push(() => database.drop());
  let databaseUrl = database.url;
  const env = { REDIS_URL, DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn' };
  if (args.pgbouncer) {
    const bouncer = await startPgBouncer(database.url, dir);
    cleanups.push(() => bouncer.stop());
    log(`PgBouncer (transaction pooling) on ${bouncer.url}, PID ${bouncer.pid}`);
    databaseUrl = bouncer.url;
    Object.assign(env, { DATABASE_DIRECT_URL: database.url });
  }
  // Side by side: the first to take the migration lock migrates the database, the others wait for it.
  const starts = await Promise.allSettled(Array.from({ length: count }, () => startService(databaseUrl, { env })));
  const instances = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
  for (const instance of instances) cleanups.push(() => instance.stop());
  const failed = starts.find((start) => start.status === 'rejected');
  if (failed) throw failed.reason;
  const servers = instances.map((instance, index) => ({ name: `i${index + 1}`, port: Number(new URL(instance.base).port) }));
  for (const [index, server] of servers.entries())
    log(`instance ${server.name} on 127.0.0.1:${server.port}, PID ${instances[index].child.pid}`);
  const port = Number(args.port);
  await writeFile(join(dir, 'haproxy.cfg'), haproxyConfig({ port, servers }));
  const balancer = await startPeer('HAProxy', '/usr/sbin/haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], port);
  cleanups.push(() => balancer.stop());
  log(`HAProxy on http://127.0.0.1:${port}, PID ${balancer.pid}`);

  const store = await cli(database.url, ['store', 'create', '--name', 'Topology']);
  const key = await cli(database.url, ['key', 'issue', '--store', store.store.id]);
  await cli(database.url, ['demo', 'seed', '--store', store.store.id, '--products', '40', '--orders', '100']);
  log(`store ${store.store.id}, API key ${key.apiKey.key}`);
  log(
    `try: curl -si -X POST http://127.0.0.1:${port}/v1/auth/anonymous -H 'X-Api-Key: ${key.apiKey.key}'   (x-served-by names the instance)`,
  );
  log('Ctrl-C stops everything');
  await new Promise(() => undefined); // until a signal: cleanupStack stops each server by its PID and drops the database
});
