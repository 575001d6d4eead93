import { describe, expect, it } from 'vitest';
import { DEMO_OWNER, DemoStoreService } from '../../src/demo/demo-store.service.js';
import { DEFAULT_DEMO_ORDERS } from '../../src/demo/activity-seeder.js';
import { BUILDER_ROW_LIMIT } from '../../src/insights/builder/builder.service.js';
import { REPORT_NAMES } from '../../src/insights/definitions/reports.js';
import { adminCall, staffSignIn } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';

describe('the demo store of a first start', () => {
  // A database without any store: what a newcomer's embedded database is on first start.
  const t = useTestApp({}, { ownDatabase: true });

  it('comes with shoppers, orders, searches and sessions, once; every report has rows, and the builder reaches its limit', async () => {
    const demo = await t.app.get(DemoStoreService).createIfFirstStart();
    expect(demo).not.toBeNull();
    expect(demo!.seeded).toMatchObject({ products: 240, orders: DEFAULT_DEMO_ORDERS });
    expect(demo!.seeded.shoppers).toBeGreaterThan(0);
    // About one session in eleven searches.
    expect(demo!.seeded.searches).toBe(5 * DEFAULT_DEMO_ORDERS);
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

    // The owner of the banner sees every report with rows (the overview: its series) over the dashboard's default
    // range, and every total of each has a value: late orders, failed payments, searches, tax… but discounts, which
    // checkout never gives.
    const { accessToken } = ok(
      await staffSignIn(t.app, { storeId: demo!.store.id, email: DEMO_OWNER.email, password: demo!.owner.password }),
      201,
    );
    for (const report of REPORT_NAMES) {
      const body = ok(await adminCall(t.app, 'GET', `/admin/insights/reports/${report}`, accessToken));
      expect((report === 'overview' ? body.series : body.rows).length, report).toBeGreaterThan(0);
      const { discounts, ...totals } = body.totals;
      expect(discounts ?? 0, report).toBe(0);
      for (const [name, total] of Object.entries(totals)) expect([0, null], `${report}: ${name}`).not.toContain(total);
    }

    // The query the README names for the builder's refusal: the year's searches by day and query.
    const over = expectProblem(
      await adminCall(t.app, 'POST', '/admin/insights/builder/run', accessToken, {
        measures: ['searches'],
        dimensions: ['day', 'query'],
        last: 365,
      }),
      422,
      'over_row_limit',
    );
    expect(over.rowCount).toBeGreaterThan(BUILDER_ROW_LIMIT + 1000);
  }, 120_000);
});
