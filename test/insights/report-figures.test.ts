import { beforeAll, describe, expect, it } from 'vitest';
import type { AdminPrincipal } from '../../src/auth/principal.js';
import { ApiError } from '../../src/common/errors/api-error.js';
import { BuilderService, type BuilderQuery } from '../../src/insights/builder/builder.service.js';
import type { ReportName } from '../../src/insights/definitions/reports.js';
import { ReportService, type ReportParams, type ReportResponse } from '../../src/insights/reports/report.service.js';
import { RollupMaintainer } from '../../src/insights/rollups/rollup-maintainer.js';
import { useTestApp } from '../support/harness.js';
import { PREVIOUS, RANGE, readRecords, seedHistory, TIMEZONE, type Seeded } from './report-fixture.js';
import { NONE, Reference, type Conds, type Grain, type Window } from './report-reference.js';
import { foldAll, ownerPrincipal } from './support.js';

/**
 * Every built-in report and the builder, run on a small fixed history (report-fixture.ts), against
 * the same figures recomputed independently from the raw records (report-reference.ts). The
 * reference itself is pinned first by figures worked out by hand.
 */

type Row = Record<string, unknown>;
type Sort = { measure: string; descending: boolean };

const R: Window = RANGE;
const P: Window = PREVIOUS;
/** A month-aligned range for cohorts: August to October. */
const QUARTER: Window = { from: '2026-08-01', to: '2026-10-31' };

describe('Insights report figures, recomputed from the raw records', () => {
  const t = useTestApp();
  let seeded: Seeded;
  let ref: Reference;
  let reports: ReportService;
  let builder: BuilderService;
  let admin: AdminPrincipal;

  const principal = (plan: 'basic' | 'growth' | 'pro'): AdminPrincipal => ownerPrincipal(seeded.storeId, plan);
  const run = (name: ReportName, params: ReportParams) => reports.run(name, params, admin);
  const range = (window: Window) => ({ from: window.from, to: window.to });

  beforeAll(async () => {
    const store = await t.store();
    seeded = await seedHistory(t.db, store.storeId, store.keyId);
    await foldAll(t.app);
    ref = new Reference(await readRecords(t.db, store.storeId));
    reports = t.app.get(ReportService);
    builder = t.app.get(BuilderService);
    admin = principal('pro');
  }, 120_000);

  // --- comparing ---

  const measuresOf = (values: Row, dimensions: string[] = []) =>
    Object.keys(values).filter((key) => key !== 'period' && key !== 'labels' && !dimensions.includes(key));

  /** Every figure the service answered, as the reference computes it. */
  function expectFigures(actual: Row | null, window: Window, conds: Conds = {}, extra: Row = {}): void {
    expect(actual).not.toBeNull();
    const expected = Object.fromEntries(
      measuresOf(actual!).map((name) => [name, name in extra ? extra[name] : ref.value(name, window, conds)]),
    );
    expect(actual).toEqual(expected);
  }

  /** One point per period, zero-filled, every measure the series has as the reference computes it (`omit` compared elsewhere). */
  function expectSeries(actual: Row[] | null, window: Window, grain: Grain, conds: Conds = {}, omit: string[] = []): void {
    expect(actual).not.toBeNull();
    const measures = measuresOf(actual![0] ?? {}).filter((name) => !omit.includes(name));
    const strip = (points: Row[]) =>
      points.map((point) => Object.fromEntries(Object.entries(point).filter(([key]) => !omit.includes(key))));
    expect(strip(actual!)).toEqual(ref.series(measures, window, grain, conds));
  }

  const rowKey = (dimensions: string[]) => (row: Row) => dimensions.map((name) => String(row[name])).join('\u0000');
  const byKey = (rows: Row[], dimensions: string[]) => [...rows].sort((a, b) => (rowKey(dimensions)(a) < rowKey(dimensions)(b) ? -1 : 1));
  const withoutLabels = (rows: Row[]) => rows.map(({ labels: _labels, ...row }) => row);

  /** Sorted values: nulls last either way. */
  function sortedValues(values: unknown[], descending: boolean): unknown[] {
    return [...values].sort((a, b) => {
      if (a === b) return 0;
      if (a === null) return 1;
      if (b === null) return -1;
      return (descending ? -1 : 1) * ((a as number) - (b as number));
    });
  }

  /** The same rows (whatever the order of ties), in the order of the sort measure. */
  function expectTable(actual: Row[], expected: Row[], dimensions: string[], sort?: Sort): void {
    const rows = withoutLabels(actual);
    expect(byKey(rows, dimensions)).toEqual(byKey(expected, dimensions));
    if (sort) {
      expect(rows.map((row) => row[sort.measure])).toEqual(
        sortedValues(
          expected.map((row) => row[sort.measure]),
          sort.descending,
        ),
      );
    }
  }

  async function allPages(name: ReportName, params: ReportParams): Promise<Row[]> {
    const pages: Row[][] = [];
    let cursor: string | undefined;
    do {
      const page = await run(name, { ...params, limit: 1, cursor });
      expect(page.rows.length).toBeLessThanOrEqual(1);
      pages.push(page.rows);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return pages.flat();
  }

  const is = (value: string) => (candidate: string) => candidate === value;

  function expectRangeDocs(response: ReportResponse, window: Window, grain: Grain, compare: Window | null): void {
    expect(response.range).toEqual({ from: window.from, to: window.to, timezone: TIMEZONE, grain });
    expect(response.compareRange).toEqual(compare ? { from: compare.from, to: compare.to, timezone: TIMEZONE, grain } : null);
    expect(response.currency).toBe('SAR');
  }

  // --- the reference, pinned by hand ---

  it('the reference computation agrees with figures worked out by hand', () => {
    // Main range 2026-09-25 … 2026-10-14: eleven orders placed (O2 at 00:30 on the 25th, O3 at 23:59 on the 14th;
    // not O11 at 23:59 on the 24th nor O13 at 00:30 on the 15th).
    // Gross, without tax: O2 20000 + 5000, O4 40000, O8 10000, O5 20000 (tax-exclusive), O6 10000 (5%, exclusive), O7 10000,
    // O10 5997 − 782 = 5215, O9 10000, O14 5000 + (3998 − 521) = 8477, O3 20000 + (5997 − 782) = 25215, O15 5000 = 168907.
    expect(ref.value('orders', R)).toBe(11);
    expect(ref.value('gross_sales', R)).toBe(168907);
    expect(ref.value('discounts', R)).toBe(0);
    // Returns on the refund's day: O2 one shirt 10000, O4 10000 + 10000, O8 cancelled 10000, O5 20000, O9 cancelled 10000,
    // O12 (placed in the previous period) 10000, O10 socks 1738 (one of three: 5215 / 3 rounded) + 3477 (the other two).
    expect(ref.value('returns', R)).toBe(85215);
    expect(ref.value('net_sales', R)).toBe(168907 - 85215);
    // Shipping without tax: 3913 (4500 incl.) ×2 + 2174 (2500 incl.) ×3 + 2500 (exclusive) = 16848, minus O8's 2174 (cancelled)
    // and O5's 2500 (refunded 2875 with its 375 tax).
    expect(ref.value('shipping', R)).toBe(16848 - 2174 - 2500);
    // Tax: charged 26862 (4337 + 6000 + 1826 + 3375 + 500 + 2087 + 782 + 1500 + 1597 + 4108 + 750), refunded 13483
    // (1500 ×4 + 1826 + 3000 + 375 + 1500 + 261 + 521).
    expect(ref.value('taxes_collected', R)).toBe(26862);
    expect(ref.value('taxes_refunded', R)).toBe(13483);
    expect(ref.value('taxes', R)).toBe(13379);
    // Total sales = what the range's orders charged (212617, tax included) minus what went back (103372: refunds, and O9's
    // 11500 that was never paid).
    expect(ref.value('total_sales', R)).toBe(83692 + 12174 + 13379);
    expect(ref.value('total_sales', R)).toBe(109245);
    expect(ref.value('average_order_value', R)).toBe(15355); // 168907 / 11
    expect(ref.value('units_sold', R)).toBe(24);
    expect(ref.value('units_returned', R)).toBe(11);
    // Customers: alice (twice, once as Alice@Example.com), bob, carol (twice), dave, erin, frank, henry, ivy, jack;
    // new: all but alice (first order in August), carol's second order and jack (first order on the 24th).
    expect(ref.value('customers', R)).toBe(9);
    expect(ref.value('new_customers', R)).toBe(7);
    expect(ref.value('returning_customers', R)).toBe(3);
    expect(ref.value('returning_customer_rate', R)).toBe(3 / 9);
    // The previous period: O12, O1, O11.
    expect(ref.value('orders', P)).toBe(3);
    expect(ref.value('gross_sales', P)).toBe(40000);
    expect(ref.value('returns', P)).toBe(0);
    expect(ref.value('shipping', P)).toBe(4348);
    expect(ref.value('taxes', P)).toBe(6652);
    expect(ref.value('total_sales', P)).toBe(51000);
    expect(ref.value('customers', P)).toBe(3);
    expect(ref.value('new_customers', P)).toBe(2);
    // Fulfilment: shipped O11 (11h01), O2 (11h30), O4 (23h), O5 (19h); due in the range and not cancelled: O11, O2, O4, O5,
    // O6, O7, O10, O15; late: O2 (delivered 9h30 after its promise) and O6 (ready 3h after).
    expect(ref.value('shipped_orders', R)).toBe(4);
    expect(ref.value('average_time_to_ship', R)).toBe((39660 + 41400 + 82800 + 68400) / 4);
    expect(ref.value('promised_orders', R)).toBe(8);
    expect(ref.value('late_orders', R)).toBe(2);
    // Payments: refunds in the range 11500 ×4 (incl. O12's) + 14000 (cancellation) + 25875 + 1999 + 3998; one declined card.
    expect(ref.value('refunded_payments', R)).toBe(8);
    expect(ref.value('refunded_amount', R)).toBe(11500 * 4 + 14000 + 25875 + 1999 + 3998);
    expect(ref.value('voided_amount', R)).toBe(11500);
    expect(ref.value('failed_amount', R)).toBe(9000);
    // Searches of the range: shirtt (0 results), shirt ×2, umbrella, قميص, gift card (0), shoe; followed by an add within
    // 30 minutes: shirtt, shirt ×2, shoe (umbrella's add came 31 minutes later); by an order: shirtt, shirt (S2), shoe.
    expect(ref.value('searches', R)).toBe(7);
    expect(ref.value('zero_result_searches', R)).toBe(2);
    expect(ref.value('searches_followed_by_add', R)).toBe(4);
    expect(ref.value('searches_followed_by_order', R)).toBe(3);
    // Sessions started in the range: S2…S7 and S9 (S1 started at 23:50 the day before); ordered: S2, S6, S9.
    expect(ref.value('sessions', R)).toBe(7);
    expect(ref.value('sessions_with_order', R)).toBe(3);
  });

  // --- sales ---

  it('overview: headline totals, compare totals and the daily series (compare aligned by position)', async () => {
    const response = await run('overview', { ...range(R), compare: 'previous_period', grain: 'day' });
    expectRangeDocs(response, R, 'day', P);
    for (const headline of ['gross_sales', 'discounts', 'returns', 'net_sales', 'shipping', 'taxes', 'total_sales', 'orders']) {
      expect(response.totals).toHaveProperty(headline);
    }
    for (const headline of ['average_order_value', 'customers', 'returning_customer_rate'])
      expect(response.totals).toHaveProperty(headline);
    expect(response.totals).toMatchObject({
      gross_sales: 168907,
      returns: 85215,
      net_sales: 83692,
      taxes: 13379,
      total_sales: 109245,
      orders: 11,
    });
    expectFigures(response.totals, R);
    expectFigures(response.compareTotals, P);
    expect(response.compareTotals).toMatchObject({ gross_sales: 40000, total_sales: 51000, orders: 3 });
    expect(response.series).toHaveLength(20);
    expect(response.compareSeries).toHaveLength(20);
    // average order value is compared on its own below
    expectSeries(response.series, R, 'day', {}, ['average_order_value']);
    expectSeries(response.compareSeries, P, 'day', {}, ['average_order_value']);
    // the order at 00:30 on the range's first day is in its first point, not in the compare range's last
    expect(response.series[0]).toMatchObject({ period: '2026-09-25', orders: 1, net_sales: 25000 });
    expect(response.compareSeries!.at(-1)).toMatchObject({ period: '2026-09-24', orders: 1, net_sales: 20000 });
    expect(response.series.at(-1)).toMatchObject({ period: '2026-10-14', orders: 1, net_sales: 25215 });
    expect(response.rows).toEqual([]);
  });

  it('overview: weekly (weeks from Sunday, the first and last clipped to the range) and monthly series', async () => {
    for (const grain of ['week', 'month'] as const) {
      const response = await run('overview', { ...range(R), compare: 'previous_period', grain });
      expectRangeDocs(response, R, grain, P);
      expectFigures(response.totals, R);
      expectFigures(response.compareTotals, P);
      expectSeries(response.series, R, grain, {}, ['average_order_value']);
      expectSeries(response.compareSeries, P, grain, {}, ['average_order_value']);
    }
    const weeks = await run('overview', { ...range(R), grain: 'week' });
    expect(weeks.series.map((point) => point.period)).toEqual(['2026-09-20', '2026-09-27', '2026-10-04', '2026-10-11']);
    const months = await run('overview', { ...range(R), grain: 'month' });
    expect(months.series.map((point) => point.period)).toEqual(['2026-09-01', '2026-10-01']);
  });

  it('overview: hourly series across local midnight (00:30 local is 21:30 UTC the day before)', async () => {
    const window = { from: '2026-09-24', to: '2026-09-25' };
    const response = await run('overview', { ...range(window), grain: 'hour' });
    expect(response.series).toHaveLength(48);
    expectFigures(response.totals, window);
    expectSeries(response.series, window, 'hour', {}, ['average_order_value']);
    expect(response.series.find((point) => point.period === '2026-09-24T23:00')).toMatchObject({ orders: 1 });
    expect(response.series.find((point) => point.period === '2026-09-25T00:00')).toMatchObject({ orders: 1 });
  });

  it('average order value of a period without orders is null, whether or not the period had refunds', async () => {
    // Read as: an average over no orders is undefined (like the average times of fulfilment, and as the service answers
    // itself for a day that had only refunds); "zero-filled" is for sums and counts.
    const days = await run('overview', { ...range(R), grain: 'day' });
    const aov = (points: Row[]) => points.map((point) => ({ period: point.period, average_order_value: point.average_order_value }));
    const expected = ref.series(['average_order_value'], R, 'day');
    expect(aov(days.series)).toEqual(expected);
  });

  // --- products ---

  it('products, variants, categories, brands: totals, series and tables', async () => {
    const cases: [ReportName, string][] = [
      ['products', 'product'],
      ['variants', 'variant'],
      ['categories', 'category'],
      ['brands', 'brand'],
    ];
    for (const [name, dimension] of cases) {
      const response = await run(name, { ...range(R), compare: 'previous_period', grain: 'week' });
      expectRangeDocs(response, R, 'week', P);
      expectFigures(response.totals, R);
      expectFigures(response.compareTotals, P);
      expectSeries(response.series, R, 'week');
      expectSeries(response.compareSeries, P, 'week');
      const measures = measuresOf(response.rows[0], [dimension]);
      expect(measures).toEqual(expect.arrayContaining(['net_sales', 'gross_sales', 'returns', 'units_sold', 'units_returned', 'orders']));
      expectTable(response.rows, ref.rows(measures, [dimension], R), [dimension], { measure: 'net_sales', descending: true });
    }
    // the product sold only at 00:30 local on the range's first day is in the range; the one sold at 00:30 after its end is not
    const products = await run('products', range(R));
    expect(products.rows.map((row) => row.product)).toContain(seeded.products.belt);
    expect(products.rows.map((row) => row.product)).not.toContain(seeded.products.gloves);
    expect(products.rows.find((row) => row.product === seeded.products.socks)?.labels).toEqual({
      product: { en: 'Socks', ar: 'Socks (ar)' },
    });
    // no category: one row of its own
    const categories = await run('categories', range(R));
    expect(categories.rows.map((row) => row.category)).toContain(NONE);
  });

  it('products: sorted by units sold either way, a page at a time', async () => {
    const measures = ['net_sales', 'gross_sales', 'returns', 'units_sold', 'units_returned', 'net_units', 'return_rate', 'orders'];
    const expected = ref.rows(measures, ['product'], R);
    for (const descending of [true, false]) {
      const sort = `${descending ? '-' : ''}units_sold`;
      const whole = await run('products', { ...range(R), sort, limit: 100 });
      expect(whole.nextCursor).toBeNull();
      expectTable(whole.rows, expected, ['product'], { measure: 'units_sold', descending });
      const first = await run('products', { ...range(R), sort, limit: 1 });
      expect(first.rows).toEqual(whole.rows.slice(0, 1));
      expect(first.nextCursor).not.toBeNull();
      const second = await run('products', { ...range(R), sort, limit: 1, cursor: first.nextCursor! });
      expect(second.rows).toEqual(whole.rows.slice(1, 2));
      expect(await allPages('products', { ...range(R), sort })).toEqual(whole.rows);
    }
  });

  it('products filtered by a category: only its lines, orders that contained them', async () => {
    const apparel = seeded.categories.apparel;
    const conds = { category: is(apparel) };
    const response = await run('products', { ...range(R), filters: [`category:${apparel}`], grain: 'day' });
    expectFigures(response.totals, R, conds);
    expectSeries(response.series, R, 'day', conds);
    const measures = measuresOf(response.rows[0], ['product']);
    expectTable(response.rows, ref.rows(measures, ['product'], R, conds), ['product'], { measure: 'net_sales', descending: true });
  });

  // O14 holds a Nomad tote and then Acme socks, both apparel. Read as: split by one product dimension and filtered by
  // another, the orders are those that contained a line of the row that passes the filter (the measure's description:
  // "split by product, the orders that contained it").
  it('brands filtered by a category: orders are those with a line of the brand in the category', async () => {
    const response = await run('brands', { ...range(R), filters: [`category:${seeded.categories.apparel}`] });
    const conds = { category: is(seeded.categories.apparel) };
    expectTable(response.rows, ref.rows(measuresOf(response.rows[0], ['brand']), ['brand'], R, conds), ['brand'], {
      measure: 'net_sales',
      descending: true,
    });
  });

  it('categories filtered by a brand: orders are those with a line of the category by the brand', async () => {
    const response = await run('categories', { ...range(R), filters: [`brand:${seeded.brands.acme}`] });
    const conds = { brand: is(seeded.brands.acme) };
    expectTable(response.rows, ref.rows(measuresOf(response.rows[0], ['category']), ['category'], R, conds), ['category'], {
      measure: 'net_sales',
      descending: true,
    });
  });

  it('not_selling: active products with stock and no sale in the range, with their last sale', async () => {
    const today = ref.localDay(new Date());
    const expected = ref.notSelling(R, today);
    // scarf (last sold 2026-09-10), gloves (sold only at 00:30 on 2026-10-15) and the umbrella (never sold)
    expect(expected.map((row) => row.product).sort()).toEqual(
      [seeded.products.scarf, seeded.products.gloves, seeded.products.umbrella].sort(),
    );
    const response = await run('not_selling', range(R));
    expect(response.totals).toEqual({ products_not_selling: 3, stock: 7 + 6 + 3 });
    expectTable(response.rows, expected, ['product']);
    expect(response.rows.find((row) => row.product === seeded.products.gloves)).toMatchObject({ last_sold_on: '2026-10-15' });
    // The umbrella was never sold: no last sale and no day count, said in words; it is the longest unsold.
    expect(response.rows.find((row) => row.product === seeded.products.umbrella)).toMatchObject({
      last_sold_on: null,
      days_since_last_sale: null,
      labels: { last_sold_on: { en: 'Never sold', ar: 'لم يُبع قط' } },
    });
    expect(response.rows.map((row) => row.product)).toEqual([seeded.products.umbrella, seeded.products.scarf, seeded.products.gloves]);
    const recentFirst = await run('not_selling', { ...range(R), sort: 'days_since_last_sale' });
    expect(recentFirst.rows.map((row) => row.product)).toEqual([seeded.products.gloves, seeded.products.scarf, seeded.products.umbrella]);
    const apparel = await run('not_selling', { ...range(R), filters: [`category:${seeded.categories.apparel}`] });
    expect(
      withoutLabels(apparel.rows)
        .map((row) => row.product)
        .sort(),
    ).toEqual([seeded.products.scarf, seeded.products.gloves].sort());
    expect(apparel.totals).toEqual({ products_not_selling: 2, stock: 7 + 6 });
    const byStock = await run('not_selling', { ...range(R), sort: 'stock' });
    expect(withoutLabels(byStock.rows).map((row) => row.stock)).toEqual([3, 6, 7]);
    expect(await allPages('not_selling', { ...range(R), sort: 'stock' })).toEqual(byStock.rows);
  });

  // --- customers ---

  it('customers: new and returning', async () => {
    const response = await run('customers', { ...range(R), compare: 'previous_period', grain: 'week' });
    expect(response.totals).toMatchObject({ customers: 9, new_customers: 7, returning_customers: 3 });
    expectFigures(response.totals, R);
    expectFigures(response.compareTotals, P);
    expectSeries(response.series, R, 'week');
    expectSeries(response.compareSeries, P, 'week');
    const daily = await run('customers', { ...range(R), grain: 'day' });
    expectSeries(daily.series, R, 'day');
    const measures = measuresOf(response.rows[0], ['customer_type']);
    expectTable(response.rows, ref.rows(measures, ['customer_type'], R), ['customer_type'], { measure: 'customers', descending: true });
    // carol's first and second order are both in the range: she is in both rows
    expect(withoutLabels(response.rows).find((row) => row.customer_type === 'new')).toMatchObject({ customers: 7 });
    expect(withoutLabels(response.rows).find((row) => row.customer_type === 'returning')).toMatchObject({ customers: 3 });
  });

  it('cohorts: by month of first order, over whole months', async () => {
    const response = await run('cohorts', { ...range(QUARTER), grain: 'month' });
    expectFigures(response.totals, QUARTER);
    expectSeries(response.series, QUARTER, 'month');
    const expected = ref.cohorts(QUARTER);
    expect(expected.map((row) => `${row.cohort}+${row.months_since}`)).toEqual([
      '2026-08-01+0',
      '2026-08-01+1',
      '2026-08-01+2',
      '2026-09-01+0',
      '2026-09-01+1',
      '2026-10-01+0',
    ]);
    expect(withoutLabels(response.rows)).toEqual(expected);
  });

  it('cohorts over a range that is not whole months cover the whole months it touches, and say so', async () => {
    // Cohorts are months: over 2026-09-25 … 2026-10-14 the report covers September and October (up to today at most),
    // its answer's range names them, and its figures are those of the whole months.
    const response = await run('cohorts', range(R));
    const months = { from: '2026-09-01', to: '2026-10-31' };
    expect(response.range).toMatchObject(months);
    expect(withoutLabels(response.rows)).toEqual(ref.cohorts(months));
  });

  it('top_customers: customers by net sales', async () => {
    const response = await run('top_customers', { ...range(R), compare: 'previous_period', grain: 'day' });
    expectFigures(response.totals, R);
    expectFigures(response.compareTotals, P);
    expectSeries(response.series, R, 'day');
    const measures = measuresOf(response.rows[0], ['customer']);
    const expected = ref.rows(measures, ['customer'], R);
    expectTable(response.rows, expected, ['customer'], { measure: 'net_sales', descending: true });
    // alice's two spellings are one customer; kate, with only a return in the range, is there with her negative net sales
    const alice = ref.records.customerIds.get('alice@example.com');
    expect(response.rows.find((row) => row.customer === alice)).toMatchObject({
      orders: 2,
      labels: { customer: { en: 'Alice Adams <alice@example.com>' } },
    });
    expect(response.rows.at(-1)).toMatchObject({ customer: ref.records.customerIds.get('kate@example.com'), orders: 0, net_sales: -10000 });
  });

  it('customer_groups: new, returning, registered, guest, by language', async () => {
    const response = await run('customer_groups', { ...range(R), compare: 'previous_period', grain: 'day' });
    expectFigures(response.totals, R);
    expectFigures(response.compareTotals, P);
    expectSeries(response.series, R, 'day');
    const groups: [string, string, string][] = [
      ['new', 'customer_type', 'new'],
      ['returning', 'customer_type', 'returning'],
      ['registered', 'customer_kind', 'registered'],
      ['guest', 'customer_kind', 'guest'],
      ['arabic', 'locale', 'ar'],
      ['english', 'locale', 'en'],
    ];
    const measures = ['customers', 'orders', 'net_sales', 'average_order_value'];
    const expected = groups.map(([group, dimension, value]) => ({
      group,
      ...Object.fromEntries(measures.map((measure) => [measure, ref.value(measure, R, { [dimension]: is(value) })])),
    }));
    // jack's order placed as a guest stays a guest checkout though he has an account now
    expect(expected.find((row) => row.group === 'registered')).toMatchObject({ customers: 5 });
    expect(withoutLabels(response.rows)).toEqual(expected);
    const sorted = await run('customer_groups', { ...range(R), sort: '-customers' });
    expectTable(sorted.rows, expected, ['group'], { measure: 'customers', descending: true });
  });

  // --- fulfilment ---

  it('fulfilment: times to ship, deliver and be ready, orders due and late', async () => {
    const response = await run('fulfilment', { ...range(R), compare: 'previous_period', grain: 'week' });
    expectFigures(response.totals, R);
    expectFigures(response.compareTotals, P);
    expectSeries(response.series, R, 'week');
    expectSeries(response.compareSeries, P, 'week');
    const dimensions = ['fulfilment_type', 'shipping_method'];
    const measures = measuresOf(response.rows[0], dimensions);
    expectTable(response.rows, ref.rows(measures, dimensions, R), dimensions, { measure: 'delivered_orders', descending: true });
    // 8 due: 2 fulfilled late, 1 still open past its promise (neither kept nor late yet), 5 kept
    expect(response.totals).toMatchObject({ promised_orders: 8, late_orders: 2, on_time_rate: 5 / 7 });
  });

  it('late_orders: delivered or ready after the promise, or still open past it', async () => {
    const before = new Date();
    const response = await run('late_orders', { ...range(R), grain: 'day' });
    const after = new Date();
    expectFigures(response.totals, R, {}, { open_past_promise: 1 });
    expectSeries(response.series, R, 'day');
    const expected = ref.lateOrders(R, after);
    // O2 delivered 9h30 late, O6 ready 3h late, O7 still open; O14 and O3 are open past a promise after the range
    expect(expected.map((row) => row.order).sort()).toEqual([seeded.orders.O2.id, seeded.orders.O6.id, seeded.orders.O7.id].sort());
    const rows = withoutLabels(response.rows);
    expect(rows.map((row) => row.order).sort()).toEqual(expected.map((row) => row.order).sort());
    for (const row of rows) {
      const { lateBy, open, ...fields } = expected.find((candidate) => candidate.order === row.order)!;
      const { late_by, ...rest } = row;
      // a pickup order's promise is to be ready for pickup: it is fulfilled (or late) when made ready, not when collected
      expect(rest).toEqual(fields);
      if (open) {
        expect(late_by).toBeGreaterThanOrEqual(lateBy(before) - 1);
        expect(late_by).toBeLessThanOrEqual(lateBy(after) + 1);
      } else {
        expect(late_by, `${row.order} late by`).toBe(lateBy(after));
      }
    }
    expect(rows.map((row) => row.order)).toEqual([seeded.orders.O7.id, seeded.orders.O2.id, seeded.orders.O6.id]);
    expect(rows.find((row) => row.order === seeded.orders.O2.id)).toMatchObject({ late_by: 34200 });
    // Each row's status is named in both languages, as the dashboard and the exports show it (O6 was collected since).
    const labelled = response.rows as { order: string; status: string; labels: Record<string, unknown> }[];
    expect(labelled.map((row) => [row.status, row.labels.status])).toEqual([
      ['unfulfilled', { en: 'Not yet fulfilled', ar: 'لم يُنفَّذ بعد' }],
      ['delivered', { en: 'Delivered', ar: 'تم التسليم' }],
      ['delivered', { en: 'Delivered', ar: 'تم التسليم' }],
    ]);
    const ascending = await run('late_orders', { ...range(R), sort: 'late_by' });
    expect(withoutLabels(ascending.rows).map((row) => row.order)).toEqual([seeded.orders.O6.id, seeded.orders.O2.id, seeded.orders.O7.id]);
  });

  it('late_orders filtered by fulfilment type', async () => {
    const delivery = { fulfilment_type: is('delivery') };
    const response = await run('late_orders', { ...range(R), filters: ['fulfilment_type:delivery'] });
    expectFigures(response.totals, R, delivery, { open_past_promise: 1 });
    expect(withoutLabels(response.rows).map((row) => row.order)).toEqual([seeded.orders.O7.id, seeded.orders.O2.id]);
  });

  // The late-orders table takes fulfilment_type, shipping_method and payment_method filters (its own error message names
  // them); its due/late totals are the orders' figures under the same filter.
  it('late_orders refuses a filter its figures cannot take, naming the ones it can', async () => {
    const error = await run('late_orders', { ...range(R), filters: ['payment_method:cash_on_delivery'] }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('VALIDATION_FAILED');
  });

  // --- finance ---

  it('payments: authorised, captured, refunded, voided, failed by method', async () => {
    const response = await run('payments', { ...range(R), compare: 'previous_period', grain: 'day' });
    expectFigures(response.totals, R);
    expectFigures(response.compareTotals, P);
    expectSeries(response.series, R, 'day');
    expectSeries(response.compareSeries, P, 'day');
    const measures = measuresOf(response.rows[0], ['payment_method']);
    expectTable(response.rows, ref.rows(measures, ['payment_method'], R), ['payment_method'], {
      measure: 'captured_amount',
      descending: true,
    });
    const cards = await run('payments', { ...range(R), filters: ['payment_method:card'], grain: 'month' });
    const card = { payment_method: is('card') };
    expectFigures(cards.totals, R, card);
    expectSeries(cards.series, R, 'month', card);
    expect(withoutLabels(cards.rows)).toEqual(ref.rows(measures, ['payment_method'], R, card));
    expect(cards.totals).toMatchObject({ failed_payments: 1, failed_amount: 9000, voided_payments: 0 });
  });

  it('tax: by period and rate (in that order unless sorted), filtered by payment method', async () => {
    const response = await run('tax', { ...range(R), compare: 'previous_period', grain: 'day' });
    expectFigures(response.totals, R);
    expectFigures(response.compareTotals, P);
    expectSeries(response.series, R, 'day');
    expectSeries(response.compareSeries, P, 'day');
    const dimensions = ['day', 'tax_rate'];
    expect(response.columns.slice(0, 2).map((column) => column.name)).toEqual(dimensions);
    const measures = measuresOf(response.rows[0], dimensions);
    expect(measures).toEqual(expect.arrayContaining(['taxable_sales', 'taxes_collected', 'taxes_refunded', 'taxes']));
    const rows = await run('tax', { ...range(R), grain: 'day', limit: 100 });
    expect(withoutLabels(rows.rows)).toEqual(byKey(ref.rows(measures, dimensions, R), dimensions));
    const byTaxes = await run('tax', { ...range(R), grain: 'day', limit: 100, sort: '-taxes' });
    expectTable(byTaxes.rows, ref.rows(measures, dimensions, R), dimensions, { measure: 'taxes', descending: true });
    expect(withoutLabels(rows.rows).filter((row) => row.tax_rate === '500')).toEqual([
      { tax_rate: '500', day: '2026-10-08', taxable_sales: 10000, taxes_collected: 500, taxes_refunded: 0, taxes: 500 },
    ]);
    const card = { payment_method: is('card') };
    const cards = await run('tax', { ...range(R), filters: ['payment_method:card'], grain: 'week', limit: 100 });
    expectFigures(cards.totals, R, card);
    expectSeries(cards.series, R, 'week', card);
    expect(withoutLabels(cards.rows)).toEqual(byKey(ref.rows(measures, ['week', 'tax_rate'], R, card), ['week', 'tax_rate']));
    expect(await allPages('tax', { ...range(R), filters: ['payment_method:card'], grain: 'week', sort: 'taxes' })).toEqual(
      (await run('tax', { ...range(R), filters: ['payment_method:card'], grain: 'week', sort: 'taxes', limit: 100 })).rows,
    );
  });

  // --- behaviour ---

  it('funnel: sessions by the step they reached, in the hour they started', async () => {
    const response = await run('funnel', { ...range(R), compare: 'previous_period', grain: 'day' });
    expectFigures(response.totals, R);
    expectFigures(response.compareTotals, P);
    expectSeries(response.series, R, 'day');
    expectSeries(response.compareSeries, P, 'day');
    const steps: [string, string][] = [
      ['sessions', 'sessions'],
      ['product_viewed', 'sessions_with_product_view'],
      ['added_to_cart', 'sessions_with_cart_addition'],
      ['reached_checkout', 'sessions_reaching_checkout'],
      ['ordered', 'sessions_with_order'],
    ];
    const started = ref.value('sessions', R) as number;
    let previous = started;
    const expected = steps.map(([step, measure]) => {
      const sessions = ref.value(measure, R) as number;
      const row = {
        step,
        step_sessions: sessions,
        step_conversion: previous > 0 ? sessions / previous : null,
        overall_conversion: sessions / started,
      };
      previous = sessions;
      return row;
    });
    expect(expected.map((row) => row.step_sessions)).toEqual([7, 6, 5, 4, 3]);
    expect(withoutLabels(response.rows)).toEqual(expected);
    // the session that started at 23:50 on the 24th and ordered after midnight is the previous period's
    expect(response.compareTotals).toMatchObject({ sessions: 2, sessions_with_order: 2 });
  });

  it('searches: by query, with follow-ups within 30 minutes', async () => {
    const response = await run('searches', { ...range(R), compare: 'previous_period', grain: 'day' });
    expectFigures(response.totals, R);
    expectFigures(response.compareTotals, P);
    expectSeries(response.series, R, 'day');
    expectSeries(response.compareSeries, P, 'day');
    const measures = measuresOf(response.rows[0], ['query']);
    const expected = ref.rows(measures, ['query'], R);
    expectTable(response.rows, expected, ['query'], { measure: 'searches', descending: true });
    expect(withoutLabels(response.rows).find((row) => row.query === 'shirt')).toMatchObject({
      searches: 2,
      searches_followed_by_add: 2,
      searches_followed_by_order: 1,
    });
    expect(withoutLabels(response.rows).find((row) => row.query === 'umbrella')).toMatchObject({
      searches: 1,
      searches_followed_by_add: 0,
    });
    const ascending = await run('searches', { ...range(R), sort: 'zero_result_searches' });
    expectTable(ascending.rows, expected, ['query'], { measure: 'zero_result_searches', descending: false });
    expect(await allPages('searches', { ...range(R), sort: '-searches' })).toEqual(response.rows);
  });

  // --- the builder ---

  const builderConds = (filters: NonNullable<BuilderQuery['filters']>): Conds =>
    Object.fromEntries(
      filters.map(({ dimension, op, values }) => {
        const test = (value: string): boolean => {
          switch (op) {
            case 'in':
              return values.includes(value);
            case 'not_in':
              return !values.includes(value);
            case 'contains':
              return values.some((text) => value.toLowerCase().includes(text.toLowerCase()));
            case 'gte':
              return Number(value) >= Number(values[0]);
            case 'lt':
              return Number(value) < Number(values[0]);
            case 'is_set':
              return value !== NONE && value !== '';
            default:
              throw new Error(`no reference for ${op}`);
          }
        };
        return [dimension, test];
      }),
    );

  it('builder: three dimensions with a time grain, filters by number and by exclusion, compare totals, sorted', async () => {
    const filters: BuilderQuery['filters'] = [
      { dimension: 'tax_rate', op: 'gte', values: ['1000'] },
      { dimension: 'shipping_method', op: 'not_in', values: ['express'] },
    ];
    const query: BuilderQuery = {
      measures: ['net_sales', 'orders', 'taxes', 'total_sales'],
      dimensions: ['week', 'payment_method', 'fulfilment_type'],
      filters,
      ...range(R),
      compare: 'previous_period',
      sort: '-net_sales',
    };
    const conds = builderConds(filters);
    const response = await builder.run(query, admin);
    expect(response.range).toEqual({ ...range(R), timezone: TIMEZONE, grain: 'week' });
    expectFigures(response.totals, R, conds);
    expectFigures(response.compareTotals, P, conds);
    expectSeries(response.series, R, 'week', conds);
    const dimensions = ['week', 'payment_method', 'fulfilment_type'];
    expectTable(response.rows, ref.rows(query.measures, dimensions, R, conds), dimensions, { measure: 'net_sales', descending: true });
    const top = await builder.run({ ...query, limit: 2 }, admin);
    expect(top.rows).toEqual(response.rows.slice(0, 2));
  });

  it('builder: two product dimensions, filtered out and "is set"', async () => {
    const filters: BuilderQuery['filters'] = [
      { dimension: 'category', op: 'not_in', values: [seeded.categories.footwear] },
      { dimension: 'brand', op: 'is_set', values: [] },
    ];
    const query: BuilderQuery = {
      measures: ['units_sold', 'gross_sales', 'returns', 'net_units'],
      dimensions: ['category', 'brand'],
      filters,
      ...range(R),
    };
    const conds = builderConds(filters);
    const response = await builder.run(query, admin);
    expectFigures(response.totals, R, conds);
    expectTable(response.rows, ref.rows(query.measures, ['category', 'brand'], R, conds), ['category', 'brand'], {
      measure: 'units_sold',
      descending: true,
    });
  });

  // O14 (apparel: a Nomad tote first, then Acme socks) is an order that contained an apparel-and-Acme line.
  it('builder: orders split by category and brand are the orders with a line of both', async () => {
    const query: BuilderQuery = { measures: ['orders', 'units_sold'], dimensions: ['category', 'brand'], ...range(R) };
    const response = await builder.run(query, admin);
    expectTable(response.rows, ref.rows(query.measures, ['category', 'brand'], R), ['category', 'brand'], {
      measure: 'orders',
      descending: true,
    });
  });

  it('builder: searches containing a text, by query and day', async () => {
    const filters: BuilderQuery['filters'] = [{ dimension: 'query', op: 'contains', values: ['SHIRT'] }];
    const query: BuilderQuery = {
      measures: ['searches', 'zero_result_searches', 'searches_followed_by_add'],
      dimensions: ['query', 'day'],
      filters,
      ...range(R),
    };
    const conds = builderConds(filters);
    const response = await builder.run(query, admin);
    expectFigures(response.totals, R, conds);
    expectSeries(response.series, R, 'day', conds);
    expect(withoutLabels(response.rows)).toEqual(byKey(ref.rows(query.measures, ['query', 'day'], R, conds), ['query', 'day']));
    expect(response.totals).toEqual({ searches: 3, zero_result_searches: 1, searches_followed_by_add: 3 });
  });

  it('builder: customers by month and checkout kind', async () => {
    const filters: BuilderQuery['filters'] = [{ dimension: 'customer_kind', op: 'in', values: ['guest', 'registered'] }];
    const query: BuilderQuery = {
      measures: ['customers', 'orders', 'net_sales'],
      dimensions: ['month', 'customer_kind'],
      filters,
      ...range(R),
    };
    const conds = builderConds(filters);
    const response = await builder.run(query, admin);
    expectFigures(response.totals, R, conds);
    expectSeries(response.series, R, 'month', conds);
    expect(withoutLabels(response.rows)).toEqual(
      byKey(ref.rows(query.measures, ['month', 'customer_kind'], R, conds), ['month', 'customer_kind']),
    );
  });

  it('builder: new and returning customers split by checkout kind or language keep their meaning', async () => {
    // jack's first order (2026-09-24) was a guest checkout in Arabic; his order of 2026-10-07 is registered and in English.
    // "New customers: customers whose first order was placed in the period" — he is not one in the range, however split.
    for (const dimension of ['customer_kind', 'locale']) {
      const query: BuilderQuery = { measures: ['new_customers', 'returning_customers', 'customers'], dimensions: [dimension], ...range(R) };
      const response = await builder.run(query, admin);
      expect(byKey(withoutLabels(response.rows), [dimension])).toEqual(byKey(ref.rows(query.measures, [dimension], R), [dimension]));
    }
  });

  it('builder: customers filtered by both checkout kinds are each counted once', async () => {
    // jack checked out as a guest on 2026-09-24 and as a registered shopper on 2026-10-07: one customer.
    const window = { from: PREVIOUS.from, to: RANGE.to };
    const filters: BuilderQuery['filters'] = [{ dimension: 'customer_kind', op: 'in', values: ['guest', 'registered'] }];
    const response = await builder.run({ measures: ['customers'], filters, ...range(window) }, admin);
    expect(response.totals).toEqual({ customers: ref.value('customers', window) });
    expect(ref.value('customers', window)).toBe(10);
  });

  // Contract section 8: the builder "answers like a report", and a report with compare has the compare range's points in
  // compareSeries, aligned by position.
  it('builder: with compare and a time grain, answers the compare series like a report', async () => {
    const query: BuilderQuery = { measures: ['net_sales', 'orders'], dimensions: ['week'], ...range(R), compare: 'previous_period' };
    const response = await builder.run(query, admin);
    expectSeries(response.series, R, 'week');
    expectSeries(response.compareSeries, P, 'week');
  });

  // --- the range rules of contract section 8 ---

  it('refuses ranges outside the rules, beyond the plan, unknown dimensions and measures', async () => {
    const refused = async (params: ReportParams, code: string, principalOf = admin) => {
      const error = await reports.run('overview', params, principalOf).then(
        () => null,
        (caught: unknown) => caught as { code: string; options: { details?: Record<string, unknown> } },
      );
      expect(error, JSON.stringify(params)).not.toBeNull();
      expect(error!.code).toBe(code);
      return error!;
    };
    await refused({ last: 0 }, 'invalid_range');
    await refused({ last: 367 }, 'invalid_range');
    await refused({ last: -5 }, 'invalid_range');
    await refused({ from: '2026-10-14', to: '2026-09-25' }, 'invalid_range');
    await refused({ from: '2025-10-14', to: '2026-10-15' }, 'invalid_range'); // 367 days
    await refused({ from: '2026-09-25', to: '2026-10-14', last: 30 }, 'invalid_range');
    expect((await run('overview', { from: '2025-10-15', to: '2026-10-15' })).range).toMatchObject({ from: '2025-10-15', to: '2026-10-15' }); // 366 days
    const basic = principal('basic');
    expect((await refused({ last: 120 }, 'plan_not_entitled', basic)).options.details).toMatchObject({ requiredPlan: 'growth' });
    expect((await refused({ last: 30, compare: 'previous_period' }, 'plan_not_entitled', basic)).options.details).toMatchObject({
      requiredPlan: 'growth',
    });
    expect((await reports.run('overview', { last: 90 }, basic)).range.grain).toBe('day');
    expect((await refused({ ...range(R), filters: ['colour:red'] }, 'unknown_dimension')).options.details).toMatchObject({
      dimension: 'colour',
    });
    await expect(reports.run('products', { ...range(R), sort: '-happiness' }, admin)).rejects.toMatchObject({ code: 'unknown_measure' });
    await expect(reports.run('products', { ...range(R), sort: 'happiness' }, admin)).rejects.toMatchObject({ code: 'unknown_measure' });
  });

  // Last: a rebuild gives out customer numbers anew.
  it('a rebuild of the rollups from the records answers the same figures as the changes folded in one by one', async () => {
    const names: ReportName[] = ['overview', 'products', 'customers', 'cohorts', 'fulfilment', 'payments', 'tax', 'funnel', 'searches'];
    const answers = () =>
      Promise.all(
        names.map(async (name) => {
          const { totals, compareTotals, series, compareSeries, rows } = await run(name, {
            ...range(R),
            compare: 'previous_period',
            limit: 100,
          });
          return { name, totals, compareTotals, series, compareSeries, rows };
        }),
      );
    const folded = await answers();
    await t.app.get(RollupMaintainer).rebuild(seeded.storeId);
    expect(await answers()).toEqual(folded);
  });
});
