import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { activeDrop, HUB, stockMapping } from '../data-hub/hub-fixtures.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import { issueKey, variants, type TestStore, type Variant } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { CHECK_INTERVAL_MS } from '../support/peers/haproxy.js';
import { ok } from '../support/responses.js';
import { createIsolatedDatabase } from '../support/test-app.js';
import { eventually } from '../support/waiting.js';
import { CASH_ON_DELIVERY, DELIVERY, journey, send, type Answer, type Call } from './http-journey.js';
import { startTopology, type Topology } from './topology.js';

const INSTANCES = 3;

/** Sends `call` until an answer comes that is not a 5xx, as a client behind a balancer retries: the same request, the same Idempotency-Key. */
async function retried(base: string, call: Call, failures: { at: number }[]): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    const answer = await send(base, call).catch(() => undefined);
    if (answer && answer.status < 500) return answer;
    failures.push({ at: Date.now() });
    if (attempt === 50) throw new Error(`${call.method} ${call.path}: no answer after 50 attempts`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Three instances of the built service behind a real HAProxy (round robin, health-checked on
 * /health/ready), on one database and one Redis. A dashboard app in the test process (no jobs, no
 * schedules, nothing behind the balancer) sets the store up, as the command line would.
 */
describe('three instances behind HAProxy', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'instances-test-'));
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let topology: Topology | undefined;

  // A database of its own: the instances' job queue must not share its jobs with other suites' apps.
  beforeAll(async () => {
    database = await createIsolatedDatabase();
  });
  afterAll(async () => {
    await topology?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const t = useTestApp(() => ({ DATABASE_URL: database.url, DATA_DIR: dataDir }));
  let store: TestStore;
  let stocked: Variant[];
  let flowId: string;
  let sku: string;

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 10 });
    stocked = await variants(t.db, store.storeId, 6, 100_000);
    // A nightly data hub flow, due now: one of the instances' schedulers must run it, once.
    const owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    const { id: drop, upload } = await activeDrop(t.app, owner, 'nightly');
    const mapping = await stockMapping(t.app, owner);
    sku = stocked[5].sku;
    await upload('nightly-1.csv', `sku,qty\n${sku},41\n`);
    flowId = ok(
      await adminCall(t.app, 'POST', `${HUB}/flows`, owner, {
        name: 'Nightly',
        connectionId: drop,
        mappingId: mapping,
        direction: 'import',
        format: 'csv',
        fileTemplate: 'nightly-*.csv',
        schedule: { cron: '0 2 * * *', timezone: 'Asia/Riyadh' },
      }),
      201,
    ).id;
    await t.db.query(`update data_hub_flows set next_run_at = now() - interval '10 seconds' where id = $1`, [flowId]);
    topology = await startTopology(database.url, dataDir, INSTANCES, { REDIS_URL: inject('redisUrl') });
  }, 120_000);

  it('round robin: consecutive requests go to different instances, and a shopper’s journey passes whichever answers', async () => {
    const servedBy: string[] = [];
    for (let request = 0; request < 2 * INSTANCES; request++) {
      const answer = await send(topology!.url, { method: 'GET', path: '/health/live' });
      expect(answer.status).toBe(200);
      servedBy.push(answer.servedBy!);
    }
    expect(new Set(servedBy)).toEqual(new Set(topology!.instances.keys()));
    for (let request = 1; request < servedBy.length; request++) expect(servedBy[request]).not.toBe(servedBy[request - 1]);

    const { order, sessionId, answers } = await journey((call) => send(topology!.url, call), store.key, stocked[0].id);
    // Its six requests went round the three instances: each served some of it.
    expect(new Set(answers.map((answer) => answer.servedBy))).toEqual(new Set(topology!.instances.keys()));
    expect(await t.db.rows('select id from orders where session_id = $1', [sessionId])).toEqual([{ id: order.id }]);
  });

  it('a key’s rate limit is exact across the instances: a limit of N gives exactly N answers, the rest 429', async () => {
    const LIMIT = 12;
    // The window is the clock minute: a burst that straddles two is tried again with a new key.
    for (let attempt = 1; ; attempt++) {
      const key = await issueKey(t.app, store.storeId, { rateLimitPerMinute: LIMIT });
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: LIMIT + 9 }, () =>
          send(topology!.url, { method: 'POST', path: '/v1/auth/anonymous', apiKey: key.key, body: {} }),
        ),
      );
      if (Math.floor(started / 60_000) !== Math.floor(Date.now() / 60_000) && attempt < 3) continue;
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(LIMIT);
      expect(statuses.filter((status) => status === 429)).toHaveLength(9);
      expect(new Set(answers.map((answer) => answer.servedBy)).size).toBe(INSTANCES);
      return;
    }
  });

  it('a due flow runs once, on one of the instances', async () => {
    const runs = () =>
      t.db.rows<{ status: string; attempts: number }>(`select status, attempts from data_hub_runs where flow_id = $1`, [flowId]);
    // pg-boss's cron pass files the minute's dispatch within about 30 s of the minute; a minute and a half covers it.
    const seen = await eventually(runs, (rows) => rows.some((row) => row.status === 'succeeded'), 100_000);
    expect(seen).toEqual([{ status: 'succeeded', attempts: 1 }]);
    const [{ stock }] = await t.db.rows<{ stock: number }>(`select stock from product_variants where store_id = $1 and sku = $2`, [
      store.storeId,
      sku,
    ]);
    expect(stock).toBe(41);
    // Every instance's scheduler looked at the minutes that passed: each recurring job was filed once per minute.
    const perMinute = await t.db.rows<{ name: string; jobs: number }>(
      `select name, count(*)::int as jobs from pgboss.job where name in ('data-hub.flows-dispatch', 'insights.schedules-dispatch', 'payments.capture-retry')
       group by name, date_trunc('minute', created_on) having count(*) > 1`,
    );
    expect(perMinute).toEqual([]);
  }, 110_000);

  it('SIGKILL of an instance under load loses no order a client saw created; retries give one order per key; HAProxy stops sending to it', async () => {
    const victim = topology!.instances.get('i2')!;
    const failures: { at: number }[] = [];
    const placed: { key: string; sessionId: string; orderId: string }[] = [];
    let stop = false;
    const client = async (variant: Variant) => {
      const deliver = (call: Call) => retried(topology!.url, call, failures);
      while (!stop) {
        const key = randomUUID();
        const { accessToken: token, sessionId } = (
          await deliver({ method: 'POST', path: '/v1/auth/anonymous', apiKey: store.key, body: {} })
        ).body;
        await deliver({ method: 'POST', path: '/v1/cart/items', token, body: { variantId: variant.id, quantity: 1 } });
        await deliver({ method: 'POST', path: '/v1/checkout/fulfilment', token, body: DELIVERY });
        const order = await deliver({ method: 'POST', path: '/v1/checkout/orders', token, body: CASH_ON_DELIVERY, idempotencyKey: key });
        expect(order.status, JSON.stringify(order.body)).toBe(201);
        placed.push({ key, sessionId, orderId: order.body.id });
      }
    };
    const clients = stocked.slice(0, 5).map((variant) =>
      client(variant).finally(() => {
        stop = true; // one client failing ends the others' loops too
      }),
    );
    await eventually(
      async () => placed.length,
      (count) => count >= 10,
      20_000,
    );
    const killedAt = Date.now();
    process.kill(victim.child.pid!, 'SIGKILL');
    const states = await eventually(
      () => topology!.balancer.states(),
      (now) => now.i2 === 'DOWN',
      10_000,
    );
    const downAfterMs = Date.now() - killedAt;
    expect(states.i2).toBe('DOWN');
    const placedWhenDown = placed.length;
    // Load goes on through the two instances left.
    await eventually(
      async () => placed.length,
      (count) => count >= placedWhenDown + 15,
      30_000,
    );
    stop = true;
    await Promise.all(clients);

    const failedAfterMs = failures.filter((failure) => failure.at >= killedAt).map((failure) => failure.at - killedAt);
    const lastFailureMs = failedAfterMs.length ? Math.max(...failedAfterMs) : 0;
    console.info(
      `SIGKILL of i2 under load: HAProxy marked it DOWN after ${downAfterMs} ms (checks every ${CHECK_INTERVAL_MS} ms, fall 2); ` +
        `${failedAfterMs.length} failed attempts retried, the last ${lastFailureMs} ms after the kill; ${placed.length} orders placed`,
    );
    expect(downAfterMs).toBeLessThan(2 * CHECK_INTERVAL_MS + 2000);
    expect(lastFailureMs).toBeLessThanOrEqual(downAfterMs + CHECK_INTERVAL_MS);

    // Every order a client saw created is there, once: one order per key (per session), the one the client was answered with.
    const stored = await t.db.rows<{ session_id: string; ids: string[] }>(
      `select session_id, array_agg(id::text) as ids from orders where session_id = any($1::uuid[]) group by session_id`,
      [placed.map((order) => order.sessionId)],
    );
    const bySession = new Map(stored.map((row) => [row.session_id, row.ids]));
    const lost = placed.filter((order) => !bySession.get(order.sessionId)?.includes(order.orderId));
    expect(lost).toEqual([]);
    expect(placed.filter((order) => bySession.get(order.sessionId)!.length !== 1)).toEqual([]);
  }, 90_000);
});
