import type { Bilingual } from '../../common/bilingual.js';
import { viewPermission, type InsightsArea, type Permission } from '../../common/permissions.js';
import type { Direction } from './directions.js';
import type { MeasureType } from './measures.js';

/**
 * The sixteen built-in reports (interface part 2, contract sections 7 and 8): the area whose view
 * permission reads each, the measures of its headline totals, of its time series and of its table,
 * and the table's dimensions. Most tables are measures split by dimensions; five are shaped by the
 * report itself (`table.kind`).
 */

export const REPORT_NAMES = [
  'overview',
  'products',
  'variants',
  'categories',
  'brands',
  'not_selling',
  'customers',
  'cohorts',
  'top_customers',
  'customer_groups',
  'fulfilment',
  'late_orders',
  'payments',
  'tax',
  'funnel',
  'searches',
] as const;
export type ReportName = (typeof REPORT_NAMES)[number];

export type ReportTable =
  | { kind: 'none' }
  /**
   * Measures split by dimensions; `grain` adds the range's time grain as the first dimension. Rows are
   * sorted by `sort` (largest first when `descending`), else in the order of their dimensions.
   */
  | { kind: 'split'; dimensions: string[]; grain?: boolean; measures: string[]; sort?: string; descending?: boolean }
  | { kind: 'not_selling' | 'late_orders' | 'funnel' | 'customer_groups' | 'cohorts' };

export interface ReportDef {
  name: ReportName;
  area: InsightsArea;
  title: Bilingual;
  totals: string[];
  series: string[];
  table: ReportTable;
}

/** Columns some reports' tables have that are not measures of the builder. */
export interface ReportColumn {
  name: string;
  type: MeasureType | 'text' | 'date';
  direction: Direction;
  label: Bilingual;
  description: Bilingual;
  reports: ReportName[];
}

const SALES = ['gross_sales', 'discounts', 'returns', 'net_sales', 'shipping', 'taxes', 'total_sales', 'orders', 'average_order_value'];
const PRODUCT_ROW = ['net_sales', 'gross_sales', 'returns', 'units_sold', 'units_returned', 'net_units', 'return_rate', 'orders'];
export const CUSTOMER_ROW = ['customers', 'orders', 'net_sales', 'average_order_value'];
const FULFILMENT = [
  'shipped_orders',
  'average_time_to_ship',
  'delivered_orders',
  'average_time_to_deliver',
  'ready_orders',
  'average_time_to_ready',
  'promised_orders',
  'late_orders',
  'on_time_rate',
];
const PAYMENTS = ['captured', 'authorised', 'refunded', 'voided', 'failed'].flatMap((event) => [`${event}_payments`, `${event}_amount`]);
const TAX = ['taxable_sales', 'taxes_collected', 'taxes_refunded', 'taxes'];
const FUNNEL = [
  'sessions',
  'sessions_with_product_view',
  'sessions_with_cart_addition',
  'sessions_reaching_checkout',
  'sessions_with_order',
  'conversion_rate',
];
const SEARCHES = [
  'searches',
  'zero_result_searches',
  'zero_result_rate',
  'searches_followed_by_add',
  'searches_followed_by_order',
  'search_add_rate',
];

const byProduct = (dimension: string): ReportTable => ({
  kind: 'split',
  dimensions: [dimension],
  measures: PRODUCT_ROW,
  sort: 'net_sales',
  descending: true,
});

export const REPORTS: Record<ReportName, ReportDef> = {
  overview: {
    name: 'overview',
    area: 'sales',
    title: { en: 'Overview', ar: 'نظرة عامة' },
    totals: [...SALES, 'units_sold', 'customers', 'new_customers', 'returning_customer_rate'],
    series: ['net_sales', 'total_sales', 'orders', 'average_order_value', 'customers', 'returning_customer_rate'],
    table: { kind: 'none' },
  },
  products: {
    name: 'products',
    area: 'products',
    title: { en: 'Sales by product', ar: 'المبيعات حسب المنتج' },
    totals: PRODUCT_ROW,
    series: ['net_sales', 'units_sold'],
    table: byProduct('product'),
  },
  variants: {
    name: 'variants',
    area: 'products',
    title: { en: 'Sales by variant', ar: 'المبيعات حسب الخيار' },
    totals: PRODUCT_ROW,
    series: ['net_sales', 'units_sold'],
    table: byProduct('variant'),
  },
  categories: {
    name: 'categories',
    area: 'products',
    title: { en: 'Sales by category', ar: 'المبيعات حسب الفئة' },
    totals: PRODUCT_ROW,
    series: ['net_sales', 'units_sold'],
    table: byProduct('category'),
  },
  brands: {
    name: 'brands',
    area: 'products',
    title: { en: 'Sales by brand', ar: 'المبيعات حسب العلامة التجارية' },
    totals: PRODUCT_ROW,
    series: ['net_sales', 'units_sold'],
    table: byProduct('brand'),
  },
  not_selling: {
    name: 'not_selling',
    area: 'products',
    title: { en: 'Products not selling', ar: 'منتجات لا تُباع' },
    totals: [],
    series: [],
    table: { kind: 'not_selling' },
  },
  customers: {
    name: 'customers',
    area: 'customers',
    title: { en: 'New and returning customers', ar: 'العملاء الجدد والعائدون' },
    totals: ['customers', 'new_customers', 'returning_customers', 'returning_customer_rate', 'orders', 'net_sales', 'average_order_value'],
    series: ['customers', 'new_customers', 'returning_customers'],
    table: { kind: 'split', dimensions: ['customer_type'], measures: CUSTOMER_ROW, sort: 'customers', descending: true },
  },
  cohorts: {
    name: 'cohorts',
    area: 'customers',
    title: { en: 'Customer cohorts', ar: 'أفواج العملاء' },
    totals: ['new_customers', 'customers'],
    series: ['new_customers'],
    table: { kind: 'cohorts' },
  },
  top_customers: {
    name: 'top_customers',
    area: 'customers',
    title: { en: 'Top customers', ar: 'أفضل العملاء' },
    totals: ['customers', 'orders', 'net_sales', 'average_order_value'],
    series: ['customers', 'net_sales'],
    table: {
      kind: 'split',
      dimensions: ['customer'],
      measures: ['net_sales', 'orders', 'average_order_value', 'gross_sales', 'returns'],
      sort: 'net_sales',
      descending: true,
    },
  },
  customer_groups: {
    name: 'customer_groups',
    area: 'customers',
    title: { en: 'Customer groups', ar: 'مجموعات العملاء' },
    totals: CUSTOMER_ROW,
    series: ['customers'],
    table: { kind: 'customer_groups' },
  },
  fulfilment: {
    name: 'fulfilment',
    area: 'fulfilment',
    title: { en: 'Fulfilment times', ar: 'أوقات التسليم' },
    totals: FULFILMENT,
    series: ['average_time_to_ship', 'average_time_to_deliver', 'late_orders'],
    table: {
      kind: 'split',
      dimensions: ['fulfilment_type', 'shipping_method'],
      measures: FULFILMENT,
      sort: 'delivered_orders',
      descending: true,
    },
  },
  late_orders: {
    name: 'late_orders',
    area: 'fulfilment',
    title: { en: 'Late orders', ar: 'الطلبات المتأخرة' },
    totals: ['promised_orders', 'late_orders', 'on_time_rate'],
    series: ['late_orders', 'on_time_rate'],
    table: { kind: 'late_orders' },
  },
  payments: {
    name: 'payments',
    area: 'finance',
    title: { en: 'Payments', ar: 'المدفوعات' },
    totals: PAYMENTS,
    series: ['captured_amount', 'refunded_amount', 'failed_payments'],
    table: { kind: 'split', dimensions: ['payment_method'], measures: PAYMENTS, sort: 'captured_amount', descending: true },
  },
  tax: {
    name: 'tax',
    area: 'finance',
    title: { en: 'Taxes', ar: 'الضرائب' },
    totals: TAX,
    series: ['taxes'],
    // by period, as a tax return reads them
    table: { kind: 'split', dimensions: ['tax_rate'], grain: true, measures: TAX },
  },
  funnel: {
    name: 'funnel',
    area: 'behaviour',
    title: { en: 'Conversion funnel', ar: 'مسار التحويل' },
    totals: FUNNEL,
    series: ['sessions', 'conversion_rate'],
    table: { kind: 'funnel' },
  },
  searches: {
    name: 'searches',
    area: 'behaviour',
    title: { en: 'Searches', ar: 'عمليات البحث' },
    totals: SEARCHES,
    series: ['searches', 'zero_result_searches'],
    table: { kind: 'split', dimensions: ['query'], measures: SEARCHES, sort: 'searches', descending: true },
  },
};

export function reportPermission(report: ReportName): Permission {
  return viewPermission(REPORTS[report].area);
}

/** The table columns of the reports shaped by themselves that are not measures of the builder. */
/** The late-orders table's `status` (an order's fulfilment status) as a merchant reads it. */
export const FULFILMENT_STATUS_LABELS: Record<string, Bilingual> = {
  unfulfilled: { en: 'Not yet fulfilled', ar: 'لم يُنفَّذ بعد' },
  ready_for_pickup: { en: 'Ready for pickup', ar: 'جاهز للاستلام' },
  shipped: { en: 'Shipped', ar: 'تم الشحن' },
  delivered: { en: 'Delivered', ar: 'تم التسليم' },
  returned: { en: 'Returned', ar: 'مُرتجع' },
  cancelled: { en: 'Cancelled', ar: 'ملغى' },
};

export const REPORT_COLUMNS: readonly ReportColumn[] = [
  {
    name: 'stock',
    type: 'count',
    direction: 'neutral',
    label: { en: 'In stock', ar: 'المخزون' },
    description: { en: 'Units in stock now, all variants.', ar: 'الوحدات المتوفرة الآن، لكل الخيارات.' },
    reports: ['not_selling'],
  },
  {
    name: 'last_sold_on',
    type: 'date',
    direction: 'neutral',
    label: { en: 'Last sold', ar: 'آخر بيع' },
    description: {
      en: 'The last day it sold, or “Never sold” for a product never sold in the store’s history.',
      ar: 'آخر يوم بيع فيه، أو «لم يُبع قط» للمنتج الذي لم يُبع قط في تاريخ المتجر.',
    },
    reports: ['not_selling'],
  },
  {
    name: 'days_since_last_sale',
    type: 'count',
    direction: 'lower_is_better',
    label: { en: 'Days since last sale', ar: 'أيام منذ آخر بيع' },
    description: {
      en: 'Days from the last sale to today; none for a product never sold, which counts as the longest unsold.',
      ar: 'الأيام من آخر بيع حتى اليوم؛ ولا أيام للمنتج الذي لم يُبع قط، ويُعدّ الأطول دون بيع.',
    },
    reports: ['not_selling'],
  },
  {
    name: 'products_not_selling',
    type: 'count',
    direction: 'lower_is_better',
    label: { en: 'Products not selling', ar: 'منتجات لا تُباع' },
    description: { en: 'Active products with stock that sold nothing in the range.', ar: 'منتجات نشطة متوفرة لم يُبع منها شيء في النطاق.' },
    reports: ['not_selling'],
  },
  {
    name: 'open_past_promise',
    type: 'count',
    direction: 'lower_is_better',
    label: { en: 'Open past their promise', ar: 'مفتوحة بعد موعدها' },
    description: {
      en: 'Orders due in the range, still not delivered (or ready for pickup) now.',
      ar: 'طلبات مستحقة في النطاق لم تُسلَّم (أو تُجهّز للاستلام) حتى الآن.',
    },
    reports: ['late_orders'],
  },
  {
    name: 'placed_at',
    type: 'date',
    direction: 'neutral',
    label: { en: 'Placed', ar: 'وقت الطلب' },
    description: { en: 'When the order was placed.', ar: 'وقت تقديم الطلب.' },
    reports: ['late_orders'],
  },
  {
    name: 'promised_by',
    type: 'date',
    direction: 'neutral',
    label: { en: 'Promised by', ar: 'الموعد الموعود' },
    description: { en: 'When delivery (or pickup readiness) was promised.', ar: 'الموعد الموعود للتوصيل (أو للتجهيز للاستلام).' },
    reports: ['late_orders'],
  },
  {
    name: 'fulfilled_at',
    type: 'date',
    direction: 'neutral',
    label: { en: 'Fulfilled', ar: 'وقت التسليم' },
    description: {
      en: 'When it was delivered (or made ready for pickup); empty while open.',
      ar: 'وقت التسليم (أو التجهيز للاستلام)؛ فارغ ما دام مفتوحًا.',
    },
    reports: ['late_orders'],
  },
  {
    name: 'status',
    type: 'text',
    direction: 'neutral',
    label: { en: 'Status', ar: 'الحالة' },
    description: { en: 'The order’s fulfilment status now.', ar: 'حالة تسليم الطلب الآن.' },
    reports: ['late_orders'],
  },
  {
    name: 'late_by',
    type: 'duration',
    direction: 'lower_is_better',
    label: { en: 'Late by', ar: 'مدة التأخير' },
    description: {
      en: 'Seconds past the promise: until fulfilment, or until now while still open.',
      ar: 'الثواني بعد الموعد: حتى التسليم، أو حتى الآن إن كان لا يزال مفتوحًا.',
    },
    reports: ['late_orders'],
  },
  {
    name: 'step_sessions',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Sessions', ar: 'الجلسات' },
    description: { en: 'Sessions that reached the step.', ar: 'الجلسات التي بلغت الخطوة.' },
    reports: ['funnel'],
  },
  {
    name: 'step_conversion',
    type: 'ratio',
    direction: 'higher_is_better',
    label: { en: 'From previous step', ar: 'من الخطوة السابقة' },
    description: { en: 'Sessions at the step ÷ sessions at the step before.', ar: 'الجلسات في الخطوة ÷ الجلسات في الخطوة السابقة.' },
    reports: ['funnel'],
  },
  {
    name: 'overall_conversion',
    type: 'ratio',
    direction: 'higher_is_better',
    label: { en: 'From start', ar: 'من البداية' },
    description: { en: 'Sessions at the step ÷ all sessions.', ar: 'الجلسات في الخطوة ÷ كل الجلسات.' },
    reports: ['funnel'],
  },
];

/** Row dimensions of the reports shaped by themselves. */
export const REPORT_DIMENSIONS: Record<string, { label: Bilingual }> = {
  order: { label: { en: 'Order', ar: 'الطلب' } },
  step: { label: { en: 'Step', ar: 'الخطوة' } },
  group: { label: { en: 'Group', ar: 'المجموعة' } },
};
