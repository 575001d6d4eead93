import { beforeAll, describe, expect, it } from 'vitest';
import { buildOnce } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { useTestDatabase } from '../support/database.js';

const cli = (env: Record<string, string>, ...args: string[]) => runCli(args, env);

describe('demo seed on the command line', () => {
  const db = useTestDatabase();

  beforeAll(async () => {
    await buildOnce();
  }, 120_000);

  it('refuses a bad --orders before opening any database', async () => {
    const unreachable = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const store = '00000000-0000-4000-8000-000000000000';
    const runs = await Promise.all(
      ['-1', '1.5', 'many', '5000001'].map((orders) => cli(unreachable, 'demo', 'seed', '--store', store, '--orders', orders)),
    );
    for (const run of runs) {
      expect(run.code, run.stdout).toBe(2);
      expect(run.json.error.code).toBe('USAGE');
      // "-1" reads like an option to the argument parser: refused as ambiguous, with the same code.
      expect(run.json.error.message).toMatch(/--orders must be a whole number from 0 to 5000000|'--orders' argument is ambiguous/);
      expect(run.json.error.message).toMatch(/usage: cli demo seed --store STORE_ID \[--products N\] \[--orders N\] \[--seed N\]/);
    }
  });

  it('refuses a bad --sessions-per-order before opening any database', async () => {
    const unreachable = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const store = '00000000-0000-4000-8000-000000000000';
    const runs = await Promise.all(
      ['0', '101', '2.5'].map((value) => cli(unreachable, 'demo', 'seed', '--store', store, '--sessions-per-order', value)),
    );
    for (const run of runs) {
      expect(run.code, run.stdout).toBe(2);
      expect(run.json.error.code).toBe('USAGE');
      expect(run.json.error.message).toMatch(/--sessions-per-order must be a whole number from 1 to 100/);
      expect(run.json.error.message).toMatch(/\[--sessions-per-order N\]/);
    }
  });

  it('prints the counts of what it wrote as JSON, and refuses the same store again', async () => {
    const created = await cli({}, 'store', 'create', '--name', 'Demo CLI');
    const storeId = created.json.store.id;
    const run = await cli(
      {},
      'demo',
      'seed',
      '--store',
      storeId,
      '--orders',
      '300',
      '--products',
      '40',
      '--seed',
      '3',
      '--sessions-per-order',
      '4',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toEqual({
      storeId,
      seeded: {
        categories: expect.any(Number),
        brands: expect.any(Number),
        products: 40,
        variants: expect.any(Number),
        shoppers: expect.any(Number),
        addresses: expect.any(Number),
        orders: 300,
        orderLines: expect.any(Number),
        payments: expect.any(Number),
        searches: expect.any(Number),
        sessions: expect.any(Number),
        storefrontEvents: expect.any(Number),
      },
    });
    const { rows } = await db.query(
      `select (select count(*)::int from categories where store_id = $1) as categories,
              (select count(*)::int from brands where store_id = $1) as brands,
              (select count(*)::int from products where store_id = $1) as products,
              (select count(*)::int from product_variants where store_id = $1) as variants,
              (select count(*)::int from shoppers where store_id = $1) as shoppers,
              (select count(*)::int from addresses where store_id = $1) as addresses,
              (select count(*)::int from orders where store_id = $1) as orders,
              (select count(*)::int from order_lines where store_id = $1) as "orderLines",
              (select count(*)::int from payments where store_id = $1) as payments,
              (select count(*)::int from searches where store_id = $1) as searches,
              (select count(*)::int from storefront_events where store_id = $1 and kind = 'session_started') as sessions,
              (select count(*)::int from storefront_events where store_id = $1) as "storefrontEvents"`,
      [storeId],
    );
    expect(rows[0]).toEqual(run.json.seeded);
    expect(run.json.seeded.shoppers).toBeGreaterThan(50);
    // About 4 sessions per order (a day has at least as many sessions as orders).
    expect(run.json.seeded.sessions).toBeGreaterThanOrEqual(1200);
    expect(run.json.seeded.sessions).toBeLessThan(1250);

    const again = await cli({}, 'demo', 'seed', '--store', storeId, '--orders', '10');
    expect(again.code).toBe(1);
    expect(again.json.error.code).toBe('CATALOGUE_NOT_EMPTY');
    const orders = await db.query('select count(*)::int as count from orders where store_id = $1', [storeId]);
    expect(orders.rows[0].count).toBe(300);
  }, 90_000); // three CLI processes, one seeding: about 10 s on a quiet machine, past 30 s on a loaded one
});
