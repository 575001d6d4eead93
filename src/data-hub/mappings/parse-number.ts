import { latinDigits, trimEdges } from '../../common/arabic-text.js';

/** Stock, prices and amounts are PostgreSQL `integer` columns. */
export const INTEGER_MIN = -(2 ** 31);
export const INTEGER_MAX = 2 ** 31 - 1;

export const THOUSANDS_SEPARATORS = [',', '.', ' ', "'", ''] as const;
export type ThousandsSeparator = (typeof THOUSANDS_SEPARATORS)[number];
export type DecimalSeparator = '.' | ',';

export interface NumberFormat {
  decimalSeparator: DecimalSeparator;
  thousandsSeparator: ThousandsSeparator;
}

export type NumberProblem = 'not_a_number' | 'not_an_integer' | 'too_many_decimals' | 'out_of_range';

/** A number as its digits: exact whatever its size, unlike a binary floating point number. */
interface Numeral {
  negative: boolean;
  whole: string;
  fraction: string;
}

const ARABIC_DECIMAL_SEPARATOR = '\u066B';
const ARABIC_THOUSANDS_SEPARATOR = '\u066C';
const MINUS = /^[-\u2212]/u;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const NUMERAL_PATTERNS = new Map<string, RegExp>();

/**
 * Thousands come in groups of three, all with the same separator: `1,23` is refused rather than
 * read as 123, since it is most likely a decimal comma.
 */
function numeralPattern({ decimalSeparator, thousandsSeparator }: NumberFormat): RegExp {
  const key = `${decimalSeparator}${thousandsSeparator}`;
  let pattern = NUMERAL_PATTERNS.get(key);
  if (!pattern) {
    const grouping = escapeRegExp(thousandsSeparator) + ARABIC_THOUSANDS_SEPARATOR;
    const decimal = escapeRegExp(decimalSeparator) + ARABIC_DECIMAL_SEPARATOR;
    pattern = new RegExp(`^(?<whole>\\d+|\\d{1,3}([${grouping}])\\d{3}(?:\\2\\d{3})*)?(?:[${decimal}](?<fraction>\\d*))?$`, 'u');
    NUMERAL_PATTERNS.set(key, pattern);
  }
  return pattern;
}

/** Text as a numeral: Arabic-Indic digits read, a leading sign, grouping checked. Undefined when it is not a number. */
function readNumeral(text: string, format: NumberFormat): Numeral | undefined {
  let body = latinDigits(trimEdges(text));
  if (format.thousandsSeparator === ' ') body = body.replace(/[\u00A0\u2009\u202F]/gu, ' ');
  const negative = MINUS.test(body);
  if (negative || body.startsWith('+')) body = body.slice(1);
  const match = numeralPattern(format).exec(body)?.groups;
  if (!match || (!match.whole && !match.fraction)) return undefined;
  return { negative, whole: (match.whole ?? '0').replace(/\D/g, ''), fraction: match.fraction ?? '' };
}

/**
 * A JavaScript number (from JSON or a spreadsheet cell) as a numeral of its shortest decimal form, the
 * one that reads back as the same number: 19.99 is "19.99", never 19.989999999999998…
 */
function numeralOfNumber(value: number): Numeral | undefined {
  if (!Number.isFinite(value)) return undefined;
  // At the 15 significant digits a spreadsheet keeps and shows: a cell holding =0.1+0.2 reads as 0.3,
  // as the merchant sees it, not as the binary double's 0.30000000000000004.
  const [mantissa, exponentText] = Math.abs(Number(value.toPrecision(15)))
    .toString()
    .split('e');
  const [whole, fraction = ''] = mantissa.split('.');
  const exponent = Number(exponentText ?? 0);
  const digits = whole + fraction;
  const point = whole.length + exponent;
  const padded = point <= 0 ? '0'.repeat(1 - point) + digits : digits.padEnd(point, '0');
  const split = Math.max(point, 1);
  return { negative: value < 0, whole: padded.slice(0, split), fraction: padded.slice(split) };
}

/** A number cell as text, in plain decimal notation: 1e21 as "1000000000000000000000", 1.5e-7 as "0.00000015". */
export function decimalText(value: number): string {
  const numeral = numeralOfNumber(value);
  if (!numeral) return String(value);
  return `${numeral.negative ? '-' : ''}${numeral.whole}${numeral.fraction ? `.${numeral.fraction}` : ''}`;
}

function numeralOf(value: string | number, format: NumberFormat): Numeral | undefined {
  return typeof value === 'number' ? numeralOfNumber(value) : readNumeral(value, format);
}

/** Digits without leading zeros as a signed integer in the column's range, or `out_of_range`. */
function integerInRange(negative: boolean, digits: string): number | 'out_of_range' {
  const significant = digits.replace(/^0+/, '');
  if (significant.length > 10) return 'out_of_range';
  const magnitude = Number(significant || '0');
  const result = negative ? -magnitude : magnitude;
  if (result < INTEGER_MIN || result > INTEGER_MAX) return 'out_of_range';
  return result === 0 ? 0 : result;
}

/** A whole number; a fraction of zeros only (`12.00`) is whole too. */
export function parseInteger(value: string | number, thousandsSeparator: ThousandsSeparator): number | NumberProblem {
  const decimalSeparator = thousandsSeparator === '.' ? ',' : '.';
  const numeral = numeralOf(value, { decimalSeparator, thousandsSeparator });
  if (!numeral) return 'not_a_number';
  if (/[1-9]/.test(numeral.fraction)) return 'not_an_integer';
  return integerInRange(numeral.negative, numeral.whole);
}

/**
 * An amount in minor units (`decimals` digits per major unit), by string arithmetic: exact, never
 * rounded. Decimals beyond `decimals` are allowed only when they are zeros.
 */
export function parseMinorUnits(value: string | number, format: NumberFormat, decimals: number): number | NumberProblem {
  const numeral = numeralOf(typeof value === 'string' ? withoutCurrency(value) : value, format);
  if (!numeral) return 'not_a_number';
  if (/[1-9]/.test(numeral.fraction.slice(decimals))) return 'too_many_decimals';
  return integerInRange(numeral.negative, numeral.whole + numeral.fraction.slice(0, decimals).padEnd(decimals, '0'));
}

const ISO_CURRENCY_CODES = new Set(Intl.supportedValuesOf('currency'));

/** Currency words and abbreviations of the Gulf and its neighbours, written without dots or spaces. */
const CURRENCY_WORDS = new Set([
  'SR',
  'US$',
  'رس',
  'ريال',
  'ريالات',
  'ريالسعودي',
  'دإ',
  'درهم',
  'درهمإماراتي',
  'دك',
  'دينار',
  'ديناركويتي',
  'دب',
  'ديناربحريني',
  'رع',
  'ريالعماني',
  'رق',
  'ريالقطري',
  'دا',
  'ديناراردني',
  'دينارأردني',
  'جم',
  'جنيه',
  'جنيهمصري',
  'دولار',
  'يورو',
]);

/** Letters, currency symbols and spaces before the number; a dot only inside an abbreviation (ر.س), never one before a digit. */
const PREFIX = /^[-+\u2212]?\s*((?:[\p{L}\p{Sc}\s]|\.(?=[\p{L}\s]))+)/u;
const SUFFIX = /[\p{L}\p{Sc}\s.]+$/u;

function isCurrency(affix: string): boolean {
  const key = affix.replace(/[\s.]/gu, '').toUpperCase();
  return key === '' || /^\p{Sc}+$/u.test(key) || ISO_CURRENCY_CODES.has(key) || CURRENCY_WORDS.has(key);
}

/**
 * The amount without a currency symbol, ISO code or Arabic abbreviation on either side: `SAR 12`,
 * `-$5`, `12.50 ر.س.`. Anything else around the number (`12 kg`) is left for the reader to refuse.
 */
function withoutCurrency(text: string): string {
  let body = trimEdges(text);
  const prefix = PREFIX.exec(body);
  // In `ر.س.12` the dot could end the abbreviation or start ".12": refused rather than guessed.
  const pointAfterLetters = prefix !== null && /\p{L}$/u.test(prefix[0]) && /^[.\u066B]/u.test(body.slice(prefix[0].length));
  if (prefix && !pointAfterLetters && isCurrency(prefix[1])) {
    const sign = MINUS.test(body) ? '-' : '';
    body = sign + body.slice(prefix[0].length);
  }
  const suffix = SUFFIX.exec(body);
  if (suffix && isCurrency(suffix[0])) body = body.slice(0, suffix.index);
  return body;
}
