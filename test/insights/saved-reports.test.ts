import { beforeAll, describe, expect, it } from 'vitest';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';

const BASE = '/admin/insights/saved-reports';

describe('Insights saved reports', () => {
  const t = useTestApp();
  let store: TestStore;
  let other: TestStore;
  let owner: string;
  let analyst: string;
  let viewer: string;
  const call = (token: string, method: string, url: string, body?: unknown) => adminCall(t.app, method, url, token, body);

  beforeAll(async () => {
    [store, other] = await Promise.all([t.store(), t.store()]);
    await t.app.get(DemoStoreService).seed(store.storeId, { orders: 200, productCount: 30 });
    for (const { storeId } of [store, other]) await t.app.get(StoreService).setPlan(storeId, 'pro');
    [owner, analyst, viewer] = await Promise.all(
      (['owner', 'analyst', 'viewer'] as const).map(async (role) => staffToken(t.app, await addStaff(t.app, store.storeId, role))),
    );
  }, 120_000);

  it('saves a built-in report and a builder query, lists them newest first, and runs each as its request would', async () => {
    const params = { last: 90, compare: 'previous_period', sort: '-net_sales', limit: 5 };
    const products = ok(
      await call(analyst, 'POST', BASE, { name: '  Card sales by product ', definition: { report: 'products', params } }),
      201,
    );
    expect(products).toEqual({
      id: expect.any(String),
      name: 'Card sales by product',
      definition: { report: 'products', params },
      createdBy: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const builder = { measures: ['net_sales', 'orders'], dimensions: ['month', 'category'], last: 'all', sort: '-net_sales' };
    const monthly = ok(await call(analyst, 'POST', BASE, { name: 'شهريًا حسب الفئة', definition: { builder } }), 201);

    const list = ok(await call(owner, 'GET', `${BASE}?limit=1`));
    expect(list.items.map((item: { id: string }) => item.id)).toEqual([monthly.id]);
    const rest = ok(await call(owner, 'GET', `${BASE}?limit=1&cursor=${list.nextCursor}`));
    expect(rest.items.map((item: { id: string }) => item.id)).toEqual([products.id]);
    expect(ok(await call(owner, 'GET', `${BASE}/${monthly.id}`)).name).toBe('شهريًا حسب الفئة');

    // Running it is running its request.
    const ran = ok(await call(owner, 'GET', `${BASE}/${products.id}/run`));
    const direct = ok(await call(owner, 'GET', '/admin/insights/reports/products?last=90&compare=previous_period&sort=-net_sales&limit=5'));
    expect({ ...ran, dataAsOf: null }).toEqual({ ...direct, dataAsOf: null });
    const page2 = ok(await call(owner, 'GET', `${BASE}/${products.id}/run?cursor=${ran.nextCursor}`));
    expect(page2.rows[0]).not.toEqual(ran.rows[0]);
    const built = ok(await call(owner, 'GET', `${BASE}/${monthly.id}/run`));
    const builtDirect = ok(await call(owner, 'POST', '/admin/insights/builder/run', builder));
    expect({ ...built, dataAsOf: null }).toEqual({ ...builtDirect, dataAsOf: null });
  });

  it('refuses a definition the request would refuse, with the request’s error, and saves nothing', async () => {
    const before = ok(await call(owner, 'GET', `${BASE}?limit=100`)).items.length;
    const refusals: [unknown, number, Parameters<typeof expectProblem>[2]][] = [
      [{ report: 'products', builder: { measures: ['orders'] } }, 400, 'validation_failed'],
      [{}, 400, 'validation_failed'],
      [{ report: 'nope' }, 400, 'validation_failed'],
      [{ report: 'products', params: { last: 400 } }, 400, 'invalid_range'],
      [{ report: 'products', params: { from: '2026-02-01', to: '2026-01-01' } }, 400, 'invalid_range'],
      [{ report: 'products', params: { filters: ['nope:1'] } }, 400, 'unknown_dimension'],
      [{ report: 'products', params: { sort: '-nope' } }, 400, 'unknown_measure'],
      [{ report: 'products', params: { cursor: 'x' } }, 400, 'validation_failed'],
      [{ builder: { measures: ['nope'] } }, 400, 'unknown_measure'],
      [{ builder: { measures: ['orders'], dimensions: ['day', 'category', 'brand', 'product'] } }, 400, 'too_many_dimensions'],
      [{ builder: { measures: ['orders'] }, params: {} }, 400, 'validation_failed'],
    ];
    for (const [definition, status, code] of refusals) {
      expectProblem(await call(owner, 'POST', BASE, { name: 'x', definition }), status, code);
    }
    expectProblem(await call(owner, 'POST', BASE, { name: '', definition: { report: 'overview' } }), 400, 'validation_failed');
    expectProblem(await call(owner, 'POST', BASE, { name: 'x', definition: { report: 'overview' }, extra: 1 }), 400, 'validation_failed');
    expect(ok(await call(owner, 'GET', `${BASE}?limit=100`)).items.length).toBe(before);
  });

  it('changes a name or the whole definition, checked again; deletes; another store’s id is not found', async () => {
    const saved = ok(await call(owner, 'POST', BASE, { name: 'Tax', definition: { report: 'tax' } }), 201);
    const renamed = ok(await call(owner, 'PATCH', `${BASE}/${saved.id}`, { name: 'Tax by rate' }));
    expect(renamed).toMatchObject({ name: 'Tax by rate', definition: { report: 'tax' } });
    expectProblem(
      await call(owner, 'PATCH', `${BASE}/${saved.id}`, { definition: { report: 'tax', params: { last: 0 } } }),
      400,
      'invalid_range',
    );
    const changed = ok(await call(owner, 'PATCH', `${BASE}/${saved.id}`, { definition: { report: 'payments', params: { last: 7 } } }));
    expect(changed).toMatchObject({ name: 'Tax by rate', definition: { report: 'payments', params: { last: 7 } } });

    const stranger = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    for (const [method, url, body] of [
      ['GET', `${BASE}/${saved.id}`],
      ['GET', `${BASE}/${saved.id}/run`],
      ['PATCH', `${BASE}/${saved.id}`, { name: 'mine' }],
      ['DELETE', `${BASE}/${saved.id}`],
    ] as const) {
      expectProblem(await call(stranger, method, url, body), 404, 'not_found');
    }
    expect(ok(await call(stranger, 'GET', BASE)).items).toEqual([]);
    expectProblem(await call(owner, 'GET', `${BASE}/not-a-uuid`), 404, 'not_found');

    expect((await call(owner, 'DELETE', `${BASE}/${saved.id}`)).statusCode).toBe(204);
    expectProblem(await call(owner, 'GET', `${BASE}/${saved.id}`), 404, 'not_found');
  });

  it('writes need reports.manage; reads and runs need the view permission of its areas; lists show only those', async () => {
    const funnel = ok(await call(owner, 'POST', BASE, { name: 'Funnel', definition: { report: 'funnel' } }), 201);
    // A viewer reads and runs, but does not write.
    ok(await call(viewer, 'GET', `${BASE}/${funnel.id}/run`));
    expect(
      expectProblem(await call(viewer, 'POST', BASE, { name: 'x', definition: { report: 'overview' } }), 403, 'missing_permission'),
    ).toMatchObject({ requiredPermission: 'insights.reports.manage' });
    expectProblem(await call(viewer, 'DELETE', `${BASE}/${funnel.id}`), 403, 'missing_permission');
    // Saving a builder query needs the builder; running a saved one does not.
    const sales = await staffToken(
      t.app,
      await addStaff(t.app, store.storeId, 'custom', { permissions: ['insights.sales.view', 'insights.reports.manage'] }),
    );
    expect(
      expectProblem(
        await call(sales, 'POST', BASE, { name: 'b', definition: { builder: { measures: ['orders'] } } }),
        403,
        'missing_permission',
      ),
    ).toMatchObject({ requiredPermission: 'insights.builder.use' });
    const byMonth = ok(
      await call(owner, 'POST', BASE, { name: 'Orders', definition: { builder: { measures: ['orders'], dimensions: ['month'] } } }),
      201,
    );
    ok(await call(sales, 'GET', `${BASE}/${byMonth.id}/run`));
    // One who may not view the behaviour area neither sees nor runs the funnel.
    const listed = ok(await call(sales, 'GET', `${BASE}?limit=100`)).items.map((item: { id: string }) => item.id);
    expect(listed).toContain(byMonth.id);
    expect(listed).not.toContain(funnel.id);
    expect(expectProblem(await call(sales, 'GET', `${BASE}/${funnel.id}/run`), 403, 'missing_permission')).toMatchObject({
      requiredPermission: 'insights.behaviour.view',
    });
    expectProblem(await call(sales, 'POST', BASE, { name: 'f', definition: { report: 'funnel' } }), 403, 'missing_permission');
  });

  it('a definition that has become invalid answers with the request’s error when run, never a 5xx', async () => {
    const funnel = ok(
      await call(owner, 'POST', BASE, { name: 'Funnel compared', definition: { report: 'funnel', params: { compare: 'previous_year' } } }),
      201,
    );
    const builder = ok(await call(owner, 'POST', BASE, { name: 'Builder', definition: { builder: { measures: ['orders'] } } }), 201);
    const gone = ok(await call(owner, 'POST', BASE, { name: 'Gone', definition: { builder: { measures: ['orders'] } } }), 201);
    await t.db.query(
      `update insights_saved_reports set definition = '{"builder":{"measures":["a_measure_since_removed"]}}' where id = $1`,
      [gone.id],
    );
    const reshaped = ok(await call(owner, 'POST', BASE, { name: 'Reshaped', definition: { report: 'overview' } }), 201);
    await t.db.query(`update insights_saved_reports set definition = '{"report":"overview","params":{"window":3}}' where id = $1`, [
      reshaped.id,
    ]);
    expect(expectProblem(await call(owner, 'GET', `${BASE}/${gone.id}/run`), 400, 'unknown_measure')).toMatchObject({
      measure: 'a_measure_since_removed',
    });
    expectProblem(await call(owner, 'GET', `${BASE}/${reshaped.id}/run`), 400, 'validation_failed');

    await t.app.get(StoreService).setPlan(store.storeId, 'basic');
    try {
      // The plan reaches every instance's cache by notification.
      const refused = await eventually(
        () => call(owner, 'GET', `${BASE}/${funnel.id}/run`),
        (response) => response.statusCode === 403,
      );
      expect(expectProblem(refused, 403, 'plan_not_entitled')).toMatchObject({
        requiredPlan: 'pro',
      });
      expect(expectProblem(await call(owner, 'GET', `${BASE}/${builder.id}/run`), 403, 'plan_not_entitled')).toMatchObject({
        requiredPlan: 'growth',
      });
      // Still listed and readable: the merchant sees what an upgrade would bring back.
      ok(await call(owner, 'GET', `${BASE}/${funnel.id}`));
    } finally {
      await t.app.get(StoreService).setPlan(store.storeId, 'pro');
      await eventually(
        () => call(owner, 'GET', `${BASE}/${funnel.id}/run`),
        (response) => response.statusCode === 200,
      );
    }
  });

  it('a support session reads and runs saved reports and is refused every write with support_read_only', async () => {
    const saved = ok(await call(owner, 'POST', BASE, { name: 'Overview', definition: { report: 'overview' } }), 201);
    const support = await supportSession(t.app, store.storeId);
    ok(await call(support.token, 'GET', BASE));
    ok(await call(support.token, 'GET', `${BASE}/${saved.id}/run`));
    for (const [method, url, body] of [
      ['POST', BASE, { name: 'x', definition: { report: 'overview' } }],
      ['PATCH', `${BASE}/${saved.id}`, { name: 'y' }],
      ['DELETE', `${BASE}/${saved.id}`],
    ] as const) {
      expectProblem(await call(support.token, method, url, body), 403, 'support_read_only');
    }
    expect(ok(await call(owner, 'GET', `${BASE}/${saved.id}`)).name).toBe('Overview');
  });
});
