import { beforeAll, describe, expect, it } from 'vitest';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { REPORT_NAMES } from '../../src/insights/definitions/reports.js';
import { OrderLifecycle } from '../../src/storefront/orders/order-lifecycle.service.js';
import { Payments } from '../../src/storefront/payments/payments.service.js';
import { SearchRecorder } from '../../src/storefront/search/search-recorder.js';
import { StoreService } from '../../src/stores/store.service.js';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';
import { foldAll, placeOrder } from './support.js';

const SETTINGS = '/admin/insights/settings';

describe('Insights settings', () => {
  // Background work on: a time-zone change's rebuild is a durable job, worked here.
  const t = useTestApp({}, { schedulers: true });
  let store: TestStore;
  let other: TestStore;
  let owner: string;
  const call = (token: string, method: string, url: string, body?: unknown) => adminCall(t.app, method, url, token, body);

  /** Changes the settings and waits for the rebuild that the change asked for. */
  async function changeAndRebuild(token: string, storeId: string, body: Record<string, unknown>): Promise<Record<string, any>> {
    const [before] = await t.db.rows(`select rebuild_requested_at from insights_settings where store_id = $1`, [storeId]);
    const changed = ok(await call(token, 'PATCH', SETTINGS, body));
    const [after] = await t.db.rows(`select rebuild_requested_at from insights_settings where store_id = $1`, [storeId]);
    expect(after.rebuild_requested_at, 'a rebuild was asked for').not.toEqual(before?.rebuild_requested_at ?? null);
    const done = await eventually(
      async () => ok(await call(token, 'GET', '/admin/insights/status')),
      (status) => status.rebuilding === false,
      30_000,
    );
    expect(done.rebuilding).toBe(false);
    return changed;
  }

  /** Every report's answer over the last 30 days (its first 100 rows), without the moment it was read. */
  async function everyReport(token: string): Promise<Record<string, Record<string, any>>> {
    const answers: Record<string, Record<string, any>> = {};
    for (const report of REPORT_NAMES) {
      const { dataAsOf: _dataAsOf, ...answer } = ok(await call(token, 'GET', `/admin/insights/reports/${report}?last=30&limit=100`));
      answers[report] = answer;
    }
    return answers;
  }

  beforeAll(async () => {
    [store, other] = await Promise.all([t.store(), t.store()]);
    await t.app.get(DemoStoreService).seed(store.storeId, { orders: 150, productCount: 20 });
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
  }, 120_000);

  it('reads the defaults, and refuses anything but an IANA time zone, a known week start or language, a flag, a grace of 0 to 720 hours, or an unknown field', async () => {
    expect(ok(await call(owner, 'GET', SETTINGS))).toEqual({
      timezone: 'Asia/Riyadh',
      currency: 'SAR',
      weekStartsOn: 'sunday',
      language: 'en',
      excludeTestOrders: true,
      lateAfterHours: null,
    });
    for (const body of [
      { timezone: 'Mars/Olympus_Mons' },
      { timezone: '+03:00' },
      { timezone: 'EST' },
      { timezone: 'asia/riyadh' },
      { timezone: '' },
      { timezone: 3 },
      { weekStartsOn: 'friday' },
      { language: 'fr' },
      { currency: 'USD' },
      { excludeTestOrders: 'false' },
      { excludeTestOrders: 0 },
      { excludeTestOrders: null },
      { lateAfterHours: -1 },
      { lateAfterHours: 721 },
      { lateAfterHours: 1.5 },
      { lateAfterHours: '24' },
      { lateAfterHours: true },
      { lateAfterHours: 24, testOrders: false },
    ]) {
      expectProblem(await call(owner, 'PATCH', SETTINGS, body), 400, 'validation_failed');
    }
    expect(ok(await call(owner, 'GET', SETTINGS))).toMatchObject({
      timezone: 'Asia/Riyadh',
      excludeTestOrders: true,
      lateAfterHours: null,
    });
  });

  it('each of test orders and the grace is changed on its own, and rebuilds the figures only when they change', async () => {
    const requested = async () =>
      (await t.db.rows(`select rebuild_requested_at from insights_settings where store_id = $1`, [store.storeId]))[0]?.rebuild_requested_at;
    expect(await changeAndRebuild(owner, store.storeId, { lateAfterHours: 720 })).toMatchObject({
      excludeTestOrders: true,
      lateAfterHours: 720,
    });
    expect(await changeAndRebuild(owner, store.storeId, { excludeTestOrders: false })).toMatchObject({
      excludeTestOrders: false,
      lateAfterHours: 720,
    });
    expect(await changeAndRebuild(owner, store.storeId, { lateAfterHours: null, excludeTestOrders: true })).toMatchObject({
      excludeTestOrders: true,
      lateAfterHours: null,
    });
    // No grace and a grace of 0 are the same figures; the language is no figure; an empty change changes nothing.
    const asked = await requested();
    for (const body of [{ lateAfterHours: 0 }, { lateAfterHours: null }, { language: 'en' }, { excludeTestOrders: true }, {}])
      ok(await call(owner, 'PATCH', SETTINGS, body));
    expect(await requested()).toEqual(asked);
    expect(ok(await call(owner, 'GET', SETTINGS))).toMatchObject({ excludeTestOrders: true, lateAfterHours: null });
  });

  it('a week start changes where every week of a report begins', async () => {
    expect(ok(await call(owner, 'PATCH', SETTINGS, { weekStartsOn: 'monday', language: 'ar' }))).toMatchObject({
      weekStartsOn: 'monday',
      language: 'ar',
    });
    const weeks = ok(await call(owner, 'GET', '/admin/insights/reports/overview?last=90&grain=week')).series as { period: string }[];
    // The first week is cut at the range's start; every later one begins on a Monday.
    for (const { period } of weeks.slice(1)) expect(new Date(`${period}T00:00:00Z`).getUTCDay(), period).toBe(1);
    ok(await call(owner, 'PATCH', SETTINGS, { weekStartsOn: 'saturday' }));
    const saturdays = ok(await call(owner, 'GET', '/admin/insights/reports/overview?last=90&grain=week')).series as { period: string }[];
    for (const { period } of saturdays.slice(1)) expect(new Date(`${period}T00:00:00Z`).getUTCDay(), period).toBe(6);
    // Another store's settings are its own.
    const stranger = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    expect(ok(await call(stranger, 'GET', SETTINGS))).toMatchObject({ weekStartsOn: 'sunday', language: 'en' });
  });

  it('a new time zone is the store’s; the figures are rebuilt in it by a durable job, and /status says so until done', async () => {
    const changed = ok(await call(owner, 'PATCH', SETTINGS, { timezone: 'America/New_York' }));
    expect(changed.timezone).toBe('America/New_York');
    expect(ok(await call(owner, 'GET', '/admin/insights/status'))).toMatchObject({ rebuilding: true, timezone: 'America/New_York' });
    const done = await eventually(
      async () => ok(await call(owner, 'GET', '/admin/insights/status')),
      (status) => status.rebuilding === false,
      30_000,
    );
    expect(done.rebuilding).toBe(false);
    // Every order is now in the day it was placed on in New York (daylight saving included).
    const [{ mismatched }] = await t.db.rows<{ mismatched: number }>(
      `with kept as (select day, sum(orders)::int as orders from insights_sales_daily where store_id = $1 group by day having sum(orders) <> 0),
            placed as (select (placed_at at time zone 'America/New_York')::date as day, count(*)::int as orders from orders where store_id = $1 group by 1)
       select count(*)::int as mismatched from kept full join placed using (day) where kept.orders is distinct from placed.orders`,
      [store.storeId],
    );
    expect(mismatched).toBe(0);
    expect(ok(await call(owner, 'GET', '/admin/insights/reports/overview?last=30')).range.timezone).toBe('America/New_York');
  });

  it('test orders placed through checkout are in every figure when counted, out of every one when left out (the default)', async () => {
    const shop = await t.store();
    await t.app.get(DemoStoreService).seed(shop.storeId, { orders: 60, productCount: 20 });
    await t.app.get(StoreService).setPlan(shop.storeId, 'pro');
    const manager = await staffToken(t.app, await addStaff(t.app, shop.storeId, 'owner'));
    // The history's card payments still authorised would be captured by the minute's retry between two readings.
    await t.app.get(Payments).captureStalled({ graceSeconds: 0, limit: 1000 });
    await foldAll(t.app);
    const lifecycle = t.app.get(OrderLifecycle);
    const before = await everyReport(manager);

    // A QA run: a search, then a card order delivered a day late and partly returned, by a customer with no other order...
    const qa = await t.shopper(shop);
    ok(await qa.call('GET', '/v1/search?q=shirt'));
    await t.app.get(SearchRecorder).drain();
    const delivered = await placeOrder(t.db, qa, shop, { card: true, test: true });
    await t.db.query(`update orders set promised_by = now() - interval '1 day' where id = $1`, [delivered.id]);
    await lifecycle.ship(shop.storeId, delivered.id);
    await lifecycle.deliver(shop.storeId, delivered.id);
    await lifecycle.refund(shop.storeId, delivered.id, { lines: [{ lineId: delivered.lines[0].id, quantity: 1 }], restock: true });
    // ... and a pickup still open past its promise, by a customer who orders for real later.
    const returning = 'returns-later@example.com';
    const open = await placeOrder(t.db, await t.shopper(shop), shop, { pickup: true, test: true, email: returning });
    await t.db.query(`update orders set promised_by = now() - interval '1 hour' where id = $1`, [open.id]);
    await foldAll(t.app);

    const withoutTests = await everyReport(manager);
    // The shelf's stock is no figure of sales: a test order takes from it like any other.
    const shelfless = (answer: Record<string, any>) => ({
      ...answer,
      totals: { ...answer.totals, stock: null },
      rows: answer.rows.map((row: Record<string, unknown>) => ({ ...row, stock: null })),
    });
    // An open order's lateness grows with the clock: the two readings may be a minute apart.
    const clockless = (answer: Record<string, any>) => ({
      ...answer,
      rows: answer.rows.map((row: Record<string, unknown>) => ({ ...row, late_by: null })),
    });
    for (const report of REPORT_NAMES.filter((name) => !['not_selling', 'funnel', 'searches', 'late_orders'].includes(name))) {
      expect(withoutTests[report], report).toEqual(before[report]);
    }
    expect(shelfless(withoutTests.not_selling)).toEqual(shelfless(before.not_selling));
    expect(clockless(withoutTests.late_orders)).toEqual(clockless(before.late_orders));
    withoutTests.late_orders.rows.forEach((row: { late_by: number }, index: number) =>
      expect(row.late_by - before.late_orders.rows[index].late_by).toBeLessThanOrEqual(1),
    );
    // Their sessions and searches are shoppers' like any other; their orders are no step of the funnel, nor a search's follow-up.
    expect(withoutTests.funnel.totals).toMatchObject({
      sessions: before.funnel.totals.sessions + 2,
      sessions_with_order: before.funnel.totals.sessions_with_order,
    });
    expect(withoutTests.searches.totals).toMatchObject({
      searches: before.searches.totals.searches + 1,
      searches_followed_by_add: before.searches.totals.searches_followed_by_add + 1,
      searches_followed_by_order: before.searches.totals.searches_followed_by_order,
    });

    await changeAndRebuild(manager, shop.storeId, { excludeTestOrders: false });
    const withTests = await everyReport(manager);
    for (const report of REPORT_NAMES.filter((name) => name !== 'not_selling')) {
      expect(withTests[report], report).not.toEqual(withoutTests[report]);
    }
    expect(withTests.overview.totals).toMatchObject({
      orders: before.overview.totals.orders + 2,
      customers: before.overview.totals.customers + 2,
      new_customers: before.overview.totals.new_customers + 2,
    });
    expect(withTests.late_orders.rows.map((row: { order: string }) => row.order)).toEqual(expect.arrayContaining([delivered.id, open.id]));
    expect(withTests.late_orders.totals).toMatchObject({
      late_orders: before.late_orders.totals.late_orders + 1,
      open_past_promise: before.late_orders.totals.open_past_promise + 1,
    });
    expect(withTests.funnel.totals.sessions_with_order).toBe(before.funnel.totals.sessions_with_order + 2);
    expect(withTests.searches.totals.searches_followed_by_order).toBe(before.searches.totals.searches_followed_by_order + 1);

    // A test order is no customer's first order when left out: the real order that follows it is.
    await placeOrder(t.db, await t.shopper(shop), shop, { email: returning });
    await foldAll(t.app);
    const counted = ok(await call(manager, 'GET', '/admin/insights/reports/overview?last=30')).totals;
    expect(counted).toMatchObject({
      customers: withTests.overview.totals.customers,
      new_customers: withTests.overview.totals.new_customers,
    });
    await changeAndRebuild(manager, shop.storeId, { excludeTestOrders: true });
    const leftOut = ok(await call(manager, 'GET', '/admin/insights/reports/overview?last=30')).totals;
    expect(leftOut).toMatchObject({
      orders: before.overview.totals.orders + 1,
      customers: before.overview.totals.customers + 1,
      new_customers: before.overview.totals.new_customers + 1,
    });

    // Another store's settings and figures are its own.
    const stranger = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    expect(ok(await call(stranger, 'GET', SETTINGS))).toMatchObject({ excludeTestOrders: true, lateAfterHours: null });
    expect(ok(await call(stranger, 'GET', '/admin/insights/status')).rebuilding).toBe(false);
  }, 120_000);

  it('a grace after the promise moves orders between late and on time, in the fulfilment figures and the late_orders report', async () => {
    const shop = await t.store({ seedCatalogue: true, productCount: 10 });
    await t.app.get(StoreService).setPlan(shop.storeId, 'growth');
    const manager = await staffToken(t.app, await addStaff(t.app, shop.storeId, 'owner'));
    const lifecycle = t.app.get(OrderLifecycle);
    // Delivered 2 and 30 hours after their promises, and one still open 5 hours past its own.
    const [twoHours, thirtyHours, open] = await Promise.all([2, 30, 5].map(async () => placeOrder(t.db, await t.shopper(shop), shop)));
    for (const [order, hours] of [
      [twoHours, 2],
      [thirtyHours, 30],
      [open, 5],
    ] as const) {
      await t.db.query(`update orders set promised_by = now() - make_interval(hours => $2) where id = $1`, [order.id, hours]);
    }
    for (const order of [twoHours, thirtyHours]) {
      await lifecycle.ship(shop.storeId, order.id);
      await lifecycle.deliver(shop.storeId, order.id);
    }
    await foldAll(t.app);

    const lateness = async () => {
      const fulfilment = ok(await call(manager, 'GET', '/admin/insights/reports/fulfilment?last=7')).totals;
      const late = ok(await call(manager, 'GET', '/admin/insights/reports/late_orders?last=7'));
      return {
        late: fulfilment.late_orders,
        onTime: fulfilment.on_time_rate,
        reported: late.totals.late_orders,
        rows: late.rows.map((row: { order: string }) => row.order),
        openPastPromise: late.totals.open_past_promise,
      };
    };
    const withoutGrace = { late: 2, onTime: 0, reported: 2, rows: [thirtyHours.id, open.id, twoHours.id], openPastPromise: 1 };
    expect(await lateness()).toEqual(withoutGrace);
    await changeAndRebuild(manager, shop.storeId, { lateAfterHours: 3 });
    expect(await lateness()).toEqual({ late: 1, onTime: 0.5, reported: 1, rows: [thirtyHours.id, open.id], openPastPromise: 1 });
    await changeAndRebuild(manager, shop.storeId, { lateAfterHours: 24 });
    expect(await lateness()).toEqual({ late: 1, onTime: 0.5, reported: 1, rows: [thirtyHours.id], openPastPromise: 0 });
    // late_by still counts from the promise.
    const [row] = ok(await call(manager, 'GET', '/admin/insights/reports/late_orders?last=7')).rows;
    expect(row.late_by).toBeGreaterThanOrEqual(30 * 3600);
    await changeAndRebuild(manager, shop.storeId, { lateAfterHours: null });
    expect(await lateness()).toEqual(withoutGrace);
  });

  it('anyone who reads Insights reads the settings; changing them needs settings.manage; a support session only reads', async () => {
    const viewer = await staffToken(t.app, await addStaff(t.app, store.storeId, 'viewer'));
    ok(await call(viewer, 'GET', SETTINGS));
    expect(expectProblem(await call(viewer, 'PATCH', SETTINGS, { language: 'en' }), 403, 'missing_permission')).toMatchObject({
      requiredPermission: 'insights.settings.manage',
    });
    const support = await supportSession(t.app, store.storeId);
    ok(await call(support.token, 'GET', SETTINGS));
    expectProblem(await call(support.token, 'PATCH', SETTINGS, { language: 'en' }), 403, 'support_read_only');
    for (const body of [{ excludeTestOrders: false }, { lateAfterHours: 24 }]) {
      expectProblem(await call(viewer, 'PATCH', SETTINGS, body), 403, 'missing_permission');
      expectProblem(await call(support.token, 'PATCH', SETTINGS, body), 403, 'support_read_only');
    }
    // An analyst reads every area but manages no settings; a custom role given settings.manage does.
    const analyst = await staffToken(t.app, await addStaff(t.app, store.storeId, 'analyst'));
    expectProblem(await call(analyst, 'PATCH', SETTINGS, { lateAfterHours: 24 }), 403, 'missing_permission');
    const manager = await staffToken(
      t.app,
      await addStaff(t.app, store.storeId, 'custom', { permissions: ['insights.sales.view', 'insights.settings.manage'] }),
    );
    expect(ok(await call(manager, 'PATCH', SETTINGS, { language: 'ar' })).language).toBe('ar');
    expect(ok(await call(owner, 'GET', SETTINGS))).toMatchObject({ excludeTestOrders: true, lateAfterHours: null });
  });
});
