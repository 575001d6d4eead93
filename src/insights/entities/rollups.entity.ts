import { defineEntity, p } from '@mikro-orm/core';

/**
 * The Insights rollups (migration 0007): additive facts per store and local hour, day or month, by
 * the dimensions reports split by. Only the rollup maintainer writes them; the query layer reads
 * them. Declared here so that the schema test proves them equal to the migration.
 */

const count = () => p.integer().default(0);
const money = () => p.bigint().defaultRaw('0');
const key = () => p.text().primary();
const store = () => p.uuid().primary();
const hour = () => p.datetime().columnType('timestamp').primary();
const day = () => p.date().primary();

const salesKeys = () => ({
  paymentMethod: key(),
  fulfilmentType: key(),
  shippingMethod: key(),
  customerType: key(),
  customerKind: key(),
  locale: key(),
  taxRateBps: p.integer().primary(),
});

const salesMeasures = () => ({
  orders: count(),
  grossSales: money(),
  discounts: money(),
  returns: money(),
  shipping: money(),
  taxesCollected: money(),
  taxesRefunded: money(),
  unitsSold: count(),
  unitsReturned: count(),
  cancelledOrders: count(),
});

const salesColumns = () => ({ ...salesKeys(), ...salesMeasures() });

const SalesDailySchema = defineEntity({
  name: 'SalesDaily',
  tableName: 'insights_sales_daily',
  properties: { storeId: store(), day: day(), ...salesColumns() },
});
export class SalesDaily extends SalesDailySchema.class {}
SalesDailySchema.setClass(SalesDaily);

const SalesHourlySchema = defineEntity({
  name: 'SalesHourly',
  tableName: 'insights_sales_hourly',
  properties: { storeId: store(), hour: hour(), ...salesColumns() },
});
export class SalesHourly extends SalesHourlySchema.class {}
SalesHourlySchema.setClass(SalesHourly);

const month = () => p.date().primary();

const SalesMonthlySchema = defineEntity({
  name: 'SalesMonthly',
  tableName: 'insights_sales_monthly',
  properties: { storeId: store(), month: month(), ...salesColumns() },
});
export class SalesMonthly extends SalesMonthlySchema.class {}
SalesMonthlySchema.setClass(SalesMonthly);

const SalesTotalsDailySchema = defineEntity({
  name: 'SalesTotalsDaily',
  tableName: 'insights_sales_totals_daily',
  properties: { storeId: store(), day: day(), ...salesMeasures() },
});
export class SalesTotalsDaily extends SalesTotalsDailySchema.class {}
SalesTotalsDailySchema.setClass(SalesTotalsDaily);

const productColumns = () => ({
  variantId: p.uuid().primary(),
  productId: p.uuid().primary(),
  categoryId: p.uuid().primary(),
  brandId: p.uuid().primary(),
  unitsSold: count(),
  unitsReturned: count(),
  grossSales: money(),
  returns: money(),
  variantOrders: count(),
  productOrders: count(),
  categoryOrders: count(),
  brandOrders: count(),
  categoryBrandOrders: count(),
});

const ProductsDailySchema = defineEntity({
  name: 'ProductsDaily',
  tableName: 'insights_products_daily',
  indexes: [{ name: 'insights_products_daily_last_sale_index', properties: ['storeId', 'productId', 'day'] }],
  properties: { storeId: store(), day: day(), ...productColumns() },
});
export class ProductsDaily extends ProductsDailySchema.class {}
ProductsDailySchema.setClass(ProductsDaily);

const ProductsMonthlySchema = defineEntity({
  name: 'ProductsMonthly',
  tableName: 'insights_products_monthly',
  properties: { storeId: store(), month: month(), ...productColumns() },
});
export class ProductsMonthly extends ProductsMonthlySchema.class {}
ProductsMonthlySchema.setClass(ProductsMonthly);

const CustomersDailySchema = defineEntity({
  name: 'CustomersDaily',
  tableName: 'insights_customers_daily',
  properties: {
    storeId: store(),
    grouping: key(),
    day: day(),
    groupValue: key(),
    orders: count(),
    firstOrders: count(),
    repeatGaps: p.array<number>().columnType('int[]').defaultRaw("'{}'"),
    secondGaps: p.array<number>().columnType('int[]').defaultRaw("'{}'"),
  },
});
export class CustomersDaily extends CustomersDailySchema.class {}
CustomersDailySchema.setClass(CustomersDaily);

const CohortsMonthlySchema = defineEntity({
  name: 'CohortsMonthly',
  tableName: 'insights_cohorts_monthly',
  properties: {
    storeId: store(),
    cohortMonth: p.date().primary(),
    month: p.date().primary(),
    customers: count(),
    orders: count(),
    grossSales: money(),
    returns: money(),
  },
});
export class CohortsMonthly extends CohortsMonthlySchema.class {}
CohortsMonthlySchema.setClass(CohortsMonthly);

const InsightsCustomerSchema = defineEntity({
  name: 'InsightsCustomer',
  tableName: 'insights_customers',
  uniques: [{ properties: ['storeId', 'email'] }],
  properties: {
    id: p.bigint().primary().autoincrement(),
    storeId: p.uuid(),
    email: p.text(),
  },
});
export class InsightsCustomer extends InsightsCustomerSchema.class {}
InsightsCustomerSchema.setClass(InsightsCustomer);

const CustomerTotalsSchema = defineEntity({
  name: 'CustomerTotals',
  tableName: 'insights_customer_totals',
  indexes: [
    {
      name: 'insights_customer_totals_gross_sales_index',
      expression:
        'create index insights_customer_totals_gross_sales_index on insights_customer_totals (store_id, gross_sales desc, customer_id)',
    },
    {
      name: 'insights_customer_totals_orders_index',
      expression: 'create index insights_customer_totals_orders_index on insights_customer_totals (store_id, orders desc, customer_id)',
    },
  ],
  properties: {
    storeId: store(),
    customerId: p.bigint().primary(),
    orders: count(),
    grossSales: money(),
  },
});
export class CustomerTotals extends CustomerTotalsSchema.class {}
CustomerTotalsSchema.setClass(CustomerTotals);

const CustomerSalesDailySchema = defineEntity({
  name: 'CustomerSalesDaily',
  tableName: 'insights_customer_sales_daily',
  indexes: [
    {
      name: 'insights_customer_sales_daily_customer_index',
      expression:
        'create index insights_customer_sales_daily_customer_index on insights_customer_sales_daily (store_id, customer_id, day) include (orders, gross_sales, discounts, returns)',
    },
  ],
  properties: {
    storeId: store(),
    day: day(),
    customerId: p.bigint().primary(),
    orders: count(),
    grossSales: money(),
    discounts: money(),
    returns: money(),
  },
});
export class CustomerSalesDaily extends CustomerSalesDailySchema.class {}
CustomerSalesDailySchema.setClass(CustomerSalesDaily);

const FulfilmentHourlySchema = defineEntity({
  name: 'FulfilmentHourly',
  tableName: 'insights_fulfilment_hourly',
  properties: {
    storeId: store(),
    hour: hour(),
    fulfilmentType: key(),
    shippingMethod: key(),
    shippedOrders: count(),
    shipSeconds: money(),
    deliveredOrders: count(),
    deliverSeconds: money(),
    readyOrders: count(),
    readySeconds: money(),
    promisedOrders: count(),
    lateOrders: count(),
    keptOrders: count(),
  },
});
export class FulfilmentHourly extends FulfilmentHourlySchema.class {}
FulfilmentHourlySchema.setClass(FulfilmentHourly);

const PaymentsHourlySchema = defineEntity({
  name: 'PaymentsHourly',
  tableName: 'insights_payments_hourly',
  properties: {
    storeId: store(),
    hour: hour(),
    paymentMethod: key(),
    authorisedCount: count(),
    authorisedAmount: money(),
    capturedCount: count(),
    capturedAmount: money(),
    refundedCount: count(),
    refundedAmount: money(),
    voidedCount: count(),
    voidedAmount: money(),
    failedCount: count(),
    failedAmount: money(),
  },
});
export class PaymentsHourly extends PaymentsHourlySchema.class {}
PaymentsHourlySchema.setClass(PaymentsHourly);

const searchColumns = () => ({
  searches: count(),
  zeroResultSearches: count(),
  followedByAdd: count(),
  followedByOrder: count(),
});

const SearchesDailySchema = defineEntity({
  name: 'SearchesDaily',
  tableName: 'insights_searches_daily',
  properties: { storeId: store(), day: day(), query: key(), ...searchColumns() },
});
export class SearchesDaily extends SearchesDailySchema.class {}
SearchesDailySchema.setClass(SearchesDaily);

const SearchesMonthlySchema = defineEntity({
  name: 'SearchesMonthly',
  tableName: 'insights_searches_monthly',
  properties: { storeId: store(), month: month(), query: key(), ...searchColumns() },
});
export class SearchesMonthly extends SearchesMonthlySchema.class {}
SearchesMonthlySchema.setClass(SearchesMonthly);

const SearchesHourlySchema = defineEntity({
  name: 'SearchesHourly',
  tableName: 'insights_searches_hourly',
  properties: { storeId: store(), hour: hour(), ...searchColumns() },
});
export class SearchesHourly extends SearchesHourlySchema.class {}
SearchesHourlySchema.setClass(SearchesHourly);

const SearchCreditSchema = defineEntity({
  name: 'SearchCredit',
  tableName: 'insights_search_credits',
  indexes: [{ properties: ['storeId'] }],
  properties: {
    searchId: p.uuid().primary(),
    kind: key(),
    storeId: p.uuid(),
  },
});
export class SearchCredit extends SearchCreditSchema.class {}
SearchCreditSchema.setClass(SearchCredit);

const FunnelHourlySchema = defineEntity({
  name: 'FunnelHourly',
  tableName: 'insights_funnel_hourly',
  properties: {
    storeId: store(),
    hour: hour(),
    sessions: count(),
    productViewed: count(),
    addedToCart: count(),
    reachedCheckout: count(),
    ordered: count(),
  },
});
export class FunnelHourly extends FunnelHourlySchema.class {}
FunnelHourlySchema.setClass(FunnelHourly);

/**
 * What the funnel has counted of a session that went beyond starting (steps as bits: 1 started,
 * 2 viewed a product, 4 added to its cart, 8 reached checkout, 16 ordered), and the hour it counts in.
 */
const FunnelSessionSchema = defineEntity({
  name: 'FunnelSession',
  tableName: 'insights_funnel_sessions',
  indexes: [{ properties: ['storeId'] }],
  properties: {
    sessionId: p.uuid().primary(),
    storeId: p.uuid(),
    startedHour: p.datetime().columnType('timestamp'),
    steps: p.integer().default(0),
  },
});
export class FunnelSession extends FunnelSessionSchema.class {}
FunnelSessionSchema.setClass(FunnelSession);

export const ROLLUP_ENTITIES = [
  SalesDaily,
  SalesHourly,
  SalesMonthly,
  SalesTotalsDaily,
  ProductsDaily,
  ProductsMonthly,
  CustomersDaily,
  CohortsMonthly,
  InsightsCustomer,
  CustomerTotals,
  CustomerSalesDaily,
  FulfilmentHourly,
  PaymentsHourly,
  SearchesDaily,
  SearchesMonthly,
  SearchesHourly,
  SearchCredit,
  FunnelHourly,
  FunnelSession,
];
