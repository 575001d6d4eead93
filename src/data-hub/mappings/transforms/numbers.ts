import type { Bilingual } from '../../../common/bilingual.js';
import { decimalAmount } from '../../../common/money.js';
import {
  INTEGER_MAX,
  INTEGER_MIN,
  parseInteger,
  parseMinorUnits,
  THOUSANDS_SEPARATORS,
  type DecimalSeparator,
  type NumberProblem,
  type ThousandsSeparator,
} from '../parse-number.js';
import { argsError, defineTransform, eachItem, label, object, quoted, refuse } from './transform.js';
import { isEmptyScalar, type CellValue, type Scalar } from '../../../infra/tabular/table-rows.js';

const NUMBER_FAILURES: Record<NumberProblem, (value: Scalar, decimals: number) => Bilingual> = {
  not_a_number: (value) => ({ en: `${quoted(value)} is not a number.`, ar: `${quoted(value)} ليس رقماً.` }),
  not_an_integer: (value) => ({
    en: `${quoted(value)} is not a whole number.`,
    ar: `${quoted(value)} ليس عدداً صحيحاً.`,
  }),
  too_many_decimals: (value, decimals) => ({
    en: `${quoted(value)} has more decimal places than the currency allows (${decimals}); amounts are never rounded.`,
    ar: `${quoted(value)} فيه منازل عشرية أكثر مما تسمح به العملة (${decimals})، ولا تُقرَّب المبالغ أبداً.`,
  }),
  out_of_range: (value, decimals) => {
    const [lowest, highest] = [decimalAmount(INTEGER_MIN, decimals), decimalAmount(INTEGER_MAX, decimals)];
    return {
      en: `${quoted(value)} is out of range: it must be between ${lowest} and ${highest}.`,
      // The left-to-right mark keeps the minus sign before the digits in right-to-left text.
      ar: `${quoted(value)} خارج النطاق: يجب أن يكون بين \u200E${lowest} و${highest}.`,
    };
  },
};

/** Empty cells become no value; anything else is read by `read`, whose problem rejects the row. */
function readNumber(value: CellValue, read: (item: string | number) => number | NumberProblem, decimals = 0): CellValue {
  return eachItem(value, (item) => {
    if (item === null || isEmptyScalar(item)) return null;
    const result = typeof item === 'boolean' ? 'not_a_number' : read(item);
    if (typeof result === 'number') return result;
    throw refuse(result, NUMBER_FAILURES[result](item, decimals));
  });
}

const THOUSANDS = { enum: [...THOUSANDS_SEPARATORS] };

interface ToIntegerArgs {
  thousandsSeparator?: ThousandsSeparator;
}

export const to_integer = defineTransform<ToIntegerArgs>({
  name: 'to_integer',
  label_en: 'Whole number',
  label_ar: 'عدد صحيح',
  args: object({ thousandsSeparator: { ...THOUSANDS, default: ',' } }),
  argLabels: { thousandsSeparator: label('Thousands separator', 'فاصل الآلاف') },
  description_en:
    'Reads a whole number, such as a stock level. Accepts Latin, Arabic-Indic (٠–٩) and Persian (۰–۹) digits, a leading + or -, thousands in groups of three separated by thousandsSeparator (default ",", as in 1,234; or ".", " ", "\'", or "" for none) or by the Arabic ٬, and a decimal part of zeros only (12.00; the decimal mark is "." or the Arabic ٫, or "," when thousandsSeparator is "."). Refuses other text (not_a_number), a fraction such as 12.5 (not_an_integer: use to_decimal_minor for amounts) and numbers beyond -2,147,483,648…2,147,483,647 (out_of_range). A number cell must be whole. An empty cell becomes no value (null); in a list, each item is read.',
  description_ar:
    'يقرأ عدداً صحيحاً مثل كمية المخزون. يقبل الأرقام اللاتينية والعربية الهندية (٠–٩) والفارسية (۰–۹)، وإشارة + أو - في البداية، والآلاف في مجموعات من ثلاثة أرقام يفصلها thousandsSeparator (الافتراضي ","، مثل 1,234؛ أو "." أو " " أو "\'"، أو "" بلا فاصل) أو الفاصل العربي ٬، وجزءاً عشرياً من الأصفار فقط (12.00؛ والفاصل العشري "." أو الفاصل العربي ٫، أو "," إذا كان thousandsSeparator هو "."). ويرفض أي نص آخر (not_a_number)، والكسر مثل 12.5 (not_an_integer: استخدم to_decimal_minor للمبالغ)، وما تجاوز النطاق ‎-2,147,483,648…2,147,483,647 (out_of_range). ويجب أن تكون الخلية الرقمية عدداً صحيحاً. والخلية الفارغة تصبح بلا قيمة (null)، وفي القائمة يُقرأ كل عنصر على حدة.',
  apply: (value, args) => readNumber(value, (item) => parseInteger(item, args.thousandsSeparator ?? ',')),
});

interface ToDecimalMinorArgs {
  decimals?: number;
  decimalSeparator?: DecimalSeparator;
  thousandsSeparator?: ThousandsSeparator;
}

const DEFAULT_DECIMALS = 2;
const thousandsSeparatorOf = (args: ToDecimalMinorArgs) => args.thousandsSeparator ?? (args.decimalSeparator === ',' ? '.' : ',');

export const to_decimal_minor = defineTransform<ToDecimalMinorArgs>({
  name: 'to_decimal_minor',
  label_en: 'Amount in minor units',
  label_ar: 'مبلغ بالوحدات الصغرى',
  args: object({
    decimals: { type: 'integer', minimum: 0, maximum: 4, default: DEFAULT_DECIMALS },
    decimalSeparator: { enum: ['.', ','], default: '.' },
    thousandsSeparator: THOUSANDS,
  }),
  argLabels: {
    decimals: label('Decimal places of the currency', 'المنازل العشرية للعملة'),
    decimalSeparator: label('Decimal mark', 'الفاصل العشري'),
    thousandsSeparator: label('Thousands separator', 'فاصل الآلاف'),
  },
  description_en:
    'Reads an amount and gives it in minor units (halalas, fils, cents) as a whole number, exactly, with no floating point: 19.99 → 1999, 1,234.5 → 123450, ٣٫٥ → 350. decimals is the number of minor digits of the currency (default 2; 3 for KWD, BHD, OMR and JOD; 0 for JPY). The decimal mark is decimalSeparator (default ".") or the Arabic ٫; thousands, in groups of three, are separated by thousandsSeparator (default ",", or "." when decimalSeparator is ",") or by the Arabic ٬. A currency symbol, ISO code or Arabic abbreviation before or after the number is ignored (SAR, USD, SR, ر.س, د.إ, ريال, ﷼, $, €), and Arabic-Indic digits and a leading + or - are read. More decimal places than decimals are refused (too_many_decimals), never rounded; extra zeros (19.990) are fine. A number cell from JSON or XLSX is read in its shortest exact decimal form, so 19.99 gives 1999 while 0.30000000000000004 (what 0.1 + 0.2 computes to) is refused. Results beyond ±2,147,483,647 minor units (±21,474,836.47 with 2 decimals) are refused (out_of_range), and other text too (not_a_number). An empty cell becomes no value (null); in a list, each item is read.',
  description_ar:
    'يقرأ مبلغاً ويعطيه بالوحدات الصغرى (الهللات أو الفلوس أو السنتات) عدداً صحيحاً، بدقة تامة ودون حساب بالفاصلة العائمة: 19.99 ← 1999، و1,234.5 ← 123450، و٣٫٥ ← 350. وdecimals عدد خانات الوحدة الصغرى في العملة (الافتراضي 2؛ و3 للدينار الكويتي والبحريني والأردني والريال العماني؛ و0 للين الياباني). والفاصل العشري decimalSeparator (الافتراضي ".") أو الفاصل العربي ٫، ويفصل الآلافَ في مجموعات من ثلاثة أرقام thousandsSeparator (الافتراضي ","، أو "." إذا كان decimalSeparator هو ",") أو الفاصل العربي ٬. ويُتجاهل رمز العملة أو رمزها الدولي أو اختصارها العربي قبل الرقم أو بعده (SAR وUSD وSR ور.س ود.إ وريال و﷼ و$ و€)، وتُقرأ الأرقام العربية الهندية وإشارة + أو - في البداية. ويُرفض ما زادت منازله العشرية على decimals (too_many_decimals) ولا يُقرَّب أبداً، أما الأصفار الزائدة (19.990) فمقبولة. والخلية الرقمية من JSON أو XLSX تُقرأ بأقصر صيغة عشرية مطابقة لها، فتعطي 19.99 القيمة 1999 بينما يُرفض 0.30000000000000004 (ناتج 0.1 + 0.2). ويُرفض ما تجاوز ±2,147,483,647 وحدة صغرى (±21,474,836.47 مع منزلتين عشريتين) (out_of_range) وأي نص آخر (not_a_number). والخلية الفارغة تصبح بلا قيمة (null)، وفي القائمة يُقرأ كل عنصر على حدة.',
  checkArgs(args) {
    if (thousandsSeparatorOf(args) !== (args.decimalSeparator ?? '.')) return [];
    return [
      argsError(
        'thousandsSeparator',
        'separators_clash',
        'thousandsSeparator must differ from decimalSeparator.',
        'يجب أن يختلف thousandsSeparator عن decimalSeparator.',
      ),
    ];
  },
  apply(value, args) {
    const decimals = args.decimals ?? DEFAULT_DECIMALS;
    const format = { decimalSeparator: args.decimalSeparator ?? '.', thousandsSeparator: thousandsSeparatorOf(args) };
    return readNumber(value, (item) => parseMinorUnits(item, format, decimals), decimals);
  },
});
