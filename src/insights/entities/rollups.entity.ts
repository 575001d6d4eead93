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

const salesColumns = () => ({
  paymentMethod: key(),
  fulfilmentType: key(),
  shippingMethod: key(),
  customerType: key(),
  customerKind: key(),
  locale: key(),
  taxRateBps: p.integer().primary(),
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

const ProductsDailySchema = defineEntity({
  name: 'ProductsDaily',
  tableName: 'insights_products_daily',
  indexes: [{ name: 'insights_products_daily_last_sale_index', properties: ['storeId', 'productId', 'day'] }],
  properties: {
    storeId: store(),
    day: day(),
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
  },
});
export class ProductsDaily extends ProductsDailySchema.class {}
ProductsDailySchema.setClass(ProductsDaily);

const CustomersDailySchema = defineEntity({
  name: 'CustomersDaily',
  tableName: 'insights_customers_daily',
  properties: {
    storeId: store(),
    grouping: key(),
    day: day(),
    groupValue: key(),
    prevDay: p.date().primary(),
    orders: count(),
    firstOrders: count(),
    secondOrders: count(),
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

const CustomerSalesDailySchema = defineEntity({
  name: 'CustomerSalesDaily',
  tableName: 'insights_customer_sales_daily',
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
  ProductsDaily,
  CustomersDaily,
  CohortsMonthly,
  InsightsCustomer,
  CustomerSalesDaily,
  FulfilmentHourly,
  PaymentsHourly,
  SearchesDaily,
  SearchesHourly,
  SearchCredit,
  FunnelHourly,
  FunnelSession,
];
