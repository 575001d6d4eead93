import type { Bilingual } from '../../common/bilingual.js';
import { isEmptyCell } from '../../infra/tabular/table-rows.js';

/**
 * The record structures flows carry (contract section 9): what a mapping maps onto on import and what
 * an export writes, each with its natural key. Values reach a structure already transformed; `checkValue`
 * is the last word on whether a value fits its field.
 */
export const FIELD_TYPES = ['text', 'slug', 'sku', 'email', 'integer', 'money', 'boolean', 'locale', 'status', 'datetime'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface StructureField {
  name: string;
  /** What a merchant calls it ("Price before discount"); `name` is the identifier a mapping names. */
  label_en: string;
  label_ar: string;
  type: FieldType;
  /** The key, or needed to create a record: a row that would create one without it is rejected (`required_to_create`). */
  required: boolean;
  /** An import mapping may mark it `clearWhenEmpty`: an empty cell clears the record's value instead of leaving it. */
  clearable: boolean;
  /** For `text`: the column's length. */
  maxLength?: number;
  /** For `status`: the values allowed. */
  values?: readonly string[];
  description_en: string;
  description_ar: string;
}

export const DIRECTIONS = ['import', 'export'] as const;
export type Direction = (typeof DIRECTIONS)[number];

export interface Structure {
  name: string;
  label_en: string;
  label_ar: string;
  directions: readonly Direction[];
  /** The natural key: a record of the file is matched to the store's record by it. */
  key: string;
  fields: readonly StructureField[];
  /** What a `replace` import does to a record the file no longer holds; null: `replace` is not offered. */
  deactivation: Bilingual | null;
}

/** A field: its identifier, its label ([English, Arabic]), type, whether required, and its description. */
const field = (
  name: string,
  [labelEn, labelAr]: [string, string],
  type: FieldType,
  required: boolean,
  en: string,
  ar: string,
  extra: Partial<Pick<StructureField, 'maxLength' | 'values' | 'clearable'>> = {},
): StructureField => ({
  name,
  label_en: labelEn,
  label_ar: labelAr,
  type,
  required,
  clearable: false,
  ...extra,
  description_en: en,
  description_ar: ar,
});

/** The bilingual name and description every catalogue record has; names up to `nameLength` characters. */
const names = (nameLength: number) => [
  field('name_en', ['Name (English)', 'الاسم بالإنجليزية'], 'text', true, 'Name in English.', 'الاسم بالإنجليزية.', {
    maxLength: nameLength,
  }),
  field('name_ar', ['Name (Arabic)', 'الاسم بالعربية'], 'text', true, 'Name in Arabic.', 'الاسم بالعربية.', { maxLength: nameLength }),
  field('description_en', ['Description (English)', 'الوصف بالإنجليزية'], 'text', false, 'Description in English.', 'الوصف بالإنجليزية.', {
    maxLength: 20_000,
    clearable: true,
  }),
  field('description_ar', ['Description (Arabic)', 'الوصف بالعربية'], 'text', false, 'Description in Arabic.', 'الوصف بالعربية.', {
    maxLength: 20_000,
    clearable: true,
  }),
];

const SKU_LABEL: [string, string] = ['SKU', 'رمز الصنف (SKU)'];
const STOCK_LABEL: [string, string] = ['Stock', 'المخزون'];
const POSITION_LABEL: [string, string] = ['Position', 'الترتيب'];
const SLUG_LABEL: [string, string] = ['Slug (address)', 'المعرّف النصي (slug)'];
/** A variant's price and the price before a discount, as variants and prices carry them. */
const PRICE = field('price', ['Price', 'السعر'], 'money', true, 'Price in minor units (halalas).', 'السعر بالوحدات الصغرى (هللات).');
const COMPARE_AT_PRICE = field(
  'compare_at_price',
  ['Price before discount', 'السعر قبل الخصم'],
  'money',
  false,
  'Price before a discount, in minor units.',
  'السعر قبل الخصم بالوحدات الصغرى.',
  { clearable: true },
);

export const STRUCTURES: readonly Structure[] = [
  {
    name: 'products',
    label_en: 'Products',
    label_ar: 'المنتجات',
    directions: DIRECTIONS,
    key: 'slug',
    fields: [
      field(
        'slug',
        SLUG_LABEL,
        'slug',
        true,
        'The product’s address in the store, unique: its key.',
        'عنوان المنتج في المتجر، فريد: مفتاحه.',
      ),
      ...names(300),
      field('category', ['Category', 'الفئة'], 'slug', false, 'The slug of its category.', 'المعرّف النصي لفئته.', { clearable: true }),
      field('brand', ['Brand', 'العلامة التجارية'], 'slug', false, 'The slug of its brand.', 'المعرّف النصي لعلامته التجارية.', {
        clearable: true,
      }),
      field(
        'status',
        ['Status', 'الحالة'],
        'status',
        false,
        'active, draft or archived (new products: active).',
        'active أو draft أو archived (المنتجات الجديدة: active).',
        {
          values: ['active', 'draft', 'archived'],
        },
      ),
    ],
    deactivation: { en: 'A product the file no longer holds is archived.', ar: 'يُؤرشف المنتج الذي لم يعد في الملف.' },
  },
  {
    name: 'variants',
    label_en: 'Variants (SKU, price and stock)',
    label_ar: 'الأصناف (الرمز والسعر والمخزون)',
    directions: DIRECTIONS,
    key: 'sku',
    fields: [
      field('sku', SKU_LABEL, 'sku', true, 'Stock keeping unit, unique in the store: the key.', 'رمز الصنف، فريد في المتجر: المفتاح.'),
      field('product', ['Product', 'المنتج'], 'slug', true, 'The slug of the product it belongs to.', 'المعرّف النصي للمنتج الذي يتبعه.'),
      PRICE,
      COMPARE_AT_PRICE,
      field('stock', STOCK_LABEL, 'integer', false, 'Units in stock (0 or more).', 'الكمية المتوفرة (0 أو أكثر).'),
      field('position', POSITION_LABEL, 'integer', false, 'Order among the product’s variants.', 'الترتيب بين أصناف المنتج.'),
    ],
    deactivation: { en: 'A variant the file no longer holds gets a stock of 0.', ar: 'يصبح مخزون الصنف الذي لم يعد في الملف 0.' },
  },
  {
    name: 'stock',
    label_en: 'Stock levels',
    label_ar: 'مستويات المخزون',
    directions: DIRECTIONS,
    key: 'sku',
    fields: [
      field('sku', SKU_LABEL, 'sku', true, 'The variant’s SKU: the key.', 'رمز الصنف: المفتاح.'),
      field('stock', STOCK_LABEL, 'integer', true, 'Units in stock (0 or more).', 'الكمية المتوفرة (0 أو أكثر).'),
    ],
    deactivation: { en: 'A SKU the file no longer holds gets a stock of 0.', ar: 'يصبح مخزون الرمز الذي لم يعد في الملف 0.' },
  },
  {
    name: 'prices',
    label_en: 'Prices',
    label_ar: 'الأسعار',
    directions: DIRECTIONS,
    key: 'sku',
    fields: [field('sku', SKU_LABEL, 'sku', true, 'The variant’s SKU: the key.', 'رمز الصنف: المفتاح.'), PRICE, COMPARE_AT_PRICE],
    deactivation: null,
  },
  {
    name: 'categories',
    label_en: 'Categories',
    label_ar: 'الفئات',
    directions: DIRECTIONS,
    key: 'slug',
    fields: [
      field('slug', SLUG_LABEL, 'slug', true, 'The category’s address in the store: the key.', 'عنوان الفئة في المتجر: المفتاح.'),
      ...names(200),
      field('parent', ['Parent category', 'الفئة الأم'], 'slug', false, 'The slug of its parent category.', 'المعرّف النصي للفئة الأم.', {
        clearable: true,
      }),
      field('position', POSITION_LABEL, 'integer', false, 'Order among its siblings.', 'الترتيب بين الفئات الشقيقة.'),
    ],
    deactivation: null,
  },
  {
    name: 'brands',
    label_en: 'Brands',
    label_ar: 'العلامات التجارية',
    directions: DIRECTIONS,
    key: 'slug',
    fields: [
      field('slug', SLUG_LABEL, 'slug', true, 'The brand’s address in the store: the key.', 'عنوان العلامة التجارية في المتجر: المفتاح.'),
      ...names(200),
    ],
    deactivation: null,
  },
  {
    name: 'customers',
    label_en: 'Customers',
    label_ar: 'العملاء',
    directions: DIRECTIONS,
    key: 'email',
    fields: [
      field(
        'email',
        ['Email', 'البريد الإلكتروني'],
        'email',
        true,
        'Email address, the customer’s identity in the store: the key.',
        'البريد الإلكتروني، هوية العميل في المتجر: المفتاح.',
      ),
      field('first_name', ['First name', 'الاسم الأول'], 'text', false, 'First name.', 'الاسم الأول.', { maxLength: 100, clearable: true }),
      field('last_name', ['Last name', 'اسم العائلة'], 'text', false, 'Last name.', 'اسم العائلة.', { maxLength: 100, clearable: true }),
      field(
        'phone',
        ['Phone', 'الهاتف'],
        'text',
        false,
        'Phone number in international form (+966…).',
        'رقم الهاتف بالصيغة الدولية (+966…).',
        {
          maxLength: 32,
          clearable: true,
        },
      ),
      field('locale', ['Language', 'اللغة'], 'locale', false, 'Language of messages: ar or en.', 'لغة الرسائل: ar أو en.'),
      field(
        'marketing_opt_in',
        ['Accepts marketing', 'يقبل الرسائل التسويقية'],
        'boolean',
        false,
        'Agreed to marketing messages.',
        'وافق على الرسائل التسويقية.',
      ),
    ],
    deactivation: null,
  },
  {
    name: 'orders',
    label_en: 'Orders',
    label_ar: 'الطلبات',
    directions: ['export'],
    key: 'number',
    fields: [
      field('number', ['Order number', 'رقم الطلب'], 'integer', true, 'Order number: the key.', 'رقم الطلب: المفتاح.'),
      field('placed_at', ['Placed at', 'وقت الطلب'], 'datetime', true, 'When it was placed (UTC).', 'وقت تقديمه (بالتوقيت العالمي).'),
      field('email', ['Customer email', 'بريد العميل'], 'email', true, 'The customer’s email.', 'بريد العميل.'),
      field('status', ['Status', 'الحالة'], 'status', true, 'open, completed or cancelled.', 'open أو completed أو cancelled.', {
        values: ['open', 'completed', 'cancelled'],
      }),
      field('payment_status', ['Payment status', 'حالة الدفع'], 'text', true, 'Payment status.', 'حالة الدفع.', { maxLength: 40 }),
      field('fulfilment_status', ['Fulfilment status', 'حالة التنفيذ'], 'text', true, 'Fulfilment status.', 'حالة التنفيذ.', {
        maxLength: 40,
      }),
      field('currency', ['Currency', 'العملة'], 'text', true, 'Currency (ISO 4217).', 'العملة (ISO 4217).', { maxLength: 3 }),
      field('item_count', ['Units', 'عدد الوحدات'], 'integer', true, 'Units ordered.', 'عدد الوحدات المطلوبة.'),
      field('subtotal', ['Subtotal', 'المجموع الفرعي'], 'money', true, 'Lines’ total, minor units.', 'إجمالي البنود بالوحدات الصغرى.'),
      field('shipping_total', ['Shipping', 'الشحن'], 'money', true, 'Shipping, minor units.', 'الشحن بالوحدات الصغرى.'),
      field('tax_total', ['Tax', 'الضريبة'], 'money', true, 'Tax, minor units.', 'الضريبة بالوحدات الصغرى.'),
      field('total', ['Total', 'الإجمالي'], 'money', true, 'Order total, minor units.', 'إجمالي الطلب بالوحدات الصغرى.'),
      field('refunded_total', ['Refunded', 'المسترد'], 'money', true, 'Refunded so far, minor units.', 'المسترد حتى الآن بالوحدات الصغرى.'),
    ],
    deactivation: null,
  },
];

export function structureNamed(name: string): Structure | undefined {
  return STRUCTURES.find((structure) => structure.name === name);
}

const SLUG = /^[\p{Ll}\p{Lo}\p{Nd}]+(?:-[\p{Ll}\p{Lo}\p{Nd}]+)*$/u;
const SKU = /^[\x21-\x7e]{1,64}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;
const INT_MAX = 2 ** 31 - 1;

export type FieldValue = string | number | boolean | null;

/** Why a value does not fit its field, as the merchant reads it in a run's rejected rows. */
export interface FieldProblem {
  code: string;
  message_en: string;
  message_ar: string;
}

const problem = (code: string, en: string, ar: string): FieldProblem => ({ code, message_en: en, message_ar: ar });

export const isEmptyValue = (raw: unknown): boolean => raw === null || raw === undefined || (typeof raw === 'string' && isEmptyCell(raw));

/**
 * The value a field takes from a transformed cell, or why it cannot: an empty cell of a required field,
 * text past the column's length, a slug or SKU of the wrong shape, a number that is not a whole one in
 * range, a boolean or locale not among the accepted spellings. An empty cell is null (left as is) unless
 * `required` (an import requires only the key: what creating a record needs is checked for a row that creates one).
 */
export function checkValue(
  spec: StructureField,
  raw: unknown,
  required = spec.required,
): { value: FieldValue } | { problem: FieldProblem } {
  if (isEmptyValue(raw)) {
    return required ? { problem: problem('required', 'This field needs a value.', 'هذا الحقل يحتاج إلى قيمة.') } : { value: null };
  }
  if (Array.isArray(raw) || typeof raw === 'object')
    return {
      problem: problem(
        'not_a_value',
        'A list or object is not a value of this field: join or pick one.',
        'القائمة أو الكائن ليس قيمة لهذا الحقل: اجمعها أو اختر واحدة.',
      ),
    };
  const text = String(raw).trim();
  switch (spec.type) {
    case 'text':
      return text.length <= (spec.maxLength ?? 20_000)
        ? { value: text }
        : { problem: problem('too_long', `At most ${spec.maxLength} characters.`, `لا يزيد على ${spec.maxLength} حرفًا.`) };
    case 'slug':
      return SLUG.test(text) && text.length <= 200
        ? { value: text }
        : {
            problem: problem(
              'not_a_slug',
              'A slug is lower-case letters and digits joined by single hyphens (at most 200).',
              'المعرّف النصي حروف صغيرة وأرقام تفصلها شرطات مفردة (200 حرف على الأكثر).',
            ),
          };
    case 'sku':
      return SKU.test(text)
        ? { value: text }
        : {
            problem: problem(
              'not_a_sku',
              'A SKU is 1 to 64 visible characters without spaces.',
              'رمز الصنف من 1 إلى 64 حرفًا ظاهرًا بلا مسافات.',
            ),
          };
    case 'email':
      return EMAIL.test(text) && text.length <= 254
        ? { value: text.toLowerCase() }
        : { problem: problem('not_an_email', 'Not an email address.', 'ليس عنوان بريد إلكتروني.') };
    case 'integer':
    case 'money': {
      const number = typeof raw === 'number' ? raw : /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isSafeInteger(number))
        return {
          problem: problem(
            'not_an_integer',
            'Must be a whole number (money in minor units: use to_decimal_minor).',
            'يجب أن يكون عددًا صحيحًا (المبالغ بالوحدات الصغرى: استخدم to_decimal_minor).',
          ),
        };
      if (number < 0 || number > INT_MAX)
        return { problem: problem('out_of_range', `Must be between 0 and ${INT_MAX}.`, `يجب أن يكون بين 0 و${INT_MAX}.`) };
      return { value: number };
    }
    case 'boolean': {
      const spelled = text.toLowerCase();
      if (raw === true || ['true', 'yes', '1', 'y', 'نعم'].includes(spelled)) return { value: true };
      if (raw === false || ['false', 'no', '0', 'n', 'لا'].includes(spelled)) return { value: false };
      return {
        problem: problem(
          'not_a_boolean',
          'Must be true or false (yes/no, 1/0, نعم/لا).',
          'يجب أن تكون true أو false (yes/no، 1/0، نعم/لا).',
        ),
      };
    }
    case 'locale':
      return text === 'ar' || text === 'en'
        ? { value: text }
        : { problem: problem('not_a_locale', 'Must be ar or en.', 'يجب أن تكون ar أو en.') };
    case 'status':
      return spec.values!.includes(text)
        ? { value: text }
        : {
            problem: problem(
              'not_allowed',
              `Must be one of: ${spec.values!.join(', ')}.`,
              `يجب أن تكون إحدى القيم: ${spec.values!.join('، ')}.`,
            ),
          };
    case 'datetime': {
      const at = new Date(text);
      return Number.isNaN(at.getTime())
        ? { problem: problem('not_a_datetime', 'Not a date and time.', 'ليس تاريخًا ووقتًا.') }
        : { value: at.toISOString() };
    }
  }
}
