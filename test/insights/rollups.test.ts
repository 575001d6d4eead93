import { beforeAll, describe, expect, it } from 'vitest';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { RollupMaintainer } from '../../src/insights/rollups/rollup-maintainer.js';
import { OrderLifecycle } from '../../src/storefront/orders/order-lifecycle.service.js';
import { SearchRecorder } from '../../src/storefront/search/search-recorder.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { foldAll, placeOrder, rollupsOf } from './support.js';

describe('Insights rollups', () => {
  const t = useTestApp();
  let store: TestStore;
  let lifecycle: OrderLifecycle;

  beforeAll(async () => {
    store = await t.store();
    await t.app.get(DemoStoreService).seed(store.storeId, { orders: 400, productCount: 60 });
    lifecycle = t.app.get(OrderLifecycle);
  }, 120_000);

  it('folded in change by change, equal a rebuild from the records, after a burst of concurrent orders, steps and refunds', async () => {
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

    const pending = await t.db.rows(`select kind, count(*)::int as n from insights_pending where store_id = $1 group by kind`, [store.storeId]);
    expect(pending.map((row) => row.kind).sort()).toEqual(
      expect.arrayContaining(['order_cancelled', 'order_delivered', 'order_placed', 'order_shipped', 'refund', 'search']),
    );
    await foldAll(t.app);
    expect(await t.db.rows(`select 1 from insights_pending where store_id = $1`, [store.storeId])).toEqual([]);
    const folded = await rollupsOf(t.db, store.storeId);
    expect(folded.insights_sales_daily.length).toBeGreaterThan(100);
    expect(folded.insights_customers_daily.length).toBeGreaterThan(100);

    await t.app.get(RollupMaintainer).rebuild(store.storeId);
    const rebuilt = await rollupsOf(t.db, store.storeId);
    for (const table of Object.keys(folded)) expect(rebuilt[table], table).toEqual(folded[table]);
  });
});
