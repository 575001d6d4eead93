import { sql, type RawBuilder } from 'kysely';
import type { Bilingual } from '../../common/bilingual.js';
import type { InsightsArea } from '../../common/permissions.js';
import type { SourceName } from './sources.js';
import type { Direction } from './directions.js';

/**
 * Every measure, declared once: what it means (in both languages) and how it is read from each
 * source that has it, as one SQL aggregate over rollup rows `t`. Reports and the builder both read
 * measures from here. Money is in minor units without tax; durations are seconds; ratios are 0..1,
 * and null (not 0) where their denominator is 0.
 */

export type MeasureType = 'money' | 'count' | 'ratio' | 'duration';

export interface MeasureContext {
  /** Every dimension the query splits or filters by. */
  used: ReadonlySet<string>;
  /** The first day counted in the row's period (the range's first day for totals), as a SQL date. */
  periodStart: RawBuilder<unknown>;
}

export interface MeasureDef {
  name: string;
  area: InsightsArea;
  type: MeasureType;
  direction: Direction;
  label: Bilingual;
  description: Bilingual;
  in: Partial<Record<SourceName, (context: MeasureContext) => RawBuilder<unknown>>>;
  /** Dimensions it must be split by to mean anything. */
  requires?: string[];
  /** An average: over nothing it is null, not 0. */
  average?: boolean;
}

/** A measure's value where nothing happened: 0 for sums, null for ratios and averages. */
export function emptyValueOf(measure: MeasureDef): number | null {
  return (measure.type === 'money' || measure.type === 'count') && !measure.average ? 0 : null;
}

const total = (column: string) => () => sql.raw(`coalesce(sum(t.${column}), 0)`);
const ratio = (numerator: string, denominator: string) => () => sql.raw(`sum(${numerator})::float8 / nullif(sum(${denominator}), 0)`);
const average = (seconds: string, count: string) => () => sql.raw(`round(sum(t.${seconds})::numeric / nullif(sum(t.${count}), 0))`);

const NET_SALES = 't.gross_sales - t.discounts - t.returns';
const PRODUCT_NET_SALES = 't.gross_sales - t.returns';

/**
 * Orders that contained the row's variant (product, category, brand): each order once per group of
 * the finest level the query uses. A variant belongs to one product and a product to one category
 * and brand, so only category and brand together need a level of their own.
 */
function productOrders(context: MeasureContext): RawBuilder<unknown> {
  const used = (name: string) => context.used.has(name);
  const level = used('variant')
    ? 'variant'
    : used('product')
      ? 'product'
      : used('category') && used('brand')
        ? 'category_brand'
        : used('category')
          ? 'category'
          : used('brand')
            ? 'brand'
            : 'product';
  return sql.raw(`coalesce(sum(t.${level}_orders), 0)`);
}

/**
 * Distinct customers, from a day's row of the customers rollup (`insights_customers_daily`): an order
 * counts its customer in a period starting on S when its previous order (in the grouping) is before
 * S, i.e. when it has none or its gap back is more than day − S days. `repeat_gaps[i]` counts the
 * repeat orders with a gap of at most i − 1 days (its last count repeated beyond its end).
 */
function gapsWithin(column: 'repeat_gaps' | 'second_gaps', context: MeasureContext): RawBuilder<unknown> {
  return sql`coalesce(${sql.ref(`t.${column}`)}[least(t.day - ${context.periodStart} + 1, cardinality(${sql.ref(`t.${column}`)}))], 0)`;
}

/** The period's distinct customers of a day's row. */
function customersOfRow(context: MeasureContext): RawBuilder<unknown> {
  return sql`(t.orders - ${gapsWithin('repeat_gaps', context)})`;
}

/**
 * The period's returning customers of a day's row: those with an order that is not their first of all
 * whose previous one (in the grouping) is before the period, or with their second order (in the
 * grouping) in it, the first being their first of all and in the period too.
 */
function returningOfRow(context: MeasureContext): RawBuilder<unknown> {
  return sql`(t.orders - t.first_orders - ${gapsWithin('repeat_gaps', context)} + ${gapsWithin('second_gaps', context)})`;
}

/**
 * Split by customer type, each day's row stands for a row of new customers (their first orders) and a
 * row of returning ones; a customer with a first and a repeat order in the period is in both.
 */
function byCustomerType(
  context: MeasureContext,
  figures: { whole: RawBuilder<unknown>; new: RawBuilder<unknown>; returning: RawBuilder<unknown> },
): RawBuilder<unknown> {
  const row = context.used.has('customer_type')
    ? sql`case customer_type.value when 'new' then ${figures.new} else ${figures.returning} end`
    : figures.whole;
  return sql`coalesce(sum(${row}), 0)`;
}

/**
 * Read from the orders themselves (the `buyers` source: each placed order line with its order's
 * customer and type), the same customers are counted as themselves: every customer with an order in
 * the row, new ones by their first order of all, returning ones by any other. The records path test
 * proves these equal the rollups' counts.
 */
const distinctCustomers = (where?: string) => () => sql.raw(`count(distinct t.customer_id)${where ? ` filter (where ${where})` : ''}`);

function customers(context: MeasureContext): RawBuilder<unknown> {
  return byCustomerType(context, { whole: customersOfRow(context), new: sql`t.first_orders`, returning: returningOfRow(context) });
}

function newCustomers(context: MeasureContext): RawBuilder<unknown> {
  return byCustomerType(context, { whole: sql`t.first_orders`, new: sql`t.first_orders`, returning: sql`0` });
}

function returningCustomers(context: MeasureContext): RawBuilder<unknown> {
  return byCustomerType(context, { whole: returningOfRow(context), new: sql`0`, returning: returningOfRow(context) });
}

export const MEASURES: readonly MeasureDef[] = [
  // --- sales ---
  {
    name: 'orders',
    area: 'sales',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Orders', ar: 'الطلبات' },
    description: {
      en: 'Orders placed, cancelled ones included, on the day they were placed. Split by product, the orders that contained it.',
      ar: 'الطلبات المقدّمة، ومنها الملغاة، في يوم تقديمها. وعند التقسيم حسب المنتج: الطلبات التي احتوته.',
    },
    in: { sales: total('orders'), products: productOrders, customer_sales: total('orders') },
  },
  {
    name: 'gross_sales',
    area: 'sales',
    type: 'money',
    direction: 'higher_is_better',
    label: { en: 'Gross sales', ar: 'إجمالي المبيعات' },
    description: {
      en: 'Unit price × quantity of the goods ordered, before discounts, without tax and shipping, on the day of the order.',
      ar: 'سعر الوحدة × الكمية للبضائع المطلوبة، قبل الخصومات ودون الضريبة والشحن، في يوم الطلب.',
    },
    in: { sales: total('gross_sales'), products: total('gross_sales'), customer_sales: total('gross_sales') },
  },
  {
    name: 'discounts',
    area: 'sales',
    type: 'money',
    direction: 'neutral',
    label: { en: 'Discounts', ar: 'الخصومات' },
    description: { en: 'Order discounts, without tax, on the day of the order.', ar: 'خصومات الطلبات، دون الضريبة، في يوم الطلب.' },
    in: { sales: total('discounts'), customer_sales: total('discounts') },
  },
  {
    name: 'returns',
    area: 'sales',
    type: 'money',
    direction: 'lower_is_better',
    label: { en: 'Returns', ar: 'المرتجعات' },
    description: {
      en: 'The value of returned goods without tax, on the day of the refund (not of the order). A cancelled order is returned in full on the day it was cancelled.',
      ar: 'قيمة البضائع المرتجعة دون الضريبة، في يوم الاسترداد (لا يوم الطلب). ويُعدّ الطلب الملغى مرتجعًا بالكامل في يوم إلغائه.',
    },
    in: { sales: total('returns'), products: total('returns'), customer_sales: total('returns') },
  },
  {
    name: 'net_sales',
    area: 'sales',
    type: 'money',
    direction: 'higher_is_better',
    label: { en: 'Net sales', ar: 'صافي المبيعات' },
    description: { en: 'Gross sales − discounts − returns.', ar: 'إجمالي المبيعات − الخصومات − المرتجعات.' },
    in: {
      sales: () => sql.raw(`coalesce(sum(${NET_SALES}), 0)`),
      products: () => sql.raw(`coalesce(sum(${PRODUCT_NET_SALES}), 0)`),
      customer_sales: () => sql.raw(`coalesce(sum(${NET_SALES}), 0)`),
    },
  },
  {
    name: 'shipping',
    area: 'sales',
    type: 'money',
    direction: 'neutral',
    label: { en: 'Shipping', ar: 'الشحن' },
    description: {
      en: 'Shipping charged, without tax, minus shipping refunded (on the day of the refund).',
      ar: 'رسوم الشحن المحصّلة دون الضريبة، مطروحًا منها المسترد منها (في يوم الاسترداد).',
    },
    in: { sales: total('shipping') },
  },
  {
    name: 'taxes',
    area: 'sales',
    type: 'money',
    direction: 'neutral',
    label: { en: 'Taxes', ar: 'الضرائب' },
    description: { en: 'Tax charged minus tax refunded.', ar: 'الضريبة المحصّلة مطروحًا منها الضريبة المستردة.' },
    in: { sales: () => sql.raw('coalesce(sum(t.taxes_collected - t.taxes_refunded), 0)') },
  },
  {
    name: 'total_sales',
    area: 'sales',
    type: 'money',
    direction: 'higher_is_better',
    label: { en: 'Total sales', ar: 'إجمالي المبيعات الكلي' },
    description: { en: 'Net sales + shipping + taxes.', ar: 'صافي المبيعات + الشحن + الضرائب.' },
    in: { sales: () => sql.raw(`coalesce(sum(${NET_SALES} + t.shipping + t.taxes_collected - t.taxes_refunded), 0)`) },
  },
  {
    name: 'average_order_value',
    area: 'sales',
    type: 'money',
    direction: 'higher_is_better',
    average: true,
    label: { en: 'Average order value', ar: 'متوسط قيمة الطلب' },
    description: { en: '(Gross sales − discounts) ÷ orders.', ar: '(إجمالي المبيعات − الخصومات) ÷ الطلبات.' },
    in: {
      sales: () => sql.raw('round(sum(t.gross_sales - t.discounts)::numeric / nullif(sum(t.orders), 0))'),
      customer_sales: () => sql.raw('round(sum(t.gross_sales - t.discounts)::numeric / nullif(sum(t.orders), 0))'),
    },
  },
  {
    name: 'cancelled_orders',
    area: 'sales',
    type: 'count',
    direction: 'lower_is_better',
    label: { en: 'Cancelled orders', ar: 'الطلبات الملغاة' },
    description: { en: 'Orders cancelled, on the day they were cancelled.', ar: 'الطلبات الملغاة، في يوم إلغائها.' },
    in: { sales: total('cancelled_orders') },
  },
  // --- products ---
  {
    name: 'units_sold',
    area: 'products',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Units sold', ar: 'الوحدات المباعة' },
    description: { en: 'Units ordered, on the day of the order.', ar: 'الوحدات المطلوبة، في يوم الطلب.' },
    in: { sales: total('units_sold'), products: total('units_sold') },
  },
  {
    name: 'units_returned',
    area: 'products',
    type: 'count',
    direction: 'lower_is_better',
    label: { en: 'Units returned', ar: 'الوحدات المرتجعة' },
    description: {
      en: 'Units returned (or cancelled), on the day of the refund or cancellation.',
      ar: 'الوحدات المرتجعة (أو الملغاة)، في يوم الاسترداد أو الإلغاء.',
    },
    in: { sales: total('units_returned'), products: total('units_returned') },
  },
  {
    name: 'net_units',
    area: 'products',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Net units', ar: 'صافي الوحدات' },
    description: { en: 'Units sold − units returned.', ar: 'الوحدات المباعة − الوحدات المرتجعة.' },
    in: {
      sales: () => sql.raw('coalesce(sum(t.units_sold - t.units_returned), 0)'),
      products: () => sql.raw('coalesce(sum(t.units_sold - t.units_returned), 0)'),
    },
  },
  {
    name: 'return_rate',
    area: 'products',
    type: 'ratio',
    direction: 'lower_is_better',
    label: { en: 'Return rate', ar: 'نسبة الإرجاع' },
    description: { en: 'Units returned ÷ units sold.', ar: 'الوحدات المرتجعة ÷ الوحدات المباعة.' },
    in: { sales: ratio('t.units_returned', 't.units_sold'), products: ratio('t.units_returned', 't.units_sold') },
  },
  // --- customers ---
  {
    name: 'customers',
    area: 'customers',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Customers', ar: 'العملاء' },
    description: {
      en: 'Distinct customers (email addresses) who placed an order. Split by customer type, a customer with a first and a repeat order in the period is in both.',
      ar: 'العملاء المختلفون (عناوين البريد) الذين قدّموا طلبًا. وعند التقسيم حسب نوع العميل، يظهر العميل الذي له طلب أول وطلب متكرر في الفترة في النوعين.',
    },
    in: { customers: customers, buyers: distinctCustomers() },
  },
  {
    name: 'new_customers',
    area: 'customers',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'New customers', ar: 'العملاء الجدد' },
    description: { en: 'Customers whose first order was placed in the period.', ar: 'العملاء الذين قدّموا أول طلب لهم في الفترة.' },
    in: { customers: newCustomers, buyers: distinctCustomers("t.customer_type = 'new'") },
  },
  {
    name: 'returning_customers',
    area: 'customers',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Returning customers', ar: 'العملاء العائدون' },
    description: {
      en: 'Customers with an order in the period who had ordered before (before the period, or earlier in it).',
      ar: 'العملاء الذين لديهم طلب في الفترة وسبق أن طلبوا من قبل (قبل الفترة أو في وقت سابق منها).',
    },
    in: { customers: returningCustomers, buyers: distinctCustomers("t.customer_type = 'returning'") },
  },
  {
    name: 'returning_customer_rate',
    area: 'customers',
    type: 'ratio',
    direction: 'higher_is_better',
    label: { en: 'Returning customer rate', ar: 'نسبة العملاء العائدين' },
    description: {
      en: 'Returning customers ÷ customers: the share of the period’s customers who have placed more than one order. Split or filtered by customer type, of that type’s customers.',
      ar: 'العملاء العائدون ÷ العملاء: نسبة عملاء الفترة الذين قدّموا أكثر من طلب. وعند التقسيم أو التصفية حسب نوع العميل: من عملاء ذلك النوع.',
    },
    in: {
      customers: (context) => sql`${returningCustomers(context)}::float8 / nullif(${customers(context)}, 0)`,
      buyers: () =>
        sql.raw(
          `count(distinct t.customer_id) filter (where t.customer_type = 'returning')::float8 / nullif(count(distinct t.customer_id), 0)`,
        ),
    },
  },
  {
    name: 'cohort_customers',
    area: 'customers',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Active customers', ar: 'العملاء النشطون' },
    description: {
      en: 'Customers of the cohort who placed an order in the month.',
      ar: 'عملاء الفوج الذين قدّموا طلبًا في الشهر.',
    },
    in: { cohorts: total('customers') },
  },
  {
    name: 'retention_rate',
    area: 'customers',
    type: 'ratio',
    direction: 'higher_is_better',
    label: { en: 'Retention', ar: 'نسبة الاحتفاظ' },
    description: {
      en: 'Active customers ÷ the cohort’s customers (those whose first order was in the cohort’s month).',
      ar: 'العملاء النشطون ÷ عملاء الفوج (الذين كان أول طلب لهم في شهر الفوج).',
    },
    requires: ['cohort', 'months_since'],
    in: {
      cohorts: () =>
        sql`sum(t.customers)::float8 / nullif(sum((
              select size.customers from insights_cohorts_monthly size
              where size.store_id = t.store_id and size.cohort_month = t.cohort_month and size.month = t.cohort_month)), 0)`,
    },
  },
  {
    name: 'cohort_orders',
    area: 'customers',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Cohort orders', ar: 'طلبات الفوج' },
    description: { en: 'Orders the cohort’s customers placed in the month.', ar: 'الطلبات التي قدّمها عملاء الفوج في الشهر.' },
    in: { cohorts: total('orders') },
  },
  {
    name: 'cohort_net_sales',
    area: 'customers',
    type: 'money',
    direction: 'higher_is_better',
    label: { en: 'Cohort net sales', ar: 'صافي مبيعات الفوج' },
    description: {
      en: 'Net sales of the cohort’s customers in the month (returns on the month of the refund).',
      ar: 'صافي مبيعات عملاء الفوج في الشهر (المرتجعات في شهر الاسترداد).',
    },
    in: { cohorts: () => sql.raw('coalesce(sum(t.gross_sales - t.returns), 0)') },
  },
  // --- fulfilment ---
  {
    name: 'shipped_orders',
    area: 'fulfilment',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Orders shipped', ar: 'الطلبات المشحونة' },
    description: { en: 'Delivery orders shipped, on the day they shipped.', ar: 'طلبات التوصيل المشحونة، في يوم شحنها.' },
    in: { fulfilment: total('shipped_orders') },
  },
  {
    name: 'average_time_to_ship',
    area: 'fulfilment',
    type: 'duration',
    direction: 'lower_is_better',
    label: { en: 'Average time to ship', ar: 'متوسط مدة الشحن' },
    description: { en: 'Seconds from placement to shipment, averaged.', ar: 'متوسط الثواني من تقديم الطلب حتى شحنه.' },
    in: { fulfilment: average('ship_seconds', 'shipped_orders') },
  },
  {
    name: 'delivered_orders',
    area: 'fulfilment',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Orders delivered', ar: 'الطلبات المسلّمة' },
    description: {
      en: 'Orders delivered or collected, on the day they were.',
      ar: 'الطلبات المسلّمة أو المستلمة، في يوم تسليمها.',
    },
    in: { fulfilment: total('delivered_orders') },
  },
  {
    name: 'average_time_to_deliver',
    area: 'fulfilment',
    type: 'duration',
    direction: 'lower_is_better',
    label: { en: 'Average time to deliver', ar: 'متوسط مدة التسليم' },
    description: {
      en: 'Seconds from placement to delivery (or collection), averaged.',
      ar: 'متوسط الثواني من تقديم الطلب حتى تسليمه (أو استلامه).',
    },
    in: { fulfilment: average('deliver_seconds', 'delivered_orders') },
  },
  {
    name: 'ready_orders',
    area: 'fulfilment',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Orders ready for pickup', ar: 'الطلبات الجاهزة للاستلام' },
    description: { en: 'Pickup orders made ready, on the day they were.', ar: 'طلبات الاستلام التي جُهّزت، في يوم تجهيزها.' },
    in: { fulfilment: total('ready_orders') },
  },
  {
    name: 'average_time_to_ready',
    area: 'fulfilment',
    type: 'duration',
    direction: 'lower_is_better',
    label: { en: 'Average time to pickup-ready', ar: 'متوسط مدة التجهيز للاستلام' },
    description: { en: 'Seconds from placement to ready for pickup, averaged.', ar: 'متوسط الثواني من تقديم الطلب حتى جاهزيته للاستلام.' },
    in: { fulfilment: average('ready_seconds', 'ready_orders') },
  },
  {
    name: 'promised_orders',
    area: 'fulfilment',
    type: 'count',
    direction: 'neutral',
    label: { en: 'Orders due', ar: 'الطلبات المستحقة' },
    description: {
      en: 'Orders (not cancelled) whose delivery or pickup was promised for the day.',
      ar: 'الطلبات (غير الملغاة) التي وُعد بتوصيلها أو تجهيزها في ذلك اليوم.',
    },
    in: { fulfilment: total('promised_orders') },
  },
  {
    name: 'late_orders',
    area: 'fulfilment',
    type: 'count',
    direction: 'lower_is_better',
    label: { en: 'Late orders', ar: 'الطلبات المتأخرة' },
    description: {
      en: 'Orders due that day and delivered (or made ready for pickup) after the promise and the settings’ grace.',
      ar: 'الطلبات المستحقة في ذلك اليوم التي سُلّمت (أو جُهّزت للاستلام) بعد الموعد ومهلة الإعدادات.',
    },
    in: { fulfilment: total('late_orders') },
  },
  {
    name: 'on_time_rate',
    area: 'fulfilment',
    type: 'ratio',
    direction: 'higher_is_better',
    label: { en: 'On-time rate', ar: 'نسبة الالتزام بالموعد' },
    description: {
      en: 'Orders fulfilled by their promise and the settings’ grace ÷ orders fulfilled, by the day of the promise; orders still open are neither.',
      ar: 'الطلبات المسلّمة في موعدها ومهلة الإعدادات ÷ الطلبات المسلّمة، حسب يوم الموعد؛ والطلبات المفتوحة لا تُحسب في أيٍّ منهما.',
    },
    in: { fulfilment: () => sql.raw('sum(t.kept_orders)::float8 / nullif(sum(t.kept_orders + t.late_orders), 0)') },
  },
  // --- finance ---
  ...(
    [
      [
        'authorised',
        'higher_is_better',
        'Authorised',
        'المفوَّض',
        'Card payments authorised at checkout.',
        'مدفوعات البطاقات المفوَّضة عند الدفع.',
      ],
      [
        'captured',
        'higher_is_better',
        'Captured',
        'المحصَّل',
        'Payments taken: cards captured, cash collected.',
        'المدفوعات المحصّلة: البطاقات المسحوبة والنقد المستلم.',
      ],
      [
        'refunded',
        'lower_is_better',
        'Refunded',
        'المسترد',
        'Money paid back, cancellations included.',
        'المبالغ المعادة، ومنها الإلغاءات.',
      ],
      [
        'voided',
        'lower_is_better',
        'Voided',
        'الملغى',
        'Payments released unpaid when an order was cancelled.',
        'المدفوعات المحررة دون تحصيل عند إلغاء الطلب.',
      ],
      ['failed', 'lower_is_better', 'Failed', 'المرفوض', 'Card payments declined at checkout.', 'مدفوعات البطاقات المرفوضة عند الدفع.'],
    ] as const
  ).flatMap(([event, direction, en, ar, descriptionEn, descriptionAr]): MeasureDef[] => [
    {
      name: `${event}_payments`,
      area: 'finance',
      type: 'count',
      direction,
      label: { en: `${en} payments`, ar: `عدد المدفوعات ${ar}` },
      description: { en: `${descriptionEn} Counted on the day it happened.`, ar: `${descriptionAr} تُحسب في يوم حدوثها.` },
      in: { payments: total(`${event}_count`) },
    },
    {
      name: `${event}_amount`,
      area: 'finance',
      type: 'money',
      direction,
      label: { en: `${en} amount`, ar: `المبلغ ${ar}` },
      description: { en: `${descriptionEn} Tax included.`, ar: `${descriptionAr} شاملة الضريبة.` },
      in: { payments: total(`${event}_amount`) },
    },
  ]),
  {
    name: 'taxes_collected',
    area: 'finance',
    type: 'money',
    direction: 'neutral',
    label: { en: 'Tax collected', ar: 'الضريبة المحصّلة' },
    description: { en: 'Tax charged on orders, on the day of the order.', ar: 'الضريبة المفروضة على الطلبات، في يوم الطلب.' },
    in: { sales: total('taxes_collected') },
  },
  {
    name: 'taxes_refunded',
    area: 'finance',
    type: 'money',
    direction: 'lower_is_better',
    label: { en: 'Tax refunded', ar: 'الضريبة المستردة' },
    description: { en: 'Tax paid back with returns and cancellations.', ar: 'الضريبة المعادة مع المرتجعات والإلغاءات.' },
    in: { sales: total('taxes_refunded') },
  },
  {
    name: 'taxable_sales',
    area: 'finance',
    type: 'money',
    direction: 'neutral',
    label: { en: 'Taxable sales', ar: 'المبيعات الخاضعة للضريبة' },
    description: { en: 'Net sales + shipping, without tax.', ar: 'صافي المبيعات + الشحن، دون الضريبة.' },
    in: { sales: () => sql.raw(`coalesce(sum(${NET_SALES} + t.shipping), 0)`) },
  },
  // --- behaviour ---
  {
    name: 'sessions',
    area: 'behaviour',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Sessions', ar: 'الجلسات' },
    description: { en: 'Storefront sessions, in the hour they started.', ar: 'جلسات المتجر، في ساعة بدئها.' },
    in: { funnel: total('sessions') },
  },
  {
    name: 'sessions_with_product_view',
    area: 'behaviour',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Viewed a product', ar: 'شاهدوا منتجًا' },
    description: { en: 'Sessions that read a product’s details.', ar: 'الجلسات التي قرأت تفاصيل منتج.' },
    in: { funnel: total('product_viewed') },
  },
  {
    name: 'sessions_with_cart_addition',
    area: 'behaviour',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Added to cart', ar: 'أضافوا إلى السلة' },
    description: { en: 'Sessions that added a line to their cart.', ar: 'الجلسات التي أضافت بندًا إلى سلتها.' },
    in: { funnel: total('added_to_cart') },
  },
  {
    name: 'sessions_reaching_checkout',
    area: 'behaviour',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Reached checkout', ar: 'وصلوا إلى الدفع' },
    description: { en: 'Sessions that asked for a checkout quote.', ar: 'الجلسات التي طلبت عرض سعر للدفع.' },
    in: { funnel: total('reached_checkout') },
  },
  {
    name: 'sessions_with_order',
    area: 'behaviour',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Ordered', ar: 'قدّموا طلبًا' },
    description: { en: 'Sessions that placed an order.', ar: 'الجلسات التي قدّمت طلبًا.' },
    in: { funnel: total('ordered') },
  },
  {
    name: 'conversion_rate',
    area: 'behaviour',
    type: 'ratio',
    direction: 'higher_is_better',
    label: { en: 'Conversion rate', ar: 'معدل التحويل' },
    description: { en: 'Sessions that ordered ÷ sessions.', ar: 'الجلسات التي قدّمت طلبًا ÷ الجلسات.' },
    in: { funnel: ratio('t.ordered', 't.sessions') },
  },
  {
    name: 'searches',
    area: 'behaviour',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Searches', ar: 'عمليات البحث' },
    description: { en: 'Storefront searches.', ar: 'عمليات البحث في المتجر.' },
    in: { searches: total('searches') },
  },
  {
    name: 'zero_result_searches',
    area: 'behaviour',
    type: 'count',
    direction: 'lower_is_better',
    label: { en: 'Searches with no results', ar: 'عمليات بحث دون نتائج' },
    description: { en: 'Searches that found nothing.', ar: 'عمليات البحث التي لم تجد شيئًا.' },
    in: { searches: total('zero_result_searches') },
  },
  {
    name: 'zero_result_rate',
    area: 'behaviour',
    type: 'ratio',
    direction: 'lower_is_better',
    label: { en: 'No-result rate', ar: 'نسبة البحث دون نتائج' },
    description: { en: 'Searches with no results ÷ searches.', ar: 'عمليات البحث دون نتائج ÷ عمليات البحث.' },
    in: { searches: ratio('t.zero_result_searches', 't.searches') },
  },
  {
    name: 'searches_followed_by_add',
    area: 'behaviour',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Followed by an add-to-cart', ar: 'تلتها إضافة إلى السلة' },
    description: {
      en: 'Searches after which the session added to its cart within 30 minutes.',
      ar: 'عمليات البحث التي أضافت الجلسة بعدها إلى سلتها خلال 30 دقيقة.',
    },
    in: { searches: total('followed_by_add') },
  },
  {
    name: 'searches_followed_by_order',
    area: 'behaviour',
    type: 'count',
    direction: 'higher_is_better',
    label: { en: 'Followed by an order', ar: 'تلاها طلب' },
    description: {
      en: 'Searches after which the session placed an order within 30 minutes.',
      ar: 'عمليات البحث التي قدّمت الجلسة بعدها طلبًا خلال 30 دقيقة.',
    },
    in: { searches: total('followed_by_order') },
  },
  {
    name: 'search_add_rate',
    area: 'behaviour',
    type: 'ratio',
    direction: 'higher_is_better',
    label: { en: 'Search add-to-cart rate', ar: 'نسبة الإضافة بعد البحث' },
    description: { en: 'Searches followed by an add-to-cart ÷ searches.', ar: 'عمليات البحث التي تلتها إضافة إلى السلة ÷ عمليات البحث.' },
    in: { searches: ratio('t.followed_by_add', 't.searches') },
  },
];

const BY_NAME = new Map(MEASURES.map((measure) => [measure.name, measure]));

export function measureNamed(name: string): MeasureDef | undefined {
  return BY_NAME.get(name);
}
