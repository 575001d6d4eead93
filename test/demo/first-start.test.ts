import { describe, expect, it } from 'vitest';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { DEFAULT_DEMO_ORDERS } from '../../src/demo/activity-seeder.js';
import { useTestApp } from '../support/harness.js';

describe('the demo store of a first start', () => {
  // A database without any store: what a newcomer's embedded database is on first start.
  const t = useTestApp({}, { ownDatabase: true });

  it('comes with shoppers, orders, searches and sessions, once', async () => {
    const demo = await t.app.get(DemoStoreService).createIfFirstStart();
    expect(demo).not.toBeNull();
    expect(demo!.seeded).toMatchObject({ products: 240, orders: DEFAULT_DEMO_ORDERS });
    expect(demo!.seeded.shoppers).toBeGreaterThan(0);
    expect(demo!.seeded.searches).toBeGreaterThan(0);
    // About 3 % of sessions order.
    expect(demo!.seeded.sessions).toBeGreaterThan(25 * DEFAULT_DEMO_ORDERS);
    expect(demo!.seeded.sessions).toBeLessThan(40 * DEFAULT_DEMO_ORDERS);

    const [counts] = await t.db.rows(
      `select (select count(*)::int from orders where store_id = $1) as orders,
              (select count(*)::int from shoppers where store_id = $1) as shoppers,
              (select count(*)::int from storefront_events where store_id = $1) as events`,
      [demo!.store.id],
    );
    expect(counts).toEqual({ orders: DEFAULT_DEMO_ORDERS, shoppers: demo!.seeded.shoppers, events: demo!.seeded.storefrontEvents });
    expect(await t.app.get(DemoStoreService).createIfFirstStart()).toBeNull();
  });
});
