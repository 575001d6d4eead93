import { beforeAll, describe, expect, it } from 'vitest';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem, fields } from '../support/problem.js';
import { ok } from '../support/responses.js';

const BASE = '/admin/data-hub/flows';
const STOCK_FIELDS = [
  { target: 'sku', source: 'sku' },
  { target: 'stock', source: 'qty', transforms: [{ name: 'to_integer' }] },
];

describe('data hub flows (contract section 9)', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let connectionId: string;
  let stockMapping: string;
  let pricesMapping: string;
  let ordersExport: string;
  const call = (token: string, method: string, url: string, body?: unknown) => adminCall(t.app, method, url, token, body);
  const flow = (extra: Record<string, unknown> = {}) => ({
    name: 'Nightly stock',
    connectionId,
    mappingId: stockMapping,
    direction: 'import',
    format: 'csv',
    fileTemplate: 'stock-{yyyy}{MM}{dd}.csv',
    ...extra,
  });

  beforeAll(async () => {
    store = await t.store();
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    connectionId = ok(
      await call(owner, 'POST', '/admin/data-hub/connections', { name: 'Drop', kind: 'platform_drop', config: { prefix: 'in' } }),
      201,
    ).id;
    const mapping = async (structure: string, direction: string, mapped: unknown[]) =>
      ok(await call(owner, 'POST', '/admin/data-hub/mappings', { name: structure, structure, direction, fields: mapped }), 201).id;
    stockMapping = await mapping('stock', 'import', STOCK_FIELDS);
    pricesMapping = await mapping('prices', 'import', [
      { target: 'sku', source: 'sku' },
      { target: 'price', source: 'price', transforms: [{ name: 'to_decimal_minor' }] },
    ]);
    ordersExport = await mapping('orders', 'export', [{ target: 'Order', source: 'number' }]);
  }, 60_000);

  it('creates a flow with its defaults and a schedule whose next due time is in its time zone', async () => {
    const created = ok(
      await call(
        owner,
        'POST',
        BASE,
        flow({ schedule: { cron: '30 2 * * *', timezone: 'Asia/Riyadh' }, alertRecipients: ['Ops@Example.com'] }),
      ),
      201,
    );
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Nightly stock',
      connectionId,
      mappingId: stockMapping,
      direction: 'import',
      format: 'csv',
      encoding: 'utf-8',
      fileTemplate: 'stock-{yyyy}{MM}{dd}.csv',
      mode: 'upsert',
      formulaSafety: 'escape',
      schedule: { cron: '30 2 * * *', timezone: 'Asia/Riyadh' },
      paused: false,
      muted: false,
      missingAfterMinutes: 60,
      alertRecipients: ['Ops@Example.com'],
      shrinkGuard: { maxDeactivatePercent: 10, maxDeactivateCount: 500 },
      nextRunAt: expect.any(String),
      lastRun: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    // 02:30 in Riyadh (UTC+3, no daylight saving) is 23:30 UTC, within the next day.
    const next = new Date(created.nextRunAt);
    expect(next.toISOString().slice(11, 16)).toBe('23:30');
    expect(next.getTime() - Date.now()).toBeGreaterThan(0);
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    const paused = ok(
      await call(owner, 'PUT', `${BASE}/${created.id}`, {
        paused: true,
        muted: true,
        mode: 'replace',
        shrinkGuard: { maxDeactivatePercent: 3 },
      }),
    );
    expect(paused).toMatchObject({
      paused: true,
      muted: true,
      mode: 'replace',
      nextRunAt: null,
      shrinkGuard: { maxDeactivatePercent: 3, maxDeactivateCount: 500 },
    });
    const resumed = ok(await call(owner, 'PUT', `${BASE}/${created.id}`, { paused: false }));
    expect(resumed.nextRunAt).toBe(created.nextRunAt);
    expect(ok(await call(owner, 'PUT', `${BASE}/${created.id}`, { schedule: null })).nextRunAt).toBeNull();
    expect(ok(await call(owner, 'GET', `${BASE}/${created.id}`)).schedule).toBeNull();
    expect(ok(await call(owner, 'GET', BASE)).items.map((item: { id: string }) => item.id)).toContain(created.id);
  });

  it('refuses flows that cannot work, naming the field', async () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ schedule: { cron: '61 2 * * *', timezone: 'Asia/Riyadh' } }, 'schedule.cron'],
      [{ schedule: { cron: '0 0 2 * * *', timezone: 'Asia/Riyadh' } }, 'schedule.cron'],
      [{ schedule: { cron: '0 2 * * *', timezone: 'Mars/Olympus' } }, 'schedule.timezone'],
      [{ fileTemplate: '../stock.csv' }, 'fileTemplate'],
      [{ format: 'xls' }, 'format'],
      [{ shrinkGuard: { maxDeactivatePercent: 101 } }, 'shrinkGuard.maxDeactivatePercent'],
      [{ alertRecipients: ['not-an-email'] }, 'alertRecipients'],
      [{ connectionId: '00000000-0000-4000-8000-000000000000' }, 'connectionId'],
      [{ mappingId: ordersExport }, 'mappingId'],
      [{ mappingId: pricesMapping, mode: 'replace' }, 'mode'],
      [{ format: 'xlsx', encoding: 'windows-1256', fileTemplate: 'stock-*.xlsx' }, 'encoding'],
    ];
    for (const [extra, field] of refusals) {
      expect(fields(expectProblem(await call(owner, 'POST', BASE, flow(extra)), 400, 'validation_failed')), JSON.stringify(extra)).toEqual([
        field,
      ]);
    }
    const created = ok(await call(owner, 'POST', BASE, flow()), 201);
    expect(
      fields(expectProblem(await call(owner, 'PUT', `${BASE}/${created.id}`, { direction: 'export' }), 400, 'validation_failed')),
    ).toEqual(['direction']);
  });

  it('holds on to its connection and mapping: the connection cannot be deleted while a flow uses it', async () => {
    const own = ok(
      await call(owner, 'POST', '/admin/data-hub/connections', { name: 'Used', kind: 'platform_drop', config: { prefix: 'used' } }),
      201,
    );
    ok(await call(owner, 'POST', BASE, flow({ connectionId: own.id })), 201);
    expectProblem(await call(owner, 'DELETE', `/admin/data-hub/connections/${own.id}`), 409, 'connection_in_use');
  });

  it('checks permissions, refuses support writes, and hides other stores’ flows', async () => {
    const created = ok(await call(owner, 'POST', BASE, flow()), 201);
    const reader = await staffToken(t.app, await addStaff(t.app, store.storeId, 'custom', { permissions: ['data.flows.read'] }));
    ok(await call(reader, 'GET', `${BASE}/${created.id}`));
    expectProblem(await call(reader, 'PUT', `${BASE}/${created.id}`, { paused: true }), 403, 'missing_permission');
    const support = await supportSession(t.app, store.storeId);
    ok(await call(support.token, 'GET', BASE));
    expectProblem(await call(support.token, 'PUT', `${BASE}/${created.id}`, { paused: true }), 403, 'support_read_only');
    const other = await t.store();
    const otherOwner = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    expectProblem(await call(otherOwner, 'GET', `${BASE}/${created.id}`), 404, 'not_found');
    expectProblem(await call(otherOwner, 'PUT', `${BASE}/${created.id}`, { paused: true }), 404, 'not_found');
    // Another store's connection or mapping cannot be named either.
    const theirs = ok(
      await call(otherOwner, 'POST', '/admin/data-hub/connections', { name: 'Theirs', kind: 'platform_drop', config: { prefix: '' } }),
      201,
    );
    expect(fields(expectProblem(await call(owner, 'POST', BASE, flow({ connectionId: theirs.id })), 400, 'validation_failed'))).toEqual([
      'connectionId',
    ]);
    expect(ok(await call(otherOwner, 'GET', BASE)).items).toEqual([]);
  });
});
