import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { DEFAULT_DEMO_ORDERS } from '../../src/demo/activity-seeder.js';
import { createIsolatedDatabase, startTestApp, type TestApp } from '../support/test-app.js';

describe('the demo store of a first start', () => {
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let t: TestApp;

  beforeAll(async () => {
    // A database without any store: what a newcomer's embedded database is on first start.
    database = await createIsolatedDatabase();
    t = await startTestApp({ DATABASE_URL: database.url });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it('comes with shoppers, orders and searches, once', async () => {
    const demo = await t.app.get(DemoStoreService).createIfFirstStart();
    expect(demo).not.toBeNull();
    expect(demo!.seeded).toMatchObject({ products: 240, orders: DEFAULT_DEMO_ORDERS });
    expect(demo!.seeded.shoppers).toBeGreaterThan(0);
    expect(demo!.seeded.searches).toBeGreaterThan(0);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `select (select count(*)::int from orders where store_id = $1) as orders,
                (select count(*)::int from shoppers where store_id = $1) as shoppers`,
        [demo!.store.id],
      );
      expect(rows[0]).toEqual({ orders: DEFAULT_DEMO_ORDERS, shoppers: demo!.seeded.shoppers });
    } finally {
      await client.end();
    }
    expect(await t.app.get(DemoStoreService).createIfFirstStart()).toBeNull();
  });
});
