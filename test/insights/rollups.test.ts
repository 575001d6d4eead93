import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { RollupMaintainer } from '../../src/insights/rollups/rollup-maintainer.js';
import { OrderLifecycle } from '../../src/storefront/orders/order-lifecycle.service.js';
import { SearchRecorder } from '../../src/storefront/search/search-recorder.js';
import { runCli } from '../support/cli.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { foldAll, placeOrder, rollupsOf } from './support.js';

describe('Insights rollups', () => {
  const t = useTestApp();
  let store: TestStore;
  let lifecycle: OrderLifecycle;

  /** The store's orders, its test orders, the orders its rollups hold, and their late and kept promises. */
  async function counts(storeId: string) {
    const [row] = await t.db.rows<{ orders: number; test: number; kept: number; late: number; onTime: number }>(
      `select count(*)::int as orders, count(*) filter (where test)::int as test,
              (select sum(orders)::int from insights_sales_daily where store_id = $1) as kept,
              (select sum(late_orders)::int from insights_fulfilment_hourly where store_id = $1) as late,
              (select sum(kept_orders)::int from insights_fulfilment_hourly where store_id = $1) as "onTime"
       from orders where store_id = $1`,
      [storeId],
    );
    return row;
  }

  beforeAll(async () => {
    store = await t.store();
    await t.app.get(DemoStoreService).seed(store.storeId, { orders: 400, productCount: 60 });
    lifecycle = t.app.get(OrderLifecycle);
  }, 120_000);

  it('folded in change by change, equal a rebuild from the records, after a burst of concurrent orders (test orders among them), steps and refunds', async () => {
    const base = await t.listen();
    expect(base).toMatch(/^http/);
    // Live activity on top of the demo history: orders racing each other over HTTP, then every lifecycle step.
    const shoppers = await Promise.all(Array.from({ length: 8 }, () => t.shopper(store)));
    // Searches before adding to the cart: they are followed by an add-to-cart (and an order).
    await Promise.all(shoppers.map((shopper, i) => shopper.call('GET', `/v1/search?q=${encodeURIComponent(i % 2 ? 'shirt' : 'قميص')}`)));
    await t.app.get(SearchRecorder).drain();
    const placed = await Promise.all(
      shoppers.map((shopper, i) =>
        placeOrder(t.db, shopper, store, {
          card: i % 2 === 0,
          pickup: i % 3 === 0,
          quantities: i % 4 === 0 ? [1, 3] : [2],
          email: i < 4 ? 'repeat@example.com' : undefined,
          // Left out of every figure (the default): one in the repeat customer's history, refunded; one shipped.
          test: i === 1 || i === 4,
        }),
      ),
    );
    const [a, b, c, d, e] = placed;
    await Promise.all([
      lifecycle.cancel(store.storeId, a.id),
      (async () => {
        const step = b.fulfilment.type === 'pickup' ? lifecycle.readyForPickup : lifecycle.ship;
        await step.call(lifecycle, store.storeId, b.id);
        await lifecycle.deliver(store.storeId, b.id);
        const line = b.lines[0];
        await lifecycle.refund(store.storeId, b.id, { lines: [{ lineId: line.id, quantity: 1 }], restock: true });
        await lifecycle.refund(store.storeId, b.id, {
          lines: [{ lineId: line.id, quantity: line.quantity - 1 }],
          restock: false,
          includeShipping: true,
        });
      })(),
      (async () => {
        const step = c.fulfilment.type === 'pickup' ? lifecycle.readyForPickup : lifecycle.ship;
        await step.call(lifecycle, store.storeId, c.id);
        await lifecycle.deliver(store.storeId, c.id);
      })(),
      lifecycle.cancel(store.storeId, d.id),
      (async () => (e.fulfilment.type === 'pickup' ? lifecycle.readyForPickup : lifecycle.ship).call(lifecycle, store.storeId, e.id))(),
    ]);

    const pending = await t.db.rows(`select kind, count(*)::int as n from insights_pending where store_id = $1 group by kind`, [
      store.storeId,
    ]);
    expect(pending.map((row) => row.kind).sort()).toEqual(
      expect.arrayContaining(['order_cancelled', 'order_delivered', 'order_placed', 'order_shipped', 'refund', 'search']),
    );
    await foldAll(t.app);
    expect(await t.db.rows(`select 1 from insights_pending where store_id = $1`, [store.storeId])).toEqual([]);
    const held = await counts(store.storeId);
    expect([held.test, held.kept]).toEqual([2, held.orders - 2]);
    const folded = await rollupsOf(t.db, store.storeId);
    expect(folded.insights_sales_daily.length).toBeGreaterThan(100);
    expect(folded.insights_customers_daily.length).toBeGreaterThan(100);

    // The operator's backfill: the command line rebuilds the store's rollups from its records.
    const run = await runCli(['insights', 'rebuild', '--store', store.storeId], { DATABASE_URL: t.databaseUrl });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toEqual({ storeId: store.storeId, rebuiltInMs: expect.any(Number) });
    const rebuilt = await rollupsOf(t.db, store.storeId);
    for (const table of Object.keys(folded)) expect(rebuilt[table], table).toEqual(folded[table]);
  });

  it('counting test orders, with a grace before an order is late, folds equal a rebuild too', async () => {
    const maintainer = t.app.get(RollupMaintainer);
    await t.db.query(
      `insert into insights_settings (store_id, exclude_test_orders, late_after_hours) values ($1, false, 2)
       on conflict (store_id) do update set exclude_test_orders = false, late_after_hours = 2`,
      [store.storeId],
    );
    await maintainer.rebuild(store.storeId);
    const before = await counts(store.storeId);
    expect(before.kept).toBe(before.orders);
    const [test, ordinary] = await Promise.all(
      [true, false].map(async (test) => placeOrder(t.db, await t.shopper(store), store, { card: true, email: 'repeat@example.com', test })),
    );
    // Delivered 3 hours after its promise, late; 1 hour after, within the grace: on time.
    await t.db.query(`update orders set promised_by = now() - interval '3 hours' where id = $1`, [test.id]);
    await t.db.query(`update orders set promised_by = now() - interval '1 hour' where id = $1`, [ordinary.id]);
    for (const order of [test, ordinary]) {
      await lifecycle.ship(store.storeId, order.id);
      await lifecycle.deliver(store.storeId, order.id);
    }
    await lifecycle.refund(store.storeId, test.id, { lines: [{ lineId: test.lines[0].id, quantity: 1 }], restock: true });
    await foldAll(t.app);
    const after = await counts(store.storeId);
    expect(after).toEqual({
      orders: before.orders + 2,
      test: before.test + 1,
      kept: before.kept + 2,
      late: before.late + 1,
      onTime: before.onTime + 1,
    });
    const folded = await rollupsOf(t.db, store.storeId);
    await maintainer.rebuild(store.storeId);
    expect(await rollupsOf(t.db, store.storeId)).toEqual(folded);
    await t.db.query(`update insights_settings set exclude_test_orders = true, late_after_hours = null where store_id = $1`, [
      store.storeId,
    ]);
    await maintainer.rebuild(store.storeId);
  });

  it('a rebuild while changes are folded in leaves neither counted twice', async () => {
    const shopper = await t.shopper(store);
    await placeOrder(t.db, shopper, store, { quantities: [1] });
    const before = await rollupsOf(t.db, store.storeId);
    const maintainer = t.app.get(RollupMaintainer);
    await Promise.all([maintainer.rebuild(store.storeId), foldAll(t.app), maintainer.rebuild(store.storeId)]);
    await foldAll(t.app);
    const after = await rollupsOf(t.db, store.storeId);
    await maintainer.rebuild(store.storeId);
    expect(await rollupsOf(t.db, store.storeId)).toEqual(after);
    expect(after.insights_sales_daily).not.toEqual(before.insights_sales_daily);
  });

  it('counts each session once per step, whichever of its events is folded in first, and keeps no row for a session that only started', async () => {
    const fresh = await t.store();
    const maintainer = t.app.get(RollupMaintainer);
    const [startOnly, startFirst, viewFirst, viewBeforeStart, neverStarted] = Array.from({ length: 5 }, () => randomUUID());
    const hour = Date.parse('2026-11-02T10:00:00Z') / 1000;
    const write = (...events: [string, string, number][]) =>
      t.db.query(
        `insert into storefront_events (store_id, session_id, kind, occurred_at)
         select $1, e.session_id, e.kind, to_timestamp(e.at) from unnest($2::uuid[], $3::text[], $4::float8[]) as e(session_id, kind, at)`,
        [fresh.storeId, events.map((e) => e[0]), events.map((e) => e[1]), events.map((e) => hour + e[2] * 60)],
      );
    const dueBy = new Date(Date.now() + 60_000);

    // One statement, one pending change naming its events.
    await write([startOnly, 'session_started', 0], [startFirst, 'session_started', 1]);
    const pending = await t.db.rows(`select kind, cardinality(event_ids) as events from insights_pending where store_id = $1`, [
      fresh.storeId,
    ]);
    expect(pending).toEqual([{ kind: 'storefront_event', events: 2 }]);
    await foldAll(t.app);
    await write([startFirst, 'product_viewed', 2], [startFirst, 'cart_line_added', 3]);
    // Its view is folded in while its start, already written, waits behind it (another instance's batch).
    await write([viewFirst, 'product_viewed', 5]);
    await write([viewFirst, 'session_started', 4]);
    await maintainer.foldDue({ limit: 1, wait: true, dueBy });
    // Its view is folded in before its start is written at all.
    await write([viewBeforeStart, 'product_viewed', 7]);
    await foldAll(t.app);
    await write([viewBeforeStart, 'session_started', 6]);
    // No session_started ever: it counts as started with its first event.
    await write([neverStarted, 'product_viewed', 8], [neverStarted, 'order_placed', 9]);
    await foldAll(t.app);

    const funnel = async () =>
      (
        await t.db.rows(
          `select sum(sessions)::int as sessions, sum(product_viewed)::int as viewed, sum(added_to_cart)::int as added,
                  sum(reached_checkout)::int as checkout, sum(ordered)::int as ordered
           from insights_funnel_hourly where store_id = $1`,
          [fresh.storeId],
        )
      )[0];
    expect(await funnel()).toEqual({ sessions: 5, viewed: 4, added: 1, checkout: 0, ordered: 1 });
    const remembered = await t.db.rows<{ session_id: string }>(`select session_id from insights_funnel_sessions where store_id = $1`, [
      fresh.storeId,
    ]);
    expect(remembered.map((row) => row.session_id).sort()).toEqual([startFirst, viewFirst, viewBeforeStart, neverStarted].sort());

    const folded = await rollupsOf(t.db, fresh.storeId);
    await maintainer.rebuild(fresh.storeId);
    expect(await rollupsOf(t.db, fresh.storeId)).toEqual(folded);
    expect(await funnel()).toEqual({ sessions: 5, viewed: 4, added: 1, checkout: 0, ordered: 1 });
  });

  it('insights rebuild refuses a missing or malformed store before opening a database', async () => {
    const missing = await runCli(['insights', 'rebuild']);
    expect(missing.code).toBe(2);
    expect(missing.json.error.code).toBe('USAGE');
    const unknown = await runCli(['insights', 'rebuild', '--store', '00000000-0000-4000-8000-000000000000'], {
      DATABASE_URL: t.databaseUrl,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.code).toBe('STORE_NOT_FOUND');
  });
});
