import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AdminPrincipal } from '../../src/auth/principal.js';
import { ApiError } from '../../src/common/errors/api-error.js';
import { BuilderService, type BuilderQuery } from '../../src/insights/builder/builder.service.js';
import { MEASURES, type MeasureDef } from '../../src/insights/definitions/measures.js';
import { dimensionsOf } from '../../src/insights/definitions/reference.js';
import { SOURCES } from '../../src/insights/definitions/sources.js';
import { QueryEngine, type QuerySpec } from '../../src/insights/query/query-engine.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import { ok } from '../support/responses.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { RANGE, readRecords, seedHistory, type Seeded } from './report-fixture.js';
import { Reference, type Conds } from './report-reference.js';
import { foldAll, ownerPrincipal } from './support.js';

/**
 * The builder's records path: questions no rollup holds are answered from the records the rollups
 * are folded from, by the folds' own fact definitions. Where a rollup holds a question, both paths
 * answer it, and must agree to the halala; where none does, the records' answer is the one the
 * reference (report-reference.ts, written from the contract's definitions) computes.
 */

type Row = Record<string, unknown>;

/** Every dimension combination a rollup holds, up to three with a time grain, for the sources with records. */
const ROLLUP_QUESTIONS: string[][] = [
  [],
  ['day'],
  ['hour'],
  ['week'],
  ['month'],
  ['payment_method'],
  ['day', 'fulfilment_type', 'shipping_method'],
  ['customer_type', 'customer_kind', 'locale'],
  ['month', 'tax_rate'],
  ['product'],
  ['day', 'variant'],
  ['category', 'brand'],
  ['week', 'category', 'brand'],
  ['customer'],
  ['day', 'customer'],
  ['customer_type'],
  ['month', 'customer_kind'],
  ['week', 'locale'],
];

const byKey = (rows: Row[], dimensions: string[]) =>
  [...rows].sort((a, b) => {
    const left = dimensions.map((name) => String(a[name])).join('\u0000');
    const right = dimensions.map((name) => String(b[name])).join('\u0000');
    return left < right ? -1 : left > right ? 1 : 0;
  });
const withoutLabels = (rows: Row[]) => rows.map(({ labels: _labels, ...row }) => row);

describe('Insights records path', () => {
  const t = useTestApp({ INSIGHTS_RECORDS_TIMEOUT_SECONDS: '1' });
  let seeded: Seeded;
  let ref: Reference;
  let engine: QueryEngine;
  let builder: BuilderService;
  let admin: AdminPrincipal;

  beforeAll(async () => {
    const store = await t.store();
    seeded = await seedHistory(t.db, store.storeId, store.keyId);
    await foldAll(t.app);
    ref = new Reference(await readRecords(t.db, store.storeId));
    engine = t.app.get(QueryEngine);
    builder = t.app.get(BuilderService);
    admin = ownerPrincipal(seeded.storeId);
  }, 120_000);

  const spec = (measures: MeasureDef[], dimensions: string[], via?: QuerySpec['via']): QuerySpec => ({
    storeId: seeded.storeId,
    measures,
    dimensions,
    filters: [],
    range: RANGE,
    weekStartsOn: 'sunday',
    via,
  });

  it('every measure the records have answers each question a rollup holds with the rollup’s figures, to the halala', async () => {
    const recorded = MEASURES.filter((measure) => SOURCES.some((source) => source.records && measure.in[source.name]));
    expect(recorded.map((measure) => measure.name)).toEqual(
      expect.arrayContaining([
        'orders',
        'gross_sales',
        'discounts',
        'returns',
        'net_sales',
        'shipping',
        'taxes',
        'total_sales',
        'units_sold',
        'customers',
        'new_customers',
        'returning_customers',
        'returning_customer_rate',
        'authorised_amount',
        'captured_payments',
        'refunded_amount',
        'voided_payments',
        'shipped_orders',
        'average_time_to_deliver',
        'late_orders',
        'on_time_rate',
      ]),
    );
    let compared = 0;
    for (const measure of recorded) {
      for (const dimensions of ROLLUP_QUESTIONS) {
        let fromRollups: Row[];
        try {
          fromRollups = (await engine.rows(spec([measure], dimensions, 'rollups'))).rows;
        } catch (error) {
          // a question no rollup of this measure holds (discounts by product…): not one to compare
          if (error instanceof ApiError) continue;
          throw error;
        }
        const fromRecords = (await engine.rows(spec([measure], dimensions, 'records'))).rows;
        // A rollup row can stand for facts of other measures only (the hour of a declined card, in the payments
        // rollup), where this measure is empty; the records of this measure have no such row. Every figure compares.
        const empty = (row: Row) => dimensions.length > 0 && (row[measure.name] === 0 || row[measure.name] === null);
        expect(byKey(fromRecords, dimensions), `${measure.name} by ${dimensions.join(' × ') || 'nothing'}`).toEqual(
          byKey(
            fromRollups.filter((row) => !empty(row) || fromRecords.some((other) => dimensions.every((name) => other[name] === row[name]))),
            dimensions,
          ),
        );
        expect(fromRecords.filter(empty).length, `${measure.name}: rows of the records are of its facts`).toBeLessThanOrEqual(
          fromRollups.filter(empty).length,
        );
        compared += 1;
      }
    }
    // every recorded measure, by most of the questions: no comparison quietly skipped
    expect(compared).toBeGreaterThan(recorded.length * 8);
  }, 180_000);

  it('counts the rows of a records question without computing them, as many as it answers', async () => {
    const measures = MEASURES.filter((measure) => ['net_sales', 'orders', 'units_sold'].includes(measure.name));
    for (const dimensions of [['day', 'product', 'customer'], ['locale', 'category'], ['customer'], []]) {
      const { rows } = await engine.rows(spec(measures, dimensions, 'records'));
      expect(await engine.count(spec(measures, dimensions, 'records')), dimensions.join(' × ')).toBe(rows.length);
    }
  });

  /** The builder's answer to a question no rollup holds, against the reference's. */
  async function expectAnswer(query: BuilderQuery, conds: Conds = {}): Promise<Row[]> {
    const answer = await builder.run({ ...query, ...RANGE }, admin);
    const dimensions = query.dimensions ?? [];
    const expected = ref.rows(query.measures, dimensions, RANGE, conds);
    expect(expected.length).toBeGreaterThan(0);
    // The service has a row wherever a fact of the measures is, as the rollups do: an order promised and then
    // cancelled adds one and takes it back, a row of nothing, which the reference (of orders not cancelled) has not.
    const keyOf = (row: Row) => dimensions.map((name) => String(row[name])).join('\u0000');
    const known = new Set(expected.map(keyOf));
    const empty = (row: Row) => query.measures.every((name) => row[name] === 0 || row[name] === null);
    const rows = withoutLabels(answer.rows as Row[]);
    expect(
      byKey(
        rows.filter((row) => known.has(keyOf(row)) || !empty(row)),
        dimensions,
      ),
    ).toEqual(byKey(expected, dimensions));
    expect(answer.rowCount).toBe(rows.length);
    return answer.rows as Row[];
  }

  it('answers who bought what, when: net sales by day × product × customer, as the reference computes it', async () => {
    const rows = await expectAnswer({
      measures: ['net_sales', 'orders', 'units_sold', 'returns'],
      dimensions: ['day', 'product', 'customer'],
    });
    // labelled like any answer: the customer by name and email, the product by its name
    const labelled = rows.find((row) => (row.labels as Record<string, unknown> | undefined)?.customer);
    expect(labelled).toBeDefined();
  });

  it('answers a product’s sales by the order’s language and payment, filtered by category', async () => {
    const apparel = seeded.categories.apparel;
    await expectAnswer(
      {
        measures: ['net_sales', 'gross_sales', 'units_returned', 'orders'],
        dimensions: ['product', 'locale', 'payment_method'],
        filters: [{ dimension: 'category', op: 'in', values: [apparel] }],
      },
      { category: (value) => value === apparel },
    );
  });

  it('answers an order’s figures by customer and checkout kind, by week', async () => {
    await expectAnswer({
      measures: ['net_sales', 'discounts', 'shipping', 'taxes', 'average_order_value'],
      dimensions: ['week', 'customer', 'customer_kind'],
    });
  });

  it('answers the money an order’s payments moved by the order’s language, checkout kind and customer', async () => {
    await expectAnswer({
      measures: ['authorised_amount', 'captured_amount', 'refunded_amount', 'voided_payments'],
      dimensions: ['locale', 'customer_kind', 'customer'],
    });
  });

  it('answers the promises due, and kept or broken, by the order’s language and payment, on the day they were due', async () => {
    await expectAnswer({ measures: ['promised_orders', 'late_orders', 'on_time_rate'], dimensions: ['day', 'locale', 'payment_method'] });
  });

  it('answers how fast orders were shipped, made ready and delivered by the order’s language and checkout kind', async () => {
    await expectAnswer({
      measures: ['shipped_orders', 'average_time_to_ship', 'delivered_orders', 'average_time_to_deliver', 'ready_orders', 'late_orders'],
      dimensions: ['locale', 'customer_kind', 'payment_method'],
    });
  });

  it('lists, per measure, every dimension it can be split by on either path; refuses only what has no meaning', async () => {
    const token = await staffToken(t.app, await addStaff(t.app, seeded.storeId, 'owner'));
    const { items } = ok(await adminCall(t.app, 'GET', '/admin/insights/measures', token));
    const entry = (name: string) => items.find((item: { name: string }) => item.name === name);
    expect(entry('net_sales').dimensions).toEqual(
      expect.arrayContaining(['hour', 'day', 'product', 'category', 'customer', 'locale', 'payment_method', 'tax_rate']),
    );
    expect(entry('discounts').dimensions).toContain('customer');
    expect(entry('discounts').dimensions).not.toContain('product');
    for (const measure of MEASURES) expect(entry(measure.name).dimensions).toEqual(dimensionsOf(measure));

    const refused = expectProblem(
      await adminCall(t.app, 'POST', '/admin/insights/builder/run', token, { measures: ['conversion_rate'], dimensions: ['tax_rate'] }),
      400,
      'unsupported_combination',
    );
    expect(refused).toMatchObject({ measure: 'conversion_rate', dimensions: ['tax_rate'] });
    expect(refused.message_ar).toContain('نسبة الضريبة (tax_rate)');
    // a card declined at checkout placed no order: it has no language, only its method
    expect(entry('failed_payments').dimensions).not.toContain('locale');
    expectProblem(
      await adminCall(t.app, 'POST', '/admin/insights/builder/run', token, { measures: ['failed_amount'], dimensions: ['locale'] }),
      400,
      'unsupported_combination',
    );
  });

  it('whatever filters a member sends a records question, it is answered as the reference or refused with a 4xx, never a 5xx', async () => {
    const token = await staffToken(t.app, await addStaff(t.app, seeded.storeId, 'owner'));
    const build = (body: unknown) => adminCall(t.app, 'POST', '/admin/insights/builder/run', token, body);
    const question = { measures: ['net_sales', 'orders'], dimensions: ['product', 'locale'], ...RANGE };
    // numbers past any column's range, compared as numbers: every tax rate is between them
    const wide = ok(
      await build({
        ...question,
        filters: [{ dimension: 'tax_rate', op: 'between', values: ['-99999999999999999999', '99999999999999999999'] }],
      }),
    );
    expect(byKey(withoutLabels(wide.rows), question.dimensions)).toEqual(
      byKey(ref.rows(question.measures, question.dimensions, RANGE), question.dimensions),
    );
    // LIKE's own characters are text to look for, not patterns: no customer's number holds them
    const patterns = ok(
      await build({
        ...question,
        filters: [{ dimension: 'customer', op: 'contains', values: ['%', '_', '\\', "'; drop table orders; --"] }],
      }),
    );
    expect(patterns.rowCount).toBe(0);
    // 200 names that name nothing: refused with the closest values, never answered with zeros
    const names = Array.from({ length: 200 }, (_, i) => `no such category ${i}`);
    expectProblem(
      await build({ ...question, filters: [{ dimension: 'category', op: 'in', values: names }] }),
      400,
      'unknown_dimension_value',
    );
    // another store's product is no value of this store's
    const other = await t.store();
    const [{ id: foreign }] = await t.db.rows<{ id: string }>(
      `insert into products (store_id, slug, name_en, name_ar, status) values ($1, 'foreign', 'Foreign', 'أجنبي', 'active') returning id`,
      [other.storeId],
    );
    expectProblem(
      await build({ ...question, filters: [{ dimension: 'product', op: 'in', values: [foreign] }] }),
      400,
      'unknown_dimension_value',
    );
    // over the DTO's bounds: more than 200 values, values over 200 characters
    expectProblem(
      await build({
        ...question,
        filters: [{ dimension: 'customer', op: 'in', values: Array.from({ length: 201 }, (_, i) => String(i)) }],
      }),
      400,
      'validation_failed',
    );
    expectProblem(
      await build({ ...question, filters: [{ dimension: 'customer', op: 'contains', values: ['x'.repeat(201)] }] }),
      400,
      'validation_failed',
    );
  });

  it('a records question past its time limit is refused with 422 query_too_heavy and what to do instead, never a 5xx', async () => {
    const token = await staffToken(t.app, await addStaff(t.app, seeded.storeId, 'owner'));
    const query = { measures: ['net_sales'], dimensions: ['day', 'product', 'customer'], last: 90 };
    // A real wait: the order lines held by another transaction's lock, past the 1 s limit this app runs with.
    const holder = new pg.Client({ connectionString: t.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin; lock table order_lines in access exclusive mode');
      const started = Date.now();
      const refused = expectProblem(await adminCall(t.app, 'POST', '/admin/insights/builder/run', token, query), 422, 'query_too_heavy');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(refused.timeoutSeconds).toBe(1);
      expect(refused.suggestion).toMatchObject({ code: 'narrow_or_export', export: { source: { builder: query }, format: 'csv' } });
      expect(refused.suggestion.message_ar.length).toBeGreaterThan(0);
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    // once the lock is gone, the same question is answered
    ok(await adminCall(t.app, 'POST', '/admin/insights/builder/run', token, query));
  });
});

describe('Insights records path: the orders an answer may read', () => {
  const t = useTestApp({ INSIGHTS_RECORDS_MAX_ORDERS: '6' });
  let storeId: string;
  let token: string;

  beforeAll(async () => {
    const store = await t.store();
    storeId = (await seedHistory(t.db, store.storeId, store.keyId)).storeId;
    await foldAll(t.app);
    token = await staffToken(t.app, await addStaff(t.app, storeId, 'owner'));
  }, 120_000);

  const build = (body: unknown) => adminCall(t.app, 'POST', '/admin/insights/builder/run', token, body);

  it('a records question over more orders than an answer reads is refused before reading them, with the latest days that fit', async () => {
    const query = { measures: ['net_sales'], dimensions: ['product', 'customer'], ...RANGE };
    const [{ orders }] = await t.db.rows(
      `select count(*) filter (where (placed_at at time zone 'Asia/Riyadh')::date between $2 and $3)
            + count(*) filter (where (cancelled_at at time zone 'Asia/Riyadh')::date between $2 and $3) as orders
       from orders where store_id = $1 and not test`,
      [storeId, RANGE.from, RANGE.to],
    );
    expect(Number(orders)).toBeGreaterThan(6);
    const refused = expectProblem(await build(query), 422, 'query_too_heavy');
    expect(refused).toMatchObject({ orders: Number(orders), maxOrders: 6 });
    expect(refused.suggestion).toMatchObject({ code: 'narrow_or_export', export: { source: { builder: query }, format: 'csv' } });
    expect(refused.suggestion.message_en).toContain(`the records of ${orders} orders`);
    expect(refused.suggestion.message_ar).toContain(String(orders));
    // the latest days that fit are answered
    const { from, to } = refused.suggestion.range;
    expect(to).toBe(RANGE.to);
    expect(from > RANGE.from).toBe(true);
    ok(await build({ ...query, from, to }));
    // a question a rollup holds is never bounded so
    ok(await build({ measures: ['net_sales'], dimensions: ['product'], ...RANGE }));
    // and an export of the refused question reads every row
    const table = await t.app.get(BuilderService).table(query, ownerPrincipal(storeId));
    let exported = 0;
    for await (const batch of table.batches) exported += batch.length;
    expect(exported).toBe(table.totalRows);
    expect(exported).toBeGreaterThan(0);
  });
});
