import { translate, type Lang } from './messages.js';

/** Numbers, money, ratios, durations and dates in the current language, the store's currency and time zone. */
export interface Formatter {
  value(value: unknown, type: string): string;
  money(minor: number): string;
  number(value: number): string;
  percent(ratio: number, signed?: boolean): string;
  date(iso: string): string;
  dateTime(iso: string): string;
}

const LOCALES: Record<Lang, string> = { en: 'en-GB', ar: 'ar-SA' };

export function formatter(lang: Lang, currency: string, timeZone: string): Formatter {
  const locale = LOCALES[lang];
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

/** A lag in seconds as words: "3 min". */
export function formatLag(lang: Lang, seconds: number): string {
  return formatter(lang, 'USD', 'UTC').value(Math.max(0, Math.round(seconds)), 'duration');
}
