import { sql, type RawBuilder } from 'kysely';
import { orderRecords } from '../rollups/facts/records.js';
import type { WindowScope } from '../rollups/facts/statements.js';
import { ROLLUPS, type RollupTable } from '../rollups/rollup-tables.js';

/**
 * Where measures are read from: each source is one kind of rollup, at one or more granularities,
 * with the dimensions its rows can be split and filtered by, and for some, the records the rollup
 * is folded from, which reach more dimensions. The query layer picks, for each measure, the first
 * source (in this order) that has it and whose rollups hold every dimension the query uses; else the
 * first whose records do.
 */

export const SOURCE_NAMES = [
  'sales',
  'products',
  'customers',
  'customer_sales',
  'buyers',
  'cohorts',
  'fulfilment',
  'payments',
  'searches',
  'funnel',
] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

export interface SourceDimension {
  /** The value, over the rollup row `t` (grouped as it is, answered as text). */
  sql: RawBuilder<unknown>;
  /** The key column it reads: a table without it cannot serve the dimension. */
  column: string;
  /** The column's type when it is not text: values compared as such can use its indexes. */
  type?: 'uuid' | 'bigint' | 'int';
}

export interface SourceDef {
  name: SourceName;
  /** A query takes the table with the fewest keys, then the coarsest buckets, that serves its grain and dimensions. */
  tables: readonly RollupTable[];
  /** Whether rows have a time bucket the range and the time grains apply to. */
  timed: boolean;
  dimensions: Record<string, SourceDimension>;
  /**
   * Conditions the dimensions a query uses (split or filtered) impose on the rows, or why they
   * cannot be used together here.
   */
  conditions?(used: ReadonlySet<string>): RawBuilder<unknown>[] | { refused: string };
  /** Rows each rollup row stands for when the dimensions a query uses need it (joined laterally, beside `t`). */
  expand?(used: ReadonlySet<string>): RawBuilder<unknown> | undefined;
  /** The records the rollups are folded from, read when the rollups do not hold a question's dimensions. */
  records?: SourceRecords;
}

/**
 * A source's facts computed from its records by the folds' own definitions (rollups/facts), not
 * added anywhere: each fact with the same measure columns a rollup row sums, so that every measure
 * reads them with its one SQL aggregate.
 */
export interface SourceRecords {
  /** What the facts can be split and filtered by: the rollups' dimensions and more. */
  dimensions: Record<string, SourceDimension>;
  /** The columns of each fact a measure reads. */
  reads(measure: string): readonly string[];
  /** Measures of the source the records do not have (a card declined at checkout has no order). */
  without?: readonly string[];
  /**
   * The facts of a store within a window, each with its store, when it happened (`at`), its store's
   * time zone (`tz`), and the `columns` asked for.
   */
  facts(scope: WindowScope, columns: readonly string[]): RawBuilder<unknown>;
}

const column = (name: string, type?: SourceDimension['type']): SourceDimension => ({ sql: sql.ref(`t.${name}`), column: name, type });

/** Which rows of the customers rollup answer a query: the grouping its customer dimension needs. */
function customerGrouping(used: ReadonlySet<string>): RawBuilder<unknown>[] | { refused: string } {
  const groupings = ['customer_kind', 'locale'].filter((name) => used.has(name));
  if (groupings.length > 1 || (groupings.length === 1 && used.has('customer_type'))) {
    return { refused: 'customers can be split by one of customer_type, customer_kind and locale at a time' };
  }
  return [sql`t.grouping = ${groupings[0] ?? 'all'}`];
}

/** What an order is split by: how it was paid, fulfilled and placed, and by whom. */
const ORDER_DIMENSIONS = {
  payment_method: column('payment_method'),
  fulfilment_type: column('fulfilment_type'),
  shipping_method: column('shipping_method'),
  customer_type: column('customer_type'),
  customer_kind: column('customer_kind'),
  locale: column('locale'),
  tax_rate: column('tax_rate_bps', 'int'),
};
const CUSTOMER = { customer: column('customer_id', 'bigint') };
const LINE_DIMENSIONS = {
  product: column('product_id', 'uuid'),
  variant: column('variant_id', 'uuid'),
  category: column('category_id', 'uuid'),
  brand: column('brand_id', 'uuid'),
};
const LINE_COLUMNS = Object.values(LINE_DIMENSIONS).map((dimension) => dimension.column);

export const SOURCES: readonly SourceDef[] = [
  {
    name: 'sales',
    tables: [ROLLUPS.salesHourly, ROLLUPS.salesDaily, ROLLUPS.salesMonthly, ROLLUPS.salesTotalsDaily],
    timed: true,
    dimensions: ORDER_DIMENSIONS,
    records: {
      dimensions: { ...ORDER_DIMENSIONS, ...CUSTOMER },
      reads: () => ROLLUPS.salesDaily.measures,
      facts: (scope, columns) => orderRecords(scope, 'sales', columns),
    },
  },
  {
    name: 'products',
    tables: [ROLLUPS.productsDaily, ROLLUPS.productsMonthly],
    timed: true,
    dimensions: LINE_DIMENSIONS,
    records: {
      dimensions: { ...LINE_DIMENSIONS, ...ORDER_DIMENSIONS, ...CUSTOMER },
      reads: () => ROLLUPS.productsDaily.measures,
      facts: (scope, columns) => orderRecords(scope, 'lines', columns),
    },
  },
  {
    name: 'customers',
    tables: [ROLLUPS.customersDaily],
    timed: true,
    dimensions: {
      // a day's row holds both kinds of customer: split by type, it stands for two rows
      customer_type: { sql: sql`customer_type.value`, column: 'grouping' },
      customer_kind: column('group_value'),
      locale: column('group_value'),
    },
    conditions: customerGrouping,
    expand: (used) => (used.has('customer_type') ? sql`(values ('new'), ('returning')) as customer_type(value)` : undefined),
  },
  {
    name: 'customer_sales',
    tables: [ROLLUPS.customerSalesDaily],
    timed: true,
    dimensions: CUSTOMER,
  },
  {
    // Customers counted from the orders themselves, split by anything an order or its lines reach.
    name: 'buyers',
    tables: [],
    timed: true,
    dimensions: {},
    records: {
      dimensions: { ...LINE_DIMENSIONS, ...ORDER_DIMENSIONS, ...CUSTOMER },
      // whether an order is a customer's first asks their history: only new and returning customers need it
      reads: (measure) => (measure === 'customers' ? ['customer_id'] : ['customer_id', 'customer_type']),
      // an order's customer is the same on all its lines: lines only when a line's keys are asked for
      facts: (scope, columns) =>
        orderRecords(scope, columns.some((column) => LINE_COLUMNS.includes(column)) ? 'placed_lines' : 'placed_orders', columns),
    },
  },
  {
    name: 'cohorts',
    tables: [ROLLUPS.cohortsMonthly],
    timed: false,
    dimensions: {
      cohort: { sql: sql`to_char(t.cohort_month, 'YYYY-MM-DD')`, column: 'cohort_month' },
      months_since: {
        sql: sql`((extract(year from t.month) - extract(year from t.cohort_month)) * 12
                  + extract(month from t.month) - extract(month from t.cohort_month))::int`,
        column: 'cohort_month',
      },
    },
  },
  {
    name: 'fulfilment',
    tables: [ROLLUPS.fulfilmentHourly],
    timed: true,
    dimensions: { fulfilment_type: column('fulfilment_type'), shipping_method: column('shipping_method') },
    records: {
      dimensions: { ...ORDER_DIMENSIONS, ...CUSTOMER },
      reads: () => ROLLUPS.fulfilmentHourly.measures,
      facts: (scope, columns) => orderRecords(scope, 'fulfilment', columns),
    },
  },
  {
    name: 'payments',
    tables: [ROLLUPS.paymentsHourly],
    timed: true,
    dimensions: { payment_method: column('payment_method') },
    records: {
      dimensions: { ...ORDER_DIMENSIONS, ...CUSTOMER },
      reads: () => ROLLUPS.paymentsHourly.measures.filter((column) => !column.startsWith('failed_')),
      without: ['failed_payments', 'failed_amount'],
      facts: (scope, columns) => orderRecords(scope, 'payments', columns),
    },
  },
  {
    name: 'searches',
    tables: [ROLLUPS.searchesHourly, ROLLUPS.searchesDaily, ROLLUPS.searchesMonthly],
    timed: true,
    dimensions: { query: column('query') },
  },
  {
    name: 'funnel',
    tables: [ROLLUPS.funnelHourly],
    timed: true,
    dimensions: {},
  },
];
