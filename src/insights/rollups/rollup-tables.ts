/**
 * The rollup tables of migration 0007 as the maintainer writes them and the query layer reads them:
 * each holds additive measure columns per store, time bucket (local hour, day or month) and key
 * columns. One description, read by both sides.
 */

/** A bucket of local time; `all` is no bucket (all of time, e.g. what each customer has bought). */
export type Granularity = 'hour' | 'day' | 'month' | 'all';

export interface RollupTable {
  name: string;
  /** The bucket column, named after its granularity. */
  granularity: Granularity;
  /** Key columns after store and bucket, in primary-key order. */
  keys: readonly string[];
  /** Additive columns: a fact adds into them. */
  measures: readonly string[];
}

const SALES_KEYS = ['payment_method', 'fulfilment_type', 'shipping_method', 'customer_type', 'customer_kind', 'locale', 'tax_rate_bps'];
const SALES_MEASURES = [
  'orders',
  'gross_sales',
  'discounts',
  'returns',
  'shipping',
  'taxes_collected',
  'taxes_refunded',
  'units_sold',
  'units_returned',
  'cancelled_orders',
];
const SEARCH_MEASURES = ['searches', 'zero_result_searches', 'followed_by_add', 'followed_by_order'];
const PRODUCT_KEYS = ['variant_id', 'product_id', 'category_id', 'brand_id'];
const PRODUCT_MEASURES = [
  'units_sold',
  'units_returned',
  'gross_sales',
  'returns',
  'variant_orders',
  'product_orders',
  'category_orders',
  'brand_orders',
  'category_brand_orders',
];

export const ROLLUPS = {
  salesDaily: { name: 'insights_sales_daily', granularity: 'day', keys: SALES_KEYS, measures: SALES_MEASURES },
  salesHourly: { name: 'insights_sales_hourly', granularity: 'hour', keys: SALES_KEYS, measures: SALES_MEASURES },
  salesMonthly: { name: 'insights_sales_monthly', granularity: 'month', keys: SALES_KEYS, measures: SALES_MEASURES },
  salesTotalsDaily: { name: 'insights_sales_totals_daily', granularity: 'day', keys: [], measures: SALES_MEASURES },
  productsDaily: { name: 'insights_products_daily', granularity: 'day', keys: PRODUCT_KEYS, measures: PRODUCT_MEASURES },
  productsMonthly: { name: 'insights_products_monthly', granularity: 'month', keys: PRODUCT_KEYS, measures: PRODUCT_MEASURES },
  // Its gap counts are added by a fold of its own (facts.ts, customerFold); these are its summed columns.
  customersDaily: {
    name: 'insights_customers_daily',
    granularity: 'day',
    keys: ['grouping', 'group_value'],
    measures: ['orders', 'first_orders'],
  },
  cohortsMonthly: {
    name: 'insights_cohorts_monthly',
    granularity: 'month',
    keys: ['cohort_month'],
    measures: ['customers', 'orders', 'gross_sales', 'returns'],
  },
  customerTotals: { name: 'insights_customer_totals', granularity: 'all', keys: ['customer_id'], measures: ['orders', 'gross_sales'] },
  customerSalesDaily: {
    name: 'insights_customer_sales_daily',
    granularity: 'day',
    keys: ['customer_id'],
    measures: ['orders', 'gross_sales', 'discounts', 'returns'],
  },
  fulfilmentHourly: {
    name: 'insights_fulfilment_hourly',
    granularity: 'hour',
    keys: ['fulfilment_type', 'shipping_method'],
    measures: [
      'shipped_orders',
      'ship_seconds',
      'delivered_orders',
      'deliver_seconds',
      'ready_orders',
      'ready_seconds',
      'promised_orders',
      'late_orders',
      'kept_orders',
    ],
  },
  paymentsHourly: {
    name: 'insights_payments_hourly',
    granularity: 'hour',
    keys: ['payment_method'],
    measures: [
      'authorised_count',
      'authorised_amount',
      'captured_count',
      'captured_amount',
      'refunded_count',
      'refunded_amount',
      'voided_count',
      'voided_amount',
      'failed_count',
      'failed_amount',
    ],
  },
  searchesDaily: { name: 'insights_searches_daily', granularity: 'day', keys: ['query'], measures: SEARCH_MEASURES },
  searchesMonthly: { name: 'insights_searches_monthly', granularity: 'month', keys: ['query'], measures: SEARCH_MEASURES },
  searchesHourly: { name: 'insights_searches_hourly', granularity: 'hour', keys: [], measures: SEARCH_MEASURES },
  funnelHourly: {
    name: 'insights_funnel_hourly',
    granularity: 'hour',
    keys: [],
    measures: ['sessions', 'product_viewed', 'added_to_cart', 'reached_checkout', 'ordered'],
  },
} as const satisfies Record<string, RollupTable>;

/** Rows kept beside the rollups so that a session or a search counts once; cleared with them on a rebuild. */
export const ROLLUP_STATE_TABLES = ['insights_funnel_sessions', 'insights_search_credits', 'insights_customers'] as const;

/** A sentinel for "none" in a uuid key (no brand, no category, a deleted product or variant). */
export const NONE_ID = '00000000-0000-0000-0000-000000000000';
