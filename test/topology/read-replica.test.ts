import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { activeDrop, HUB, stockExportMapping } from '../data-hub/hub-fixtures.js';
import { finished } from '../insights/exports-support.js';
import { foldAll, placeOrder } from '../insights/support.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../support/peers/postgres-replica.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';

const MAX_LAG_SECONDS = 8;
const FALLBACK_MS = 2_000;
const REPORTS = ['overview', 'products', 'customers', 'payments', 'searches'];

/**
 * Insights on a real streaming replica (issue 29, items 1–4): a primary of the test's own and a replica
 * made from it with pg_basebackup -R, each on its own port and stopped by PID. One app reads reports on
 * the replica (REPLICA_MAX_LAG_SECONDS=8, so that the test need not wait a minute); another, on the
 * same primary without a replica, is what the primary answers.
 */
describe('Insights read from a streaming replica', () => {
  let cluster: ReplicatedPostgres;
  const logs: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'replica-app-'));
  afterAll(() => rm(dataDir, { recursive: true, force: true }));
  beforeAll(async () => {
    cluster = await startReplicatedPostgres();
    await cluster.primarySql('create database storefront');
  }, 120_000);
  afterAll(() => cluster?.stop());

  // Started first: Nest's logger is one per process, and the app started last is the one whose lines are captured.
  const primaryOnly = useTestApp(() => ({ DATABASE_URL: cluster.primaryUrl('storefront') }));
  const t = useTestApp(
    () => ({
      DATABASE_URL: cluster.primaryUrl('storefront'),
      DATABASE_REPLICA_URL: cluster.replicaUrl('storefront'),
      REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
    }),
    // Its jobs worked here: the exports.
    { logTo: { write: (line: string) => void logs.push(line) }, schedulers: true },
  );

  let store: TestStore;
  let owner: string;
  const get = (app: typeof t.app, url: string) => adminCall(app, 'GET', url, owner);
  const health = async () => ok(await t.app.inject({ method: 'GET', url: '/health/ready' })).checks;
  const replicaSessions = async (application: string) => {
    const client = new pg.Client({ connectionString: cluster.replicaUrl('storefront') });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where application_name = $1', [
        application,
      ]);
      return rows[0].n;
    } finally {
      await client.end();
    }
  };
  /** A report's answer without the instant it was read at. */
  const report = async (app: typeof t.app, name: string) => {
    const { dataAsOf, ...rest } = ok(await get(app, `/admin/insights/reports/${name}?last=90`));
    expect(Date.parse(dataAsOf)).toBeGreaterThan(0);
    return rest;
  };
  const warnings = (pattern: RegExp) => logs.filter((line) => pattern.test(line)).length;

  beforeAll(async () => {
    store = await t.store();
    await t.app.get(DemoStoreService).seed(store.storeId, { orders: 150, productCount: 10, seed: 3 });
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    await foldAll(t.app);
    await cluster.caughtUp();
  }, 120_000);

  it('answers reports, the builder, dimension values and exports from the replica, equal to the primary’s once it has caught up', async () => {
    const status = await eventually(
      async () => ok(await get(t.app, '/admin/insights/status')),
      (body) => body.source === 'replica' && body.replicaLagSeconds === 0,
      10_000,
    );
    expect(status).toMatchObject({ source: 'replica', replicaLagSeconds: 0, lagSeconds: 0 });
    expect((await health()).replica).toMatchObject({ status: 'up', lagSeconds: expect.any(Number) });

    // The instance folds on its own schedule meanwhile: each answer is compared with the primary's once the
    // replica has replayed what the primary held when it answered.
    const onBoth = async <T>(read: (app: typeof t.app) => Promise<T>) =>
      eventually(
        async () => {
          const primary = await read(primaryOnly.app);
          await cluster.caughtUp();
          return { primary, replica: await read(t.app) };
        },
        ({ primary, replica }) => JSON.stringify(primary) === JSON.stringify(replica),
        20_000,
      );
    for (const name of REPORTS) {
      const { primary, replica } = await onBoth((app) => report(app, name));
      expect(replica, name).toEqual(primary);
    }
    const question = { measures: ['net_sales', 'orders'], dimensions: ['product'], last: 90, sort: '-net_sales' };
    const built = await onBoth(async (app) => {
      const { dataAsOf: _, ...rest } = ok(await adminCall(app, 'POST', '/admin/insights/builder/run', owner, question));
      return rest;
    });
    expect(built.replica.rowCount).toBeGreaterThan(0);
    expect(built.replica).toEqual(built.primary);
    const values = await onBoth(async (app) => ok(await get(app, '/admin/insights/dimensions/product/values?limit=50')));
    expect(values.replica.items.length).toBeGreaterThan(0);
    expect(values.replica).toEqual(values.primary);
    // Read there: the reports' pool keeps its connections to the replica a while after.
    expect(await replicaSessions('storefront reports')).toBeGreaterThan(0);

    const queued = ok(
      await adminCall(t.app, 'POST', '/admin/insights/exports', owner, {
        source: { report: 'products', params: { last: 90 } },
        format: 'csv',
      }),
      202,
    );
    expect(await finished(t.app, owner, queued.id)).toMatchObject({ status: 'succeeded' });

    const drop = await activeDrop(t.app, owner, 'replica-out');
    const flow = ok(
      await adminCall(t.app, 'POST', `${HUB}/flows`, owner, {
        name: 'Stock out',
        direction: 'export',
        format: 'csv',
        connectionId: drop.id,
        mappingId: await stockExportMapping(t.app, owner),
        fileTemplate: 'stock.csv',
      }),
      201,
    ).id;
    const run = ok(await adminCall(t.app, 'POST', `${HUB}/flows/${flow}/runs`, owner, {}), 202);
    // The instance's job queue works it.
    const exported = await eventually(
      async () => ok(await get(t.app, `${HUB}/runs/${run.id}`)),
      (body) => body.status !== 'queued' && body.status !== 'running',
      30_000,
    );
    expect(exported).toMatchObject({ status: 'succeeded', counts: { read: expect.any(Number), rejected: 0 } });
    expect(exported.counts.read).toBeGreaterThan(0);
    expect(await replicaSessions('storefront data hub exports')).toBeGreaterThan(0);
  }, 60_000);

  it('shows an order in the figures read on the replica within 60 s of its placing, the fold and the replay both included', async () => {
    const before = (await report(t.app, 'overview')).totals.orders;
    await placeOrder(t.db, await t.shopper(store), store, { quantities: [1] });
    const placed = Date.now();
    // Nothing folds it in here but the instance's own schedule (INSIGHTS_FOLD_SECONDS), nor replays it but the replica.
    const seen = await eventually(
      async () => (await report(t.app, 'overview')).totals.orders,
      (orders) => orders === before + 1,
      60_000,
    );
    expect(seen).toBe(before + 1);
    expect(ok(await get(t.app, '/admin/insights/status')).source).toBe('replica');
    console.log(`an order in the replica's figures ${((Date.now() - placed) / 1000).toFixed(1)} s after it was placed`);
  }, 70_000);

  it('adds the replica’s lag to the figures’ lag, and reads on the primary once the replica falls more than REPLICA_MAX_LAG_SECONDS behind', async () => {
    const replica = new pg.Client({ connectionString: cluster.replicaUrl('storefront') });
    await replica.connect();
    try {
      // The replica replays a change a moment ago, then stops replaying: its lag grows from there.
      await placeOrder(t.db, await t.shopper(store), store, { quantities: [1] });
      await foldAll(t.app);
      await cluster.caughtUp();
      const before = await report(primaryOnly.app, 'overview');
      await replica.query('select pg_wal_replay_pause()');
      await placeOrder(t.db, await t.shopper(store), store, { quantities: [2] });

      // Behind, but within the limit: still read there, its lag told.
      const behind = await eventually(
        async () => ok(await get(t.app, '/admin/insights/status')),
        (body) => body.source === 'replica' && body.replicaLagSeconds >= 1,
        MAX_LAG_SECONDS * 1000,
      );
      expect(behind).toMatchObject({ source: 'replica', replicaLagSeconds: expect.any(Number) });
      expect(behind.lagSeconds).toBeGreaterThanOrEqual(behind.replicaLagSeconds);
      expect(Date.parse(behind.dataAsOf)).toBeLessThanOrEqual(Date.now() - 1000);
      expect(await report(t.app, 'overview')).toEqual(before);
      await foldAll(t.app);
      const after = await report(primaryOnly.app, 'overview');
      expect(after).not.toEqual(before);

      // Past the limit: skipped, readiness unharmed, the figures the primary's.
      const skipped = await eventually(
        async () => ok(await get(t.app, '/admin/insights/status')),
        (body) => body.source === 'primary',
        (MAX_LAG_SECONDS + 10) * 1000,
      );
      expect(skipped).toMatchObject({ source: 'primary', replicaLagSeconds: null, lagSeconds: 0 });
      expect((await health()).replica).toMatchObject({ status: 'lagging' });
      expect(await report(t.app, 'overview')).toEqual(after);

      await replica.query('select pg_wal_replay_resume()');
      await cluster.caughtUp();
      await eventually(
        async () => ok(await get(t.app, '/admin/insights/status')),
        (body) => body.source === 'replica',
        10_000,
      );
      expect(await report(t.app, 'overview')).toEqual(after);
    } finally {
      await replica.query('select pg_wal_replay_resume()').catch(() => undefined);
      await replica.end();
    }
    expect(warnings(/read replica more than REPLICA_MAX_LAG_SECONDS=8 behind/)).toBe(1);
    expect(warnings(/read replica back/)).toBe(1);
  }, 60_000);

  it(`falls back to the primary within ${FALLBACK_MS / 1000} s of the replica stopping, with no 5xx, and returns to it once it is back`, async () => {
    const base = await t.listen();
    const statuses: number[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const response = await fetch(`${base}/admin/insights/reports/overview?last=90`, { headers: { authorization: `Bearer ${owner}` } });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
    })();
    try {
      await eventually(
        async () => statuses.length,
        (count) => count >= 5,
        10_000,
      );
      const stopped = Date.now();
      await cluster.stopReplica();
      const down = await eventually(health, (checks) => checks.replica.status === 'down', 10_000);
      const fellBackMs = Date.now() - stopped;
      expect(down).toMatchObject({ database: { status: 'up' }, replica: { status: 'down', lagSeconds: null } });
      expect(fellBackMs).toBeLessThan(FALLBACK_MS);
      const readsBefore = statuses.length;
      await eventually(
        async () => statuses.length,
        (count) => count >= readsBefore + 5,
        10_000,
      );
      expect(ok(await get(t.app, '/admin/insights/status'))).toMatchObject({ source: 'primary' });
      console.log(`replica stopped: reads on the primary after ${fellBackMs} ms; ${statuses.length} reads, none failed`);

      await cluster.startReplica();
      await eventually(health, (checks) => checks.replica.status === 'up', 20_000);
    } finally {
      reading = false;
      await reader;
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(warnings(/read replica down/)).toBe(1);
  }, 60_000);
});
