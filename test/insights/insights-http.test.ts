import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { StaffMembers } from '../../src/auth/staff/staff-members.service.js';
import { entitlementFor, PERMISSIONS, requiredPlan, STORE_PLANS } from '../../src/common/permissions.js';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { MEASURES } from '../../src/insights/definitions/measures.js';
import { DIMENSIONS } from '../../src/insights/definitions/dimensions.js';
import { REPORT_NAMES, reportPermission, REPORTS } from '../../src/insights/definitions/reports.js';
import { StoreService } from '../../src/stores/store.service.js';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';
import { foldAll, placeOrder } from './support.js';

const VIEW_PERMISSIONS = PERMISSIONS.filter((permission) => /^insights\.\w+\.view$/.test(permission));

describe('Insights over HTTP', () => {
  // Databases of their own: a fold takes every store's changes, and those of the suites beside this one (demo
  // stores of thousands of orders, imports) made its folds and its live instance's wait for minutes in CI.
  const t = useTestApp({}, { ownDatabase: true });
  let store: TestStore;
  let other: TestStore;
  let owner: string;
  const get = (token: string, url: string) => adminCall(t.app, 'GET', url, token);
  const build = (token: string, body: unknown) => adminCall(t.app, 'POST', '/admin/insights/builder/run', token, body);

  beforeAll(async () => {
    [store, other] = await Promise.all([t.store(), t.store()]);
    const demo = t.app.get(DemoStoreService);
    await demo.seed(store.storeId, { orders: 300, productCount: 40 });
    await demo.seed(other.storeId, { orders: 200, productCount: 30, seed: 7 });
    for (const { storeId } of [store, other]) await t.app.get(StoreService).setPlan(storeId, 'pro');
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
  }, 120_000);

  it('every report answers in the report shape, over the last 30 days by default', async () => {
    for (const report of REPORT_NAMES) {
      const body = ok(await get(owner, `/admin/insights/reports/${report}`));
      expect(Object.keys(body).sort(), report).toEqual(
        [
          'columns',
          'compareRange',
          'compareSeries',
          'compareTotals',
          'currency',
          'dataAsOf',
          'filterable',
          'sortable',
          'nextCursor',
          'range',
          'report',
          'rows',
          'series',
          'totals',
        ].sort(),
      );
      expect(body).toMatchObject({ report, currency: 'SAR', compareRange: null, range: { timezone: 'Asia/Riyadh', grain: 'day' } });
      for (const column of body.columns) expect(column.label_ar, `${report} ${column.name}`).toMatch(ARABIC);
    }
  });

  it('every report needs its area’s view permission; the other views do not open it', async () => {
    for (const report of REPORT_NAMES) {
      const required = reportPermission(report);
      const only = await staffToken(t.app, await addStaff(t.app, store.storeId, 'custom', { permissions: [required] }));
      ok(await get(only, `/admin/insights/reports/${report}`));
      const without = await staffToken(
        t.app,
        await addStaff(t.app, store.storeId, 'custom', {
          permissions: [...PERMISSIONS.filter((permission) => permission !== required)],
        }),
      );
      const body = expectProblem(await get(without, `/admin/insights/reports/${report}`), 403, 'missing_permission');
      expect(body.requiredPermission, report).toBe(required);
    }
  });

  it('every plan opens the areas it is entitled to and refuses the others with the plan that has them', async () => {
    const plan = await t.store();
    const token = await staffToken(t.app, await addStaff(t.app, plan.storeId, 'owner'));
    for (const name of STORE_PLANS) {
      await t.app.get(StoreService).setPlan(plan.storeId, name);
      for (const report of REPORT_NAMES) {
        const entitlement = entitlementFor(reportPermission(report))!;
        const needed = requiredPlan(entitlement);
        const response = await get(token, `/admin/insights/reports/${report}`);
        if (STORE_PLANS.indexOf(needed) <= STORE_PLANS.indexOf(name)) ok(response);
        else {
          const body = expectProblem(response, 403, 'plan_not_entitled');
          expect(body.requiredPlan, `${name} ${report}`).toBe(needed);
          expect(body.suggestion).toMatchObject({ code: 'upgrade_plan', plan: needed });
        }
      }
      const builder = await build(token, { measures: ['net_sales'], last: 30 });
      if (name === 'basic') expect(expectProblem(builder, 403, 'plan_not_entitled').requiredPlan).toBe('growth');
      else ok(builder);
      // Features of the plan: a year's range and compare come with growth.
      for (const query of ['last=120', 'last=all', 'compare=previous_period', 'from=2026-01-01&to=2026-06-30']) {
        const response = await get(token, `/admin/insights/reports/overview?${query}`);
        if (name === 'basic') expect(expectProblem(response, 403, 'plan_not_entitled').requiredPlan, query).toBe('growth');
        else ok(response);
      }
    }
  });

  it('the builder needs builder.use and the view permission of every area its measures and dimensions touch', async () => {
    const analyst = await staffToken(
      t.app,
      await addStaff(t.app, store.storeId, 'custom', { permissions: ['insights.builder.use', 'insights.sales.view'] }),
    );
    ok(await build(analyst, { measures: ['net_sales', 'orders'], dimensions: ['week', 'payment_method'].slice(0, 1), last: 90 }));
    const byCategory = await build(analyst, { measures: ['net_sales'], dimensions: ['category'], last: 90 });
    expect(expectProblem(byCategory, 403, 'missing_permission').requiredPermission).toBe('insights.products.view');
    const filtered = await build(analyst, {
      measures: ['net_sales'],
      filters: [{ dimension: 'brand', op: 'is_set', values: [] }],
      last: 90,
    });
    expect(expectProblem(filtered, 403, 'missing_permission').requiredPermission).toBe('insights.products.view');
    const viewer = await staffToken(t.app, await addStaff(t.app, store.storeId, 'viewer'));
    const refused = await build(viewer, { measures: ['net_sales'] });
    expect(expectProblem(refused, 403, 'missing_permission').requiredPermission).toBe('insights.builder.use');
  });

  it('a support session reads every entitled area and runs the builder, and changes nothing', async () => {
    const support = await supportSession(t.app, store.storeId);
    for (const report of REPORT_NAMES) ok(await get(support.token, `/admin/insights/reports/${report}`));
    ok(await build(support.token, { measures: ['orders'], dimensions: ['month'], last: 'all' }));
    ok(await get(support.token, '/admin/insights/status'));
  });

  it('a permission taken away closes its reports on the very next request', async () => {
    const member = await addStaff(t.app, store.storeId, 'analyst');
    const token = await staffToken(t.app, member);
    ok(await get(token, '/admin/insights/reports/payments'));
    await t.app.get(StaffMembers).setRole(
      member.id,
      'custom',
      VIEW_PERMISSIONS.filter((permission) => permission !== 'insights.finance.view'),
    );
    expect(expectProblem(await get(token, '/admin/insights/reports/payments'), 403, 'missing_permission').requiredPermission).toBe(
      'insights.finance.view',
    );
    ok(await get(token, '/admin/insights/reports/overview'));
  });

  it('staff of one store never see another store’s figures or dimension values', async () => {
    const [mine, theirs] = await Promise.all(
      [store, other].map(async ({ storeId }) => {
        const token = await staffToken(t.app, await addStaff(t.app, storeId, 'owner'));
        return ok(await get(token, '/admin/insights/reports/overview?last=all')).totals;
      }),
    );
    const expected = async (storeId: string) =>
      (await t.db.rows(`select count(*)::int as orders from orders where store_id = $1`, [storeId]))[0].orders;
    expect(mine.orders).toBe(await expected(store.storeId));
    expect(theirs.orders).toBe(await expected(other.storeId));

    const [foreign] = await t.db.rows(`select id, name_en, name_ar from products where store_id = $1 order by name_en limit 1`, [
      other.storeId,
    ]);
    // Another store's product is no value of this store's: refused, never answered with zeros, and never suggested.
    const filtered = expectProblem(
      await get(owner, `/admin/insights/reports/products?last=all&filter[]=product:${foreign.id}`),
      400,
      'unknown_dimension_value',
    );
    expect(filtered).toMatchObject({ dimension: 'product', value: foreign.id });
    expect(filtered.suggestion.values.map((item: { value: string }) => item.value)).not.toContain(foreign.id);
    const exists = await t.db.rows(`select 1 from products where store_id = $1 and name_en = $2`, [store.storeId, foreign.name_en]);
    const values = ok(await get(owner, `/admin/insights/dimensions/product/values?q=${encodeURIComponent(foreign.name_ar)}&limit=100`));
    expect(values.items.map((item: { value: string }) => item.value)).not.toContain(foreign.id);
    if (exists.length === 0) expect(values.items).toEqual([]);
  });

  it('measures and dimensions list every name the reports and the builder accept, in both languages', async () => {
    const measures = ok(await get(owner, '/admin/insights/measures')).items;
    const names = measures.map((item: { name: string }) => item.name);
    for (const report of Object.values(REPORTS)) {
      for (const name of [...report.totals, ...report.series, ...(report.table.kind === 'split' ? report.table.measures : [])]) {
        expect(names, `${report.name} ${name}`).toContain(name);
      }
    }
    for (const item of measures) {
      expect(item.label_ar, item.name).toMatch(ARABIC);
      expect(item.description_ar, item.name).toMatch(ARABIC);
      expect(item.description_en.length, item.name).toBeGreaterThan(10);
    }
    expect(measures.find((item: { name: string }) => item.name === 'net_sales')).toMatchObject({
      area: 'sales',
      type: 'money',
      builder: true,
      dimensions: expect.arrayContaining(['day', 'hour', 'product', 'category', 'payment_method', 'customer']),
    });
    expect(names).toEqual(expect.arrayContaining(MEASURES.map((measure) => measure.name)));
    // The README's table of measure definitions keeps up with the declarations.
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const measure of MEASURES)
      expect(readme, measure.name).toContain(`| \`${measure.name}\` | ${measure.area} | ${measure.description.en} |`);
    const dimensions = ok(await get(owner, '/admin/insights/dimensions')).items;
    expect(dimensions.map((item: { name: string }) => item.name)).toEqual(DIMENSIONS.map((dimension) => dimension.name));
    expect(dimensions.find((item: { name: string }) => item.name === 'tax_rate')).toMatchObject({
      filterable: true,
      operators: expect.arrayContaining(['between', 'gt', 'in']),
    });
  });

  it('every measure says whether a rise is good news, in GET /measures and in every report’s and the builder’s columns', async () => {
    const measures: { name: string; type: string; direction: string }[] = ok(await get(owner, '/admin/insights/measures')).items;
    const direction = new Map(measures.map((item) => [item.name, item.direction]));
    for (const item of measures) expect(['higher_is_better', 'lower_is_better', 'neutral'], item.name).toContain(item.direction);
    expect(
      Object.fromEntries(
        ['net_sales', 'returns', 'return_rate', 'taxes', 'conversion_rate', 'late_by'].map((name) => [name, direction.get(name)]),
      ),
    ).toEqual({
      net_sales: 'higher_is_better',
      returns: 'lower_is_better',
      return_rate: 'lower_is_better',
      taxes: 'neutral',
      conversion_rate: 'higher_is_better',
      late_by: 'lower_is_better',
    });
    // a longer time is worse news, whichever the duration
    for (const item of measures.filter((measure) => measure.type === 'duration')) expect(item.direction, item.name).toBe('lower_is_better');
    const columnsOf = (body: Record<string, any>): { name: string; kind: string; direction?: string }[] => body.columns;
    for (const report of REPORT_NAMES) {
      for (const column of columnsOf(ok(await get(owner, `/admin/insights/reports/${report}`)))) {
        expect(column.direction, `${report} ${column.name}`).toBe(column.kind === 'measure' ? direction.get(column.name) : undefined);
      }
    }
    const built = columnsOf(ok(await build(owner, { measures: ['net_sales', 'returns'], dimensions: ['month'], last: 90 })));
    expect(built.map((column) => [column.name, column.direction])).toEqual([
      ['month', undefined],
      ['net_sales', 'higher_is_better'],
      ['returns', 'lower_is_better'],
    ]);
  });

  it('cohorts: the whole triangle of the range in one answer, compared with months that never overlap it', async () => {
    for (const range of ['last=366', 'last=all']) {
      const whole = ok(await get(owner, `/admin/insights/reports/cohorts?${range}`));
      expect(whole.nextCursor, range).toBeNull();
      // every cohort with every month since, up to the range's end
      const lastMonth = whole.range.to.slice(0, 7);
      const cohorts = [...new Set(whole.rows.map((row: { cohort: string }) => row.cohort))] as string[];
      const months = (cohort: string) => {
        const [year, month] = cohort.split('-').map(Number);
        const [toYear, toMonth] = lastMonth.split('-').map(Number);
        return (toYear - year) * 12 + toMonth - month + 1;
      };
      expect(cohorts.length, range).toBeGreaterThanOrEqual(12);
      expect(whole.rows.length, range).toBe(cohorts.reduce((sum, cohort) => sum + months(cohort), 0));
      expect(whole.rows.length, range).toBeGreaterThan(20);
      // a limit still pages it, a page after another, to the same rows
      const paged: unknown[] = [];
      for (let cursor = ''; ;) {
        const page = ok(await get(owner, `/admin/insights/reports/cohorts?${range}&limit=50${cursor}`));
        paged.push(...page.rows);
        if (!page.nextCursor) break;
        cursor = `&cursor=${page.nextCursor}`;
      }
      expect(paged).toEqual(whole.rows);
    }
    // Past months: four whole months compared with the four before them, a year before them, never overlapping.
    const previous = ok(await get(owner, '/admin/insights/reports/cohorts?from=2025-08-30&to=2025-11-27&compare=previous_period'));
    expect([previous.range, previous.compareRange]).toMatchObject([
      { from: '2025-08-01', to: '2025-11-30' },
      { from: '2025-04-01', to: '2025-07-31' },
    ]);
    const yearBefore = ok(await get(owner, '/admin/insights/reports/cohorts?from=2025-08-30&to=2025-11-27&compare=previous_year'));
    expect(yearBefore.compareRange).toMatchObject({ from: '2024-08-01', to: '2024-11-30' });
    const thirteen = expectProblem(
      await get(owner, '/admin/insights/reports/cohorts?from=2024-11-15&to=2025-11-14&compare=previous_year'),
      400,
      'invalid_range',
    );
    expect(thirteen.message_en).toContain('13 months');
    expect(thirteen.message_ar).toMatch(ARABIC);
  });

  it('dimension values are searched in Arabic or English, letter forms folded, a page at a time', async () => {
    const [product] = await t.db.rows(`select id, name_en, name_ar from products where store_id = $1 order by name_en limit 1`, [
      store.storeId,
    ]);
    const arabic = ok(await get(owner, `/admin/insights/dimensions/product/values?q=${encodeURIComponent(product.name_ar.split(' ')[0])}`));
    expect(arabic.items).toContainEqual({ value: product.id, label_en: product.name_en, label_ar: product.name_ar });
    const english = ok(
      await get(owner, `/admin/insights/dimensions/product/values?q=${encodeURIComponent(product.name_en.toUpperCase())}`),
    );
    expect(english.items.map((item: { value: string }) => item.value)).toContain(product.id);

    const first = ok(await get(owner, '/admin/insights/dimensions/product/values?limit=10'));
    expect(first.items).toHaveLength(10);
    const second = ok(await get(owner, `/admin/insights/dimensions/product/values?limit=10&cursor=${first.nextCursor}`));
    const seen = [...first.items, ...second.items].map((item: { value: string }) => item.value);
    expect(new Set(seen).size).toBe(seen.length);

    const methods = ok(await get(owner, `/admin/insights/dimensions/payment_method/values?q=${encodeURIComponent('بطاقه')}`));
    expect(methods.items).toEqual([{ value: 'card', label_en: 'Card', label_ar: 'بطاقة' }]);
    expectProblem(await get(owner, '/admin/insights/dimensions/colour/values'), 404, 'unknown_dimension');
    expectProblem(await get(owner, '/admin/insights/dimensions/day/values'), 404, 'unknown_dimension');
  });

  it('names the measures each report’s table sorts by, and refuses any other sort', async () => {
    const sortable = async (report: string) => ok(await get(owner, `/admin/insights/reports/${report}?last=30`)).sortable;
    expect(await sortable('not_selling')).toEqual(['days_since_last_sale', 'stock']);
    expect(await sortable('late_orders')).toEqual(['late_by']);
    expect(await sortable('cohorts')).toEqual([]);
    const products = ok(await get(owner, '/admin/insights/reports/products?last=30'));
    expect(products.sortable).toEqual(
      products.columns.filter((column: { kind: string }) => column.kind === 'measure').map((column: { name: string }) => column.name),
    );
    expectProblem(await get(owner, '/admin/insights/reports/not_selling?last=30&sort=-units_sold'), 400, 'validation_failed');
  });

  it('refuses what it cannot answer with the dashboard’s codes, never a 5xx', async () => {
    const cases: [string, number, string][] = [
      ['/admin/insights/reports/overview?last=0', 400, 'invalid_range'],
      ['/admin/insights/reports/overview?last=367', 400, 'invalid_range'],
      ['/admin/insights/reports/overview?last=week', 400, 'invalid_range'],
      ['/admin/insights/reports/overview?from=2026-05-02&to=2026-05-01', 400, 'invalid_range'],
      ['/admin/insights/reports/overview?from=2025-01-01&to=2026-06-01', 400, 'invalid_range'],
      ['/admin/insights/reports/overview?from=2026-02-30&to=2026-03-01', 400, 'invalid_range'],
      ['/admin/insights/reports/overview?last=30&from=2026-01-01&to=2026-01-02', 400, 'invalid_range'],
      ['/admin/insights/reports/overview?last=30&grain=hour', 400, 'invalid_range'],
      ['/admin/insights/reports/overview?grain=fortnight', 400, 'validation_failed'],
      ['/admin/insights/reports/overview?colour=red', 400, 'validation_failed'],
      ['/admin/insights/reports/products?sort=-bananas', 400, 'unknown_measure'],
      ['/admin/insights/reports/products?sort=-shipping', 400, 'validation_failed'],
      ['/admin/insights/reports/products?filter[]=colour:red', 400, 'unknown_dimension'],
      ['/admin/insights/reports/products?filter[]=nonsense', 400, 'validation_failed'],
      ['/admin/insights/reports/products?cursor=not-a-cursor', 400, 'validation_failed'],
      ['/admin/insights/reports/sales', 404, 'not_found'],
    ];
    for (const [url, status, code] of cases) expectProblem(await get(owner, url), status, code as 'not_found');

    const bodies: [unknown, number, string][] = [
      [{ measures: ['net_sales'], dimensions: ['day', 'product', 'payment_method', 'locale'] }, 400, 'too_many_dimensions'],
      [{ measures: ['bananas'] }, 400, 'unknown_measure'],
      [{ measures: ['net_sales'], dimensions: ['colour'] }, 400, 'unknown_dimension'],
      [{ measures: ['net_sales'], dimensions: ['day', 'week'] }, 400, 'validation_failed'],
      [{ measures: ['net_sales'], filters: [{ dimension: 'tax_rate', op: 'between', values: ['1'] }] }, 400, 'validation_failed'],
      [{ measures: ['net_sales'], filters: [{ dimension: 'tax_rate', op: 'gt', values: ['lots'] }] }, 400, 'validation_failed'],
      [{ measures: ['net_sales'], filters: [{ dimension: 'product', op: 'gt', values: ['1'] }] }, 400, 'validation_failed'],
      [{ measures: ['conversion_rate'], dimensions: ['tax_rate'] }, 400, 'unsupported_combination'],
      [{ measures: [] }, 400, 'validation_failed'],
      [{ measures: ['net_sales'], last: 'yesterday' }, 400, 'validation_failed'],
      [{ measures: ['net_sales'], last: 400 }, 400, 'invalid_range'],
      [{ measures: ['net_sales'], sort: '-orders' }, 400, 'validation_failed'],
      [{ measures: ['net_sales'], extra: true }, 400, 'validation_failed'],
    ];
    for (const [body, status, code] of bodies) expectProblem(await build(owner, body), status, code as 'not_found');
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/admin/insights/builder/run',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      payload: '{"measures":',
    });
    expectProblem(malformed, 400, 'malformed_body');
  });

  it('the builder refuses more than 5,000 rows from a count, with the export that gives them all', async () => {
    // 6,000 days × variants of sales in the rollup: more rows than the builder answers.
    await t.db.query(
      `insert into insights_products_daily (store_id, day, variant_id, product_id, category_id, brand_id, units_sold, gross_sales)
       select $1, current_date - (i % 300), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 1, 100
       from generate_series(1, 6000) as i`,
      [other.storeId],
    );
    const token = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    const query = { measures: ['units_sold'], dimensions: ['day', 'variant'], last: 366 };
    const body = expectProblem(await build(token, query), 422, 'over_row_limit');
    expect(body.rowCount).toBeGreaterThan(6000);
    expect(body.suggestion).toMatchObject({ code: 'export', export: { source: { builder: query }, format: 'csv' } });
    expect(body.suggestion.message_ar).toMatch(ARABIC);
    // A top N of the same query is an answer, not a truncation.
    const top = ok(await build(token, { ...query, sort: '-units_sold', limit: 25 }));
    expect(top.rows).toHaveLength(25);
    expect(top.rowCount).toBe(25);
    // Not split at all, a year of hourly search rows (over 5,000) is one row of totals: answered, not refused.
    const searched = await t.store();
    await t.app.get(StoreService).setPlan(searched.storeId, 'pro');
    await t.db.query(
      `insert into insights_searches_hourly (store_id, hour, searches)
       select $1, date_trunc('hour', localtimestamp) - make_interval(hours => i), 1 from generate_series(1, 6000) as i`,
      [searched.storeId],
    );
    const searchedToken = await staffToken(t.app, await addStaff(t.app, searched.storeId, 'owner'));
    const totals = ok(await build(searchedToken, { measures: ['searches'], last: 366 }));
    expect(totals.rowCount).toBe(1);
    expect(totals.totals.searches).toBe(6000);
  });

  it('top customers, found through what each has bought of all time, are those of adding every customer up', async () => {
    const big = await t.store();
    await t.app.get(DemoStoreService).seed(big.storeId, { orders: 1500, productCount: 20, seed: 11 });
    await t.app.get(StoreService).setPlan(big.storeId, 'pro');
    const token = await staffToken(t.app, await addStaff(t.app, big.storeId, 'owner'));
    const customers = (await t.db.rows(`select count(distinct lower(email))::int as n from orders where store_id = $1`, [big.storeId]))[0]
      .n;
    expect(customers).toBeGreaterThan(600); // more than one batch of candidates
    for (const sort of ['net_sales', 'orders']) {
      // the builder adds every customer up; the report stops as soon as no customer left can make its page
      const everyone = ok(await build(token, { measures: ['net_sales', 'orders'], dimensions: ['customer'], last: 366, sort: `-${sort}` }));
      const pages: Record<string, unknown>[] = [];
      let cursor = '';
      for (let page = 0; page < 3; page++) {
        const body = ok(await get(token, `/admin/insights/reports/top_customers?last=366&sort=-${sort}&limit=100${cursor}`));
        pages.push(...body.rows);
        cursor = `&cursor=${body.nextCursor}`;
      }
      const pick = (row: Record<string, any>) => [row.customer, row.net_sales, row.orders];
      expect(pages.map(pick), sort).toEqual(everyone.rows.slice(0, 300).map(pick));
    }
  }, 90_000); // a demo store of 1,500 orders seeded, then every customer added up twice

  it('status reports how far behind the records the figures are, and the sources they hold', async () => {
    await foldAll(t.app);
    const fresh = ok(await get(owner, '/admin/insights/status'));
    expect(fresh).toMatchObject({ lagSeconds: 0, timezone: 'Asia/Riyadh', currency: 'SAR' });
    const orders = (await t.db.rows(`select count(*)::int as n from orders where store_id = $1`, [store.storeId]))[0].n;
    expect(fresh.sources.find((source: { name: string }) => source.name === 'orders')).toMatchObject({ rows: orders });

    await placeOrder(t.db, await t.shopper(store), store, { quantities: [1] });
    // Nothing folds it in here: the figures fall behind the order as its age grows.
    const behind = await eventually(
      async () => ok(await get(owner, '/admin/insights/status')),
      (status) => status.lagSeconds >= 1 && Date.parse(status.dataAsOf) < Date.now() - 1000,
      10_000,
    );
    expect(behind.lagSeconds).toBeGreaterThanOrEqual(1);
    expect(Date.parse(behind.dataAsOf)).toBeLessThan(Date.now() - 1000);
    expect(behind.sources.find((source: { name: string }) => source.name === 'orders').rows).toBe(orders);
    await foldAll(t.app);
    const caught = ok(await get(owner, '/admin/insights/status'));
    expect(caught.lagSeconds).toBe(0);
    expect(caught.sources.find((source: { name: string }) => source.name === 'orders').rows).toBe(orders + 1);
  });

  describe('on an instance running its schedulers', () => {
    const live = useTestApp({}, { schedulers: true, ownDatabase: true });

    it('an order placed shows in the figures within seconds, without anyone folding by hand', async () => {
      const liveStore = await live.store({ seedCatalogue: true, productCount: 10 });
      await live.app.get(StoreService).setPlan(liveStore.storeId, 'pro');
      const token = await staffToken(live.app, await addStaff(live.app, liveStore.storeId, 'owner'));
      const placedAt = Date.now();
      const order = await placeOrder(live.db, await live.shopper(liveStore), liveStore, { quantities: [2], price: 2300 });
      // New orders settle for 5 seconds (an earlier order of the customer may still be committing), then the next fold takes them.
      const body = await eventually(
        async () => ok(await adminCall(live.app, 'GET', '/admin/insights/reports/overview?last=1', token)),
        (answer) => answer.totals.orders === 1,
        30_000,
      );
      expect(Date.now() - placedAt).toBeLessThan(30_000);
      expect(body.totals).toMatchObject({ orders: 1, gross_sales: 4000, taxes: order.tax });
    });
  });
});
