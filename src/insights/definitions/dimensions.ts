import type { Bilingual } from '../../common/bilingual.js';
import type { InsightsArea } from '../../common/permissions.js';

/**
 * Every dimension reports and the builder split or filter by, declared once. Time grains are
 * dimensions too (a grain counts as one of the builder's three); they are split by, never filtered
 * (the range does that).
 */

export const TIME_GRAINS = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type TimeGrain = (typeof TIME_GRAINS)[number];

export function isTimeGrain(name: string): name is TimeGrain {
  return (TIME_GRAINS as readonly string[]).includes(name);
}

/** How values of a dimension are listed and labelled. */
export type ValueSource =
  | { kind: 'fixed'; values: { value: string; label: Bilingual }[] }
  | { kind: 'catalogue'; entity: 'product' | 'variant' | 'category' | 'brand' }
  | { kind: 'customer' }
  | { kind: 'shipping_method' }
  | { kind: 'tax_rate' }
  | { kind: 'query' }
  | { kind: 'cohort' }
  /** Not listed: values are taken as they are (a number of months). */
  | { kind: 'none' };

export interface DimensionDef {
  name: string;
  /** The area whose view permission reading it needs; null for time grains (any area). */
  area: InsightsArea | null;
  /** `text` values are compared as they are; `number` and `date` also by gt/gte/lt/lte/between. */
  type: 'text' | 'number' | 'date';
  label: Bilingual;
  description: Bilingual;
  values: ValueSource;
  /** Split by it, but never filtered (time grains) or only inside one report. */
  filterable: boolean;
}

const fixed = (values: [string, string, string][]): ValueSource => ({
  kind: 'fixed',
  values: values.map(([value, en, ar]) => ({ value, label: { en, ar } })),
});

const GRAIN_LABELS: Record<TimeGrain, [string, string, string, string]> = {
  hour: ['Hour', 'الساعة', 'The local hour (ranges up to 7 days).', 'الساعة بالتوقيت المحلي (للنطاقات حتى 7 أيام).'],
  day: ['Day', 'اليوم', 'The local calendar day.', 'اليوم التقويمي المحلي.'],
  week: ['Week', 'الأسبوع', 'The week, starting on the day the settings name.', 'الأسبوع، بدءًا من اليوم المحدد في الإعدادات.'],
  month: ['Month', 'الشهر', 'The calendar month.', 'الشهر التقويمي.'],
  quarter: ['Quarter', 'الربع', 'The calendar quarter.', 'الربع السنوي.'],
  year: ['Year', 'السنة', 'The calendar year.', 'السنة التقويمية.'],
};

const TIME_DIMENSIONS: DimensionDef[] = TIME_GRAINS.map((grain) => {
  const [en, ar, descriptionEn, descriptionAr] = GRAIN_LABELS[grain];
  return {
    name: grain,
    area: null,
    type: 'date',
    label: { en, ar },
    description: { en: descriptionEn, ar: descriptionAr },
    values: { kind: 'none' },
    filterable: false,
  };
});

export const DIMENSIONS: readonly DimensionDef[] = [
  ...TIME_DIMENSIONS,
  {
    name: 'product',
    area: 'products',
    type: 'text',
    label: { en: 'Product', ar: 'المنتج' },
    description: { en: 'The product sold, by its id.', ar: 'المنتج المَبيع، بمعرّفه.' },
    values: { kind: 'catalogue', entity: 'product' },
    filterable: true,
  },
  {
    name: 'variant',
    area: 'products',
    type: 'text',
    label: { en: 'Variant', ar: 'الخيار' },
    description: { en: 'The product variant (size, colour…) sold, by its id.', ar: 'خيار المنتج المَبيع (المقاس، اللون…)، بمعرّفه.' },
    values: { kind: 'catalogue', entity: 'variant' },
    filterable: true,
  },
  {
    name: 'category',
    area: 'products',
    type: 'text',
    label: { en: 'Category', ar: 'الفئة' },
    description: { en: 'The product’s category when it was sold.', ar: 'فئة المنتج وقت بيعه.' },
    values: { kind: 'catalogue', entity: 'category' },
    filterable: true,
  },
  {
    name: 'brand',
    area: 'products',
    type: 'text',
    label: { en: 'Brand', ar: 'العلامة التجارية' },
    description: { en: 'The product’s brand when it was sold.', ar: 'العلامة التجارية للمنتج وقت بيعه.' },
    values: { kind: 'catalogue', entity: 'brand' },
    filterable: true,
  },
  {
    name: 'payment_method',
    area: 'finance',
    type: 'text',
    label: { en: 'Payment method', ar: 'طريقة الدفع' },
    description: { en: 'How the order is paid.', ar: 'طريقة دفع الطلب.' },
    values: fixed([
      ['card', 'Card', 'بطاقة'],
      ['cash_on_delivery', 'Cash on delivery', 'الدفع عند الاستلام'],
    ]),
    filterable: true,
  },
  {
    name: 'fulfilment_type',
    area: 'fulfilment',
    type: 'text',
    label: { en: 'Fulfilment', ar: 'طريقة التسليم' },
    description: { en: 'Delivery or pickup.', ar: 'التوصيل أو الاستلام.' },
    values: fixed([
      ['delivery', 'Delivery', 'التوصيل'],
      ['pickup', 'Pickup', 'الاستلام'],
    ]),
    filterable: true,
  },
  {
    name: 'shipping_method',
    area: 'fulfilment',
    type: 'text',
    label: { en: 'Shipping method', ar: 'طريقة الشحن' },
    description: { en: 'The delivery method chosen (empty for pickup).', ar: 'طريقة التوصيل المختارة (فارغة للاستلام).' },
    values: { kind: 'shipping_method' },
    filterable: true,
  },
  {
    name: 'customer_type',
    area: 'customers',
    type: 'text',
    label: { en: 'Customer type', ar: 'نوع العميل' },
    description: {
      en: 'New: the order is the customer’s first. Returning: they had ordered before.',
      ar: 'جديد: الطلب هو أول طلب للعميل. عائد: سبق أن طلب من قبل.',
    },
    values: fixed([
      ['new', 'New', 'جديد'],
      ['returning', 'Returning', 'عائد'],
    ]),
    filterable: true,
  },
  {
    name: 'customer_kind',
    area: 'customers',
    type: 'text',
    label: { en: 'Checkout', ar: 'نوع الشراء' },
    description: { en: 'Placed by a signed-in shopper or as a guest.', ar: 'طلب من متسوق مسجّل الدخول أو كضيف.' },
    values: fixed([
      ['registered', 'Registered shopper', 'متسوق مسجّل'],
      ['guest', 'Guest', 'ضيف'],
    ]),
    filterable: true,
  },
  {
    name: 'locale',
    area: 'customers',
    type: 'text',
    label: { en: 'Language', ar: 'اللغة' },
    description: { en: 'The language the order was placed in.', ar: 'اللغة التي قُدّم بها الطلب.' },
    values: fixed([
      ['ar', 'Arabic', 'العربية'],
      ['en', 'English', 'الإنجليزية'],
    ]),
    filterable: true,
  },
  {
    name: 'tax_rate',
    area: 'finance',
    type: 'number',
    label: { en: 'Tax rate', ar: 'نسبة الضريبة' },
    description: {
      en: 'The tax rate the order was charged at, in basis points (1500 = 15%).',
      ar: 'نسبة الضريبة المطبقة على الطلب بنقاط الأساس (1500 = 15%).',
    },
    values: { kind: 'tax_rate' },
    filterable: true,
  },
  {
    name: 'customer',
    area: 'customers',
    type: 'text',
    label: { en: 'Customer', ar: 'العميل' },
    description: { en: 'A customer, known by their email address.', ar: 'عميل، يُعرف بعنوان بريده الإلكتروني.' },
    values: { kind: 'customer' },
    filterable: true,
  },
  {
    name: 'query',
    area: 'behaviour',
    type: 'text',
    label: { en: 'Search query', ar: 'عبارة البحث' },
    description: { en: 'What shoppers searched for, in its normalised form.', ar: 'ما بحث عنه المتسوقون، بصيغته الموحدة.' },
    values: { kind: 'query' },
    filterable: true,
  },
  {
    name: 'cohort',
    area: 'customers',
    type: 'date',
    label: { en: 'Cohort', ar: 'الفوج' },
    description: { en: 'The month of the customers’ first order.', ar: 'شهر أول طلب للعملاء.' },
    values: { kind: 'cohort' },
    filterable: true,
  },
  {
    name: 'months_since',
    area: 'customers',
    type: 'number',
    label: { en: 'Months since first order', ar: 'الأشهر منذ أول طلب' },
    description: { en: '0 for the cohort’s own month, 1 for the month after…', ar: '0 لشهر الفوج نفسه، و1 للشهر الذي يليه…' },
    values: { kind: 'none' },
    filterable: true,
  },
];

const BY_NAME = new Map(DIMENSIONS.map((dimension) => [dimension.name, dimension]));

export function dimensionNamed(name: string): DimensionDef | undefined {
  return BY_NAME.get(name);
}
