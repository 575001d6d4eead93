import { beforeAll, describe, expect, it } from 'vitest';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';

const SETTINGS = '/admin/insights/settings';

describe('Insights settings', () => {
  // Background work on: a time-zone change's rebuild is a durable job, worked here.
  const t = useTestApp({}, { schedulers: true });
  let store: TestStore;
  let other: TestStore;
  let owner: string;
  const call = (token: string, method: string, url: string, body?: unknown) => adminCall(t.app, method, url, token, body);

  beforeAll(async () => {
    [store, other] = await Promise.all([t.store(), t.store()]);
    await t.app.get(DemoStoreService).seed(store.storeId, { orders: 150, productCount: 20 });
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
  }, 120_000);

  it('reads the defaults, and refuses anything but an IANA time zone, a known week start or language, or an unknown field', async () => {
    expect(ok(await call(owner, 'GET', SETTINGS))).toEqual({
      timezone: 'Asia/Riyadh',
      currency: 'SAR',
      weekStartsOn: 'sunday',
      language: 'en',
    });
    for (const body of [
      { timezone: 'Mars/Olympus_Mons' },
      { timezone: '+03:00' },
      { timezone: 'EST' },
      { timezone: 'asia/riyadh' },
      { timezone: '' },
      { weekStartsOn: 'friday' },
      { language: 'fr' },
      { currency: 'USD' },
    ]) {
      expectProblem(await call(owner, 'PATCH', SETTINGS, body), 400, 'validation_failed');
    }
    expect(ok(await call(owner, 'GET', SETTINGS)).timezone).toBe('Asia/Riyadh');
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

  it('anyone who reads Insights reads the settings; changing them needs settings.manage; a support session only reads', async () => {
    const viewer = await staffToken(t.app, await addStaff(t.app, store.storeId, 'viewer'));
    ok(await call(viewer, 'GET', SETTINGS));
    expect(expectProblem(await call(viewer, 'PATCH', SETTINGS, { language: 'en' }), 403, 'missing_permission')).toMatchObject({
      requiredPermission: 'insights.settings.manage',
    });
    const support = await supportSession(t.app, store.storeId);
    ok(await call(support.token, 'GET', SETTINGS));
    expectProblem(await call(support.token, 'PATCH', SETTINGS, { language: 'en' }), 403, 'support_read_only');
  });
});
