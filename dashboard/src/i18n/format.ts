import { translate, type Lang } from './messages.js';

/** Numbers, money, ratios, durations and dates in the current language, the store's currency and time zone. */
export interface Formatter {
  value(value: unknown, type: string): string;
  money(minor: number): string;
  number(value: number): string;
  percent(ratio: number, signed?: boolean): string;
  date(iso: string): string;
  dateTime(iso: string): string;
  /** A calendar month (`YYYY-MM-DD`, its first day): "Nov 2025". */
  month(iso: string): string;
  /** A time of day as a schedule gives it (`HH:MM`, 24 hours) in the member's digits: "08:00", «٠٨:٠٠». */
  clock(hhmm: string): string;
  /** Money and counts in short (compact) notation, "SAR 116K", where the full figure does not fit; other types as `value`. */
  compact(value: unknown, type: string): string;
  /** A change of a ratio in percentage points, signed: "+1.2 pt". */
  points(ratioChange: number): string;
  /** A file's size in bytes, kB, MB or GB, the unit's name in the language's grammar for the figure. */
  bytes(count: number): string;
}

const LOCALES: Record<Lang, string> = { en: 'en-GB', ar: 'ar-SA' };

/** The digits figures are written in: Arabic-Indic (٠١٢٣) or Western (0123). */
export type NumberingSystem = 'arab' | 'latn';
export const NUMBERING_SYSTEMS: readonly NumberingSystem[] = ['arab', 'latn'];

/** The language's locale with its digits (`ar-SA-u-nu-latn`): every Intl format made with it writes them. */
export function localeOf(lang: Lang, numbering: NumberingSystem): string {
  return `${LOCALES[lang]}-u-nu-${numbering}`;
}

const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;

export function formatter(lang: Lang, currency: string, timeZone: string, numbering: NumberingSystem): Formatter {
  const locale = localeOf(lang, numbering);
  const moneyFormat = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const digits = moneyFormat.resolvedOptions().maximumFractionDigits ?? 2;
  const numberFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
  const percentFormat = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
  const signedPercent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' });
  const dateFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const dateTimeFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone });
  const money = (minor: number) => moneyFormat.format(minor / 10 ** digits);
  const number = (value: number) => numberFormat.format(value);
  const percent = (ratio: number, signed = false) => (signed ? signedPercent : percentFormat).format(ratio);
  // Calendar dates (`YYYY-MM-DD`, already in the store's time zone) are shown as they are.
  const date = (iso: string) =>
    /^\d{4}-\d{2}-\d{2}$/.test(iso) ? dateFormat.format(new Date(`${iso}T00:00:00Z`)) : dateTimeFormat.format(new Date(iso));
  const dateTime = (iso: string) => dateTimeFormat.format(new Date(iso));
  const monthFormat = new Intl.DateTimeFormat(locale, { month: 'short', year: 'numeric', timeZone: 'UTC' });
  const clockFormat = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });
  const compactMoney = new Intl.NumberFormat(locale, { style: 'currency', currency, notation: 'compact', maximumFractionDigits: 1 });
  const compactNumber = new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 });
  const signedNumber = new Intl.NumberFormat(locale, { maximumFractionDigits: 1, signDisplay: 'exceptZero' });
  const byteFormats = BYTE_UNITS.map(
    (unit) =>
      new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: unit === 'byte' ? 'long' : 'short', maximumFractionDigits: 1 }),
  );
  const bytes = (count: number) => {
    let unit = 0;
    let size = count;
    for (; size >= 1000 && unit < BYTE_UNITS.length - 1; unit++) size /= 1000;
    return byteFormats[unit].format(size);
  };
  const duration = (seconds: number) => {
    if (seconds < 120) return translate(lang, 'unit.seconds', { n: number(seconds) });
    if (seconds < 7200) return translate(lang, 'unit.minutes', { n: number(seconds / 60) });
    if (seconds < 172800) return translate(lang, 'unit.hours', { n: number(seconds / 3600) });
    return translate(lang, 'unit.days', { n: number(seconds / 86400) });
  };
  return {
    money,
    number,
    percent,
    date,
    dateTime,
    month: (iso) => monthFormat.format(new Date(`${iso.slice(0, 10)}T00:00:00Z`)),
    clock: (hhmm) => clockFormat.format(new Date(`2000-01-01T${hhmm}:00Z`)),
    compact(value, type) {
      if (typeof value !== 'number' || (type !== 'money' && type !== 'count')) return this.value(value, type);
      return type === 'money' ? compactMoney.format(value / 10 ** digits) : compactNumber.format(value);
    },
    points: (ratioChange) => translate(lang, 'unit.points', { n: signedNumber.format(ratioChange * 100) }),
    bytes,
    value(value, type) {
      if (value === null || value === undefined || value === '') return '—';
      if (typeof value === 'number') {
        if (type === 'money') return money(value);
        if (type === 'ratio') return percent(value);
        if (type === 'duration') return duration(value);
        return number(value);
      }
      if (type === 'date' && typeof value === 'string') return date(value);
      return String(value);
    },
  };
}
