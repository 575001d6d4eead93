import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { DIMENSIONS, isTimeGrain } from '../../src/insights/definitions/dimensions.js';
import { REPORT_NAMES, REPORTS } from '../../src/insights/definitions/reports.js';
import { StoreService } from '../../src/stores/store.service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';

/**
 * Filters never lie: a filter value names a value of its dimension by id, slug or name (either
 * language, folded as search folds text), or it is refused with the closest values; a report says
 * which dimensions it can be filtered by and refuses the others, naming them.
 */

const FILTERABLE = DIMENSIONS.filter((dimension) => dimension.filterable && !isTimeGrain(dimension.name)).map(
  (dimension) => dimension.name,
);

/** An order: how it was paid, fulfilled and placed, and by whom. */
const ORDER = ['payment_method', 'fulfilment_type', 'shipping_method', 'customer_type', 'customer_kind', 'locale', 'tax_rate', 'customer'];
/** A line and the order it is in: what a product's sales are split and filtered by. */
const LINE_AND_ORDER = ['product', 'variant', 'category', 'brand', ...ORDER];

describe('Insights filters', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let phones: { id: string; slug: string };
  const get = (url: string) => adminCall(t.app, 'GET', url, owner);
  const build = (body: unknown) => adminCall(t.app, 'POST', '/admin/insights/builder/run', owner, body);
  const products = (...filters: string[]) =>
    get(`/admin/insights/reports/products?last=all${filters.map((filter) => `&filter[]=${encodeURIComponent(filter)}`).join('')}`);

  beforeAll(async () => {
    store = await t.store();
    await t.app.get(DemoStoreService).seed(store.storeId, { orders: 300, productCount: 40 });
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    [phones] = await t.db.rows(`select id, slug from categories where store_id = $1 and name_en = 'Smartphones'`, [store.storeId]);
  }, 120_000);

  it('a category is named by its id, its slug or its name in either language, case and Arabic letter forms folded', async () => {
    const byId = ok(await products(`category:${phones.id}`));
    expect(byId.totals.net_sales).toBeGreaterThan(0);
    const inCategory = await t.db.rows(`select id from products where category_id = $1`, [phones.id]);
    expect(byId.rows.map((row: { product: string }) => row.product).every((id: string) => inCategory.some((p) => p.id === id))).toBe(true);
    // ة written ه, a diacritic and a tatweel: the same name as search reads it
    for (const name of [phones.slug, 'Smartphones', 'SMARTPHONES', ' smartphones ', 'الهواتف الذكية', 'الهَواتف الذكيـه']) {
      const byName = ok(await products(`category:${name}`));
      expect({ name, totals: byName.totals, rows: byName.rows }).toEqual({ name, totals: byId.totals, rows: byId.rows });
    }
  });

  it('the values endpoint names a value given as it is (a shared link’s filter), and names none for a value it lacks', async () => {
    const values = (dimension: string, value: string) =>
      get(`/admin/insights/dimensions/${dimension}/values?value=${encodeURIComponent(value)}`);
    expect(ok(await values('category', phones.id))).toEqual({
      items: [{ value: phones.id, label_en: 'Smartphones', label_ar: 'الهواتف الذكية' }],
      nextCursor: null,
    });
    expect(ok(await values('payment_method', 'card')).items).toEqual([expect.objectContaining({ value: 'card', label_en: 'Card' })]);
    // A name is no value; nor is another store's id.
    for (const value of ['Smartphones', phones.slug, randomUUID(), 'not-a-uuid']) {
      expect(ok(await values('category', value)), value).toEqual({ items: [], nextCursor: null });
    }
    const other = await t.store();
    await t.app.get(DemoStoreService).seed(other.storeId, { orders: 20, productCount: 10 });
    const [theirs] = await t.db.rows(`select id from categories where store_id = $1 limit 1`, [other.storeId]);
    expect(ok(await values('category', theirs.id)).items).toEqual([]);
  });

  it('a value that names nothing is refused with the closest values, never answered with zeros', async () => {
    const body = expectProblem(await products('category:Smart phones'), 400, 'unknown_dimension_value');
    expect(body).toMatchObject({ dimension: 'category', value: 'Smart phones' });
    expect(body.message_en).toContain('“Smart phones”');
    expect(body.message_ar).toMatch(ARABIC);
    expect(body.suggestion).toMatchObject({ code: 'closest_values', dimension: 'category' });
    expect(body.suggestion.message_ar).toMatch(ARABIC);
    expect(body.suggestion.values[0]).toEqual({ value: phones.id, label_en: 'Smartphones', label_ar: 'الهواتف الذكية' });
    expect(body.suggestion.message_en).toContain('Smartphones');
    // Values whose names hold it come first (what the values endpoint finds for it), then the most alike.
    const part = expectProblem(await products('category:smartphone'), 400, 'unknown_dimension_value');
    expect(part.suggestion.values[0].value).toBe(phones.id);
    expect(part.suggestion.values.length).toBeLessThanOrEqual(5);
    // A fixed list too, in the language it was typed in.
    const method = expectProblem(
      await get('/admin/insights/reports/payments?filter[]=payment_method:بطاقة%20ائتمان'),
      400,
      'unknown_dimension_value',
    );
    expect(method).toMatchObject({ dimension: 'payment_method', value: 'بطاقة ائتمان' });
    expect(method.suggestion.values.length).toBeGreaterThan(0);
    // One bad value among good ones is refused as well: OR'd values must all name something.
    expectProblem(await products(`category:${phones.id}`, 'category:Smart phones'), 400, 'unknown_dimension_value');
  });

  it('as many values as a filter takes, all but one naming nothing: refused once, naming the first, with its closest values', async () => {
    const values = ['Smartphones', ...Array.from({ length: 199 }, (_, i) => `Nothing by this name ${i} ${'x'.repeat(150)}`)];
    const body = expectProblem(
      await build({ measures: ['net_sales'], filters: [{ dimension: 'category', op: 'in', values }], last: 'all' }),
      400,
      'unknown_dimension_value',
    );
    expect(body).toMatchObject({ dimension: 'category', value: values[1] });
    expect(body.suggestion.values.length).toBeGreaterThan(0);
    const report = expectProblem(
      await products(...values.slice(0, 50).map((value) => `category:${value}`)),
      400,
      'unknown_dimension_value',
    );
    expect(report.value).toBe(values[1]);
  });

  it('a name several values share is refused with those values to choose from', async () => {
    const [first, second] = await t.db.rows(`select id, name_en from products where store_id = $1 order by id limit 2`, [store.storeId]);
    await t.db.query(`update products set name_en = $2 where id = $1`, [second.id, first.name_en]);
    try {
      const body = expectProblem(await products(`product:${first.name_en.toLowerCase()}`), 400, 'unknown_dimension_value');
      expect(body).toMatchObject({ dimension: 'product', value: first.name_en.toLowerCase() });
      expect(body.message_en).toContain('2 values of Product');
      expect(body.suggestion.values.map((value: { value: string }) => value.value).sort()).toEqual([first.id, second.id].sort());
      ok(await products(`product:${first.id}`));
    } finally {
      await t.db.query(`update products set name_en = $2 where id = $1`, [second.id, second.name_en]);
    }
  });

  it('the builder’s in and not_in resolve names the same way, for every kind of dimension', async () => {
    const run = async (dimension: string, op: 'in' | 'not_in', values: string[], measures = ['net_sales', 'orders']) =>
      ok(await build({ measures, filters: [{ dimension, op, values }], last: 'all' })).totals;
    const [variant] = await t.db.rows(
      `select v.id, v.sku from product_variants v
       where v.store_id = $1 and exists (select 1 from insights_products_daily r where r.variant_id = v.id and r.units_sold > 0)
       order by v.sku limit 1`,
      [store.storeId],
    );
    const [customer] = await t.db.rows(
      `select c.id::text, c.email from insights_customers c join insights_customer_totals t on t.customer_id = c.id
       where c.store_id = $1 and t.orders > 0 order by c.id limit 1`,
      [store.storeId],
    );
    const [method] = await t.db.rows(
      `select m.code, m.name_en, m.name_ar from shipping_methods m
       where m.store_id = $1 and exists (select 1 from orders o where o.store_id = m.store_id and o.shipping_method_code = m.code)
       order by m.code limit 1`,
      [store.storeId],
    );
    const cases: [string, string, string[]][] = [
      ['category', phones.id, ['Smartphones', 'الهواتف الذكيه']],
      ['variant', variant.id, [variant.sku]],
      ['customer', customer.id, [customer.email.toUpperCase()]],
      ['payment_method', 'cash_on_delivery', ['Cash on delivery', 'الدفع عند الاستلام']],
      ['shipping_method', method.code, [method.name_en, method.name_ar]],
      ['tax_rate', '1500', ['15%', '١٥٪']],
    ];
    for (const [dimension, value, names] of cases) {
      const measures = dimension === 'variant' ? ['net_sales', 'units_sold'] : ['net_sales', 'orders'];
      for (const op of ['in', 'not_in'] as const) {
        const expected = await run(dimension, op, [value], measures);
        for (const name of names) expect(await run(dimension, op, [name], measures), `${dimension} ${op} ${name}`).toEqual(expected);
      }
      expect((await run(dimension, 'in', [value], measures))[measures[1]], dimension).toBeGreaterThan(0);
    }
    // Resolved before anything else is checked: both checkout kinds, by name, are no filter, and go with a split by language.
    const everyone = { dimension: 'customer_kind', op: 'in', values: ['Guest', 'Registered shopper'] };
    expect(ok(await build({ measures: ['customers'], dimensions: ['locale'], filters: [everyone], last: 30 })).rows.length).toBeGreaterThan(
      0,
    );
    const refused = expectProblem(
      await build({ measures: ['net_sales'], filters: [{ dimension: 'category', op: 'not_in', values: ['Smart phones'] }], last: 'all' }),
      400,
      'unknown_dimension_value',
    );
    expect(refused.suggestion.values[0].value).toBe(phones.id);
  });

  it('every report says which dimensions it can be filtered by, takes those and refuses the others by name', async () => {
    const sample = new Map<string, string>();
    for (const dimension of FILTERABLE) {
      const { items } = ok(await get(`/admin/insights/dimensions/${dimension}/values?limit=1`));
      sample.set(dimension, items[0]?.value ?? '0');
    }
    const offered: Record<string, string[]> = {};
    for (const report of REPORT_NAMES) {
      const { filterable } = ok(await get(`/admin/insights/reports/${report}?last=90`));
      offered[report] = filterable;
      for (const dimension of FILTERABLE) {
        const response = await get(
          `/admin/insights/reports/${report}?last=90&filter[]=${dimension}:${encodeURIComponent(sample.get(dimension)!)}`,
        );
        if (filterable.includes(dimension)) {
          ok(response);
          continue;
        }
        const body = expectProblem(response, 400, 'validation_failed');
        expect(body.errors, `${report} ${dimension}`).toEqual([
          expect.objectContaining({ field: 'filter[0]', code: 'notFilterable', message_ar: expect.stringMatching(ARABIC) }),
        ]);
        expect(body.errors[0].message_en).toContain(`${REPORTS[report].title.en} cannot be filtered by`);
        expect(body.errors[0].message_en).toContain(`(${dimension})`);
      }
    }
    expect(offered).toMatchObject({
      // customers counted from the orders themselves reach whatever an order does
      overview: ORDER,
      // a product's sales reach the orders they were in: how they were paid, fulfilled and placed, and by whom
      products: LINE_AND_ORDER,
      not_selling: ['product', 'category', 'brand'],
      cohorts: [],
      late_orders: ['fulfilment_type', 'shipping_method'],
      payments: ['payment_method'],
      funnel: [],
      searches: ['query'],
    });
    // The funnel and a tax rate: the report's own words, in both languages, not a generic line.
    const funnel = expectProblem(await get('/admin/insights/reports/funnel?filter[]=tax_rate:1500'), 400, 'validation_failed');
    expect(funnel.errors[0]).toMatchObject({
      field: 'filter[0]',
      message_en: 'Conversion funnel cannot be filtered by Tax rate (tax_rate). It cannot be filtered.',
      message_ar: 'لا يمكن تصفية «مسار التحويل» حسب نسبة الضريبة (tax_rate). لا يمكن تصفيته.',
    });
    // Beside a filter, the dimensions it can be taken with: the rollups count customers by one grouping at a time, the orders by any.
    expect(ok(await get('/admin/insights/reports/overview?filter[]=customer_kind:guest')).filterable).toEqual(offered.overview);
  });

  it('a filter reads its dimension’s area: offered and taken only with that area’s view permission', async () => {
    const member = async (permissions: string[]) => staffToken(t.app, await addStaff(t.app, store.storeId, 'custom', { permissions }));
    const salesOnly = await member(['insights.sales.view', 'insights.builder.use']);
    const overview = (token: string, filter = '') => adminCall(t.app, 'GET', `/admin/insights/reports/overview?last=90${filter}`, token);
    // New or returning, Arabic or English: what the overview is filtered by tells about customers.
    expect(ok(await overview(salesOnly)).filterable).toEqual([]);
    const refused = expectProblem(await overview(salesOnly, '&filter[]=customer_kind:guest'), 403, 'missing_permission');
    expect(refused.requiredPermission).toBe('insights.customers.view');
    const builder = (token: string, body: unknown) => adminCall(t.app, 'POST', '/admin/insights/builder/run', token, body);
    expect(ok(await builder(salesOnly, { measures: ['net_sales'], last: 30 })).filterable).not.toContain('payment_method');
    const both = await member(['insights.sales.view', 'insights.customers.view']);
    expect(ok(await overview(both)).filterable).toEqual(['customer_type', 'customer_kind', 'locale', 'customer']);
    ok(await overview(both, '&filter[]=customer_kind:guest'));
  });

  it('the builder refuses only a dimension a measure has no meaning with, naming both, and says what its answer can be filtered by', async () => {
    // A storefront session has no tax rate: refused with the dimensions sessions can take.
    const filtered = expectProblem(
      await build({ measures: ['net_sales', 'sessions'], filters: [{ dimension: 'tax_rate', op: 'in', values: ['1500'] }] }),
      400,
      'unsupported_combination',
    );
    expect(filtered).toMatchObject({ measure: 'sessions', dimensions: ['tax_rate'] });
    expect(filtered.message_en).toMatch(
      /^Sessions \(sessions\) cannot be split or filtered by Tax rate \(tax_rate\)\. It can be by: Hour \(hour\), Day \(day\)/,
    );
    expect(filtered.message_ar).toContain('نسبة الضريبة (tax_rate)');
    // An order's discount is the order's, not a product's.
    const split = expectProblem(await build({ measures: ['discounts'], dimensions: ['day', 'product'] }), 400, 'unsupported_combination');
    expect(split).toMatchObject({ measure: 'discounts', dimensions: ['product'] });
    expect(split.message_en).toContain('It can be by: Hour (hour), Day (day)');
    expect(split.message_en).toContain('Customer (customer)');

    const answer = ok(await build({ measures: ['net_sales'], dimensions: ['category'], last: 30 }));
    // Answered from the rollup, it can be filtered by whatever the records reach too.
    expect(answer.filterable).toEqual(LINE_AND_ORDER);
    expect(ok(await build({ measures: ['net_sales'], last: 30 })).filterable).toEqual(
      expect.arrayContaining(['product', 'category', 'payment_method', 'tax_rate', 'customer']),
    );
  });
});
