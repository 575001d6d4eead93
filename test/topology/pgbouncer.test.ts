import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeDatabaseRead, readDatabaseRows } from '../../src/data-hub/connectors/database-read.js';
import { EgressPolicy } from '../../src/infra/egress/egress-policy.js';
import { ApiKeyService } from '../../src/stores/api-key.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { within } from '../auth/support.js';
import { activeDrop, HUB, stockMapping } from '../data-hub/hub-fixtures.js';
import { csvRecords, daysAgo, download, finished, seedSearches } from '../insights/exports-support.js';
import { addStaff, adminCall, staffSession, staffToken } from '../support/dashboard.js';
import { issueKey, mint, refresh, variants, type TestStore } from '../support/fixtures.js';
import { useTestApps } from '../support/harness.js';
import { startPgBouncer, type PgBouncerPeer } from '../support/peers/pgbouncer.js';
import { expectProblem } from '../support/problem.js';
import { ok, parse } from '../support/responses.js';
import { createIsolatedDatabase } from '../support/test-app.js';
import { eventually } from '../support/waiting.js';
import { CASH_ON_DELIVERY, journey, send, type Call } from './http-journey.js';

/** Server connections PgBouncer may open: far fewer than the two instances' pools (10 each), so transactions share them. */
const POOL_SIZE = 3;

/**
 * The service with DATABASE_URL naming a real PgBouncer in transaction pooling mode, and DATABASE_DIRECT_URL
 * the database itself (the change feed's LISTEN and the job queue need sessions of their own): two
 * instances, each transaction on whichever of three server connections is free.
 */
describe('through PgBouncer in transaction pooling mode', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pgbouncer-test-'));
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let bouncer: PgBouncerPeer;

  // Registered before the apps' hooks: set up before them, and (hooks after run in reverse) stopped after them.
  beforeAll(async () => {
    database = await createIsolatedDatabase();
    bouncer = await startPgBouncer(database.url, POOL_SIZE);
  });
  afterAll(async () => {
    await bouncer?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const [a, b] = useTestApps(
    2,
    () => ({ DATABASE_URL: bouncer.url, DATABASE_DIRECT_URL: database.url, DATA_DIR: dataDir, JOB_RETRY_DELAY_SECONDS: '1' }),
    { schedulers: true },
  );
  let store: TestStore;
  let owner: string;
  let urls: [string, string];

  beforeAll(async () => {
    store = await a.store({ seedCatalogue: true, productCount: 10 });
    await a.app.get(StoreService).setPlan(store.storeId, 'pro');
    owner = await staffToken(a.app, await addStaff(a.app, store.storeId, 'owner'));
    urls = [await a.listen(), await b.listen()];
    // The apps migrated this fresh database through the pooler: server connections opened before migration
    // 0024 turned JIT off keep their JIT (a setting of the database applies to new sessions). In production
    // server_lifetime renews them; here PgBouncer renews them now, before anything is checked.
    await bouncer.admin('reconnect');
  }, 120_000);

  it('the apps talk to PgBouncer, the change feed and the job queue to the database itself', async () => {
    const clients = await bouncer.admin('show clients');
    expect(clients.filter((client) => client.database === new URL(database.url).pathname.slice(1)).length).toBeGreaterThan(POOL_SIZE);
    const sessions = await a.db.rows<{ application_name: string }>(
      `select application_name from pg_stat_activity where datname = current_database() and application_name in ('storefront-change-feed', 'storefront-jobs')`,
    );
    expect(new Set(sessions.map((session) => session.application_name))).toEqual(new Set(['storefront-change-feed', 'storefront-jobs']));
  });

  it('the storefront journey passes, its requests alternating between the instances; a retried checkout gives the same order', async () => {
    const [variant] = await variants(a.db, store.storeId, 1, 100);
    let next = 0;
    const alternating = (call: Call) => send(urls[next++ % 2], call);
    const key = randomUUID();
    const { order, sessionId, answers } = await journey(alternating, store.key, variant.id, key);
    expect(order.id).toEqual(expect.any(String));
    const token = answers[0].body.accessToken as string;
    // The same checkout again with the same key, on each instance: the same order, replayed.
    for (const url of urls) {
      const retry = await send(url, {
        method: 'POST',
        path: '/v1/checkout/orders',
        token,
        body: CASH_ON_DELIVERY,
        idempotencyKey: key,
      });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body.id).toBe(order.id);
    }
    expect(await a.db.rows('select id from orders where session_id = $1', [sessionId])).toEqual([{ id: order.id }]);
  });

  it('an Insights export is written by the job queue and downloads whole; a records question answers under its time limit', async () => {
    const day = daysAgo(10);
    await seedSearches(a.db, store.storeId, day, 500);
    const started = await adminCall(a.app, 'POST', '/admin/insights/exports', owner, {
      source: { report: 'searches', params: { from: daysAgo(11), to: daysAgo(9) } },
      format: 'csv',
    });
    expect(started.statusCode, started.body).toBe(202);
    const done = await finished(b.app, owner, started.json().id);
    expect(done).toMatchObject({ status: 'succeeded', progress: { rows: 500, totalRows: 500 } });
    expect(csvRecords((await download(b.app, owner, done.id)).bytes)).toHaveLength(501);

    // No rollup holds products by language and payment: answered from the orders, with a statement
    // timeout set for its transaction only (set_config(…, true)).
    const answer = await adminCall(b.app, 'POST', '/admin/insights/builder/run', owner, {
      measures: ['net_sales', 'orders'],
      dimensions: ['product', 'locale', 'payment_method'],
      last: 30,
    });
    expect(answer.statusCode, answer.body).toBe(200);
  });

  it('data hub runs (previews and an import, side by side) pass, and write what the file says', async () => {
    const { id: drop, upload } = await activeDrop(a.app, owner, 'pooled');
    const mapping = await stockMapping(a.app, owner);
    const stocked = await variants(a.db, store.storeId, 3, 5);
    await upload('stock-1.csv', ['sku,qty', ...stocked.map((variant, index) => `${variant.sku},${40 + index}`)].join('\n') + '\n');
    const flow = ok(
      await adminCall(a.app, 'POST', `${HUB}/flows`, owner, {
        name: 'Stock',
        connectionId: drop,
        mappingId: mapping,
        direction: 'import',
        format: 'csv',
        fileTemplate: 'stock-*.csv',
      }),
      201,
    ).id as string;
    const runs = `${HUB}/flows/${flow}/runs`;
    // Previews answer at once (they run in the request); each run keeps its outcome list past its commit.
    const previews = await Promise.all([a, b, a, b].map((t) => adminCall(t.app, 'POST', runs, owner, { preview: true })));
    for (const preview of previews) expect(ok(preview)).toMatchObject({ status: 'succeeded', counts: { read: 3, changed: 3 } });
    const queued = ok(await adminCall(b.app, 'POST', runs, owner), 202);
    const run = await eventually(
      async () => ok(await adminCall(a.app, 'GET', `${HUB}/runs/${queued.id}`, owner)),
      (doc) => !['queued', 'running'].includes(doc.status),
      30_000,
    );
    expect(run).toMatchObject({ status: 'succeeded', counts: { read: 3, changed: 3 } });
    const stock = await a.db.rows<{ id: string; stock: number }>(`select id, stock from product_variants where id = any($1)`, [
      stocked.map((variant) => variant.id),
    ]);
    expect(Object.fromEntries(stock.map((row) => [row.id, row.stock]))).toEqual(
      Object.fromEntries(stocked.map((variant, index) => [variant.id, 40 + index])),
    );
  });

  it('revoking a key on one instance ends its sessions on the other at once; so does a staff sign-out', async () => {
    const doomed = await issueKey(a.app, store.storeId);
    const session = parse(await mint(b.app, doomed.key));
    // B has resolved the key and keeps it cached (30 s): only the change feed can make it forget sooner.
    expect(await b.app.get(ApiKeyService).resolve(doomed.key)).toMatchObject({ id: doomed.id });
    await a.app.get(ApiKeyService).revoke(doomed.id);
    expect(await within(2000, async () => (await b.app.get(ApiKeyService).resolve(doomed.key)) === null)).not.toBeNull();
    expectProblem(await mint(b.app, doomed.key), 401, 'INVALID_API_KEY');
    expectProblem(await refresh(b.app, doomed.key, session.refreshToken), 401, 'INVALID_API_KEY');

    const member = await addStaff(a.app, store.storeId, 'analyst');
    const staff = await staffSession(a.app, member);
    // B reads the session and caches it (15 s) ...
    ok(await adminCall(b.app, 'GET', '/admin/auth/me', staff.accessToken));
    expect((await adminCall(a.app, 'POST', '/admin/auth/sign-out', staff.accessToken)).statusCode).toBe(204);
    // ... and forgets it as soon as A's sign-out is announced.
    const refusedWithin = await within(
      2000,
      async () => (await adminCall(b.app, 'GET', '/admin/auth/me', staff.accessToken)).statusCode === 401,
    );
    expect(refusedWithin, 'B still served the signed-out session after 2 s').not.toBeNull();
  });

  it('a database_read source behind a pooler in transaction mode is tested and read again and again', async () => {
    // The merchant's server may sit behind a pooler too: here, this PgBouncer in front of the test database.
    const source = {
      host: '127.0.0.1',
      port: bouncer.port,
      database: new URL(bouncer.url).pathname.slice(1),
      username: 'postgres',
      query: `select sku, stock from product_variants where store_id = '${store.storeId}'`,
    };
    const egress = EgressPolicy.of('public,127.0.0.1');
    const [{ variants: expected }] = await a.db.rows<{ variants: number }>(
      'select count(*)::int as variants from product_variants where store_id = $1',
      [store.storeId],
    );
    // More reads than server connections: each statement of one is prepared again on whichever connection it gets.
    for (let probe = 0; probe < 2 * POOL_SIZE; probe++) {
      expect(await probeDatabaseRead(source, { password: '' }, egress)).toEqual([
        { name: 'sku', type: 'varchar' },
        { name: 'stock', type: 'int4' },
      ]);
      const rows = await readDatabaseRows(source, { password: '' }, egress);
      try {
        let read = 0;
        for await (const _row of rows) read++;
        expect(read).toBe(expected);
      } finally {
        await rows.close();
      }
    }
  });

  it('leaves no session state on PgBouncer’s server connections: settings at their defaults, no temporary tables, prepared statements, listens or locks', async () => {
    // As many transactions at once as PgBouncer has server connections: together they hold every one of them.
    const clients = Array.from({ length: POOL_SIZE }, () => new pg.Client({ connectionString: bouncer.url }));
    try {
      await Promise.all(clients.map((client) => client.connect()));
      await Promise.all(clients.map((client) => client.query('begin')));
      const states = await Promise.all(
        clients.map(async (client) => {
          const { rows } = await client.query(`
            select pg_backend_pid() as pid,
                   current_setting('statement_timeout') as statement_timeout,
                   current_setting('jit') as jit,
                   current_setting('synchronous_commit') as synchronous_commit,
                   current_setting('default_transaction_read_only') as read_only,
                   (select count(*)::int from pg_class where relnamespace = pg_my_temp_schema()) as temporary_tables,
                   (select count(*)::int from pg_prepared_statements) as prepared_statements,
                   (select count(*)::int from pg_listening_channels()) as listens,
                   (select count(*)::int from pg_locks where pid = pg_backend_pid() and locktype = 'advisory') as advisory_locks`);
          return rows[0];
        }),
      );
      expect(new Set(states.map((state) => state.pid)).size).toBe(POOL_SIZE);
      for (const { pid: _pid, ...state } of states) {
        expect(state).toEqual({
          statement_timeout: '0',
          jit: 'off',
          synchronous_commit: 'on',
          read_only: 'off',
          temporary_tables: 0,
          prepared_statements: 0,
          listens: 0,
          advisory_locks: 0,
        });
      }
    } finally {
      await Promise.all(clients.map((client) => client.query('rollback').catch(() => undefined)));
      await Promise.all(clients.map((client) => client.end()));
    }
    const servers = await bouncer.admin('show servers');
    expect(servers.length).toBeLessThanOrEqual(POOL_SIZE);
  });
});
