import { DateTime } from 'luxon';
import { latinDigits, trimEdges } from '../../common/arabic-text.js';

export type DateOutput = 'date' | 'datetime';
export type NumberDates = 'excel_serial' | 'unix_seconds' | 'unix_milliseconds';
export type DateProblem = 'not_a_date' | 'invalid_date' | 'out_of_range';

export interface DateReading {
  formats: readonly string[];
  timezone: string;
  output: DateOutput;
  numbers: NumberDates;
}

/** The format name that reads any ISO 8601 date or date-time, its offset honoured. */
export const ISO_FORMAT = 'ISO';
export const DEFAULT_TIMEZONE = 'Asia/Riyadh';

/** Luxon tokens a format may use; anything else (moment's YYYY and DD, Luxon's locale macros) is refused. */
const DATE_TOKENS = new Set(['y', 'yy', 'yyyy', 'M', 'MM', 'MMM', 'MMMM', 'L', 'LL', 'LLL', 'LLLL', 'd', 'dd']);
const TIME_TOKENS = new Set(['H', 'HH', 'h', 'hh', 'm', 'mm', 's', 'ss', 'S', 'SSS', 'a', 'Z', 'ZZ', 'ZZZ', 'z', 'E', 'EEE', 'EEEE']);

/** A format's letter runs outside single quotes: `yyyy-MM-dd'T'HH` → yyyy, MM, dd, HH. */
function formatTokens(format: string): string[] {
  const unquoted = format.replace(/'(?:[^']|'')*'?/g, ' ');
  return unquoted.match(/([A-Za-z])\1*/g) ?? [];
}

export type FormatProblem = { code: 'format_token'; token: string } | { code: 'format_incomplete' };

/** Why a format cannot read dates: a token Luxon does not read as a date part, or no year, month and day. */
export function formatProblem(format: string): FormatProblem | undefined {
  if (format === ISO_FORMAT) return undefined;
  const tokens = formatTokens(format);
  const unknown = tokens.find((token) => !DATE_TOKENS.has(token) && !TIME_TOKENS.has(token));
  if (unknown) return { code: 'format_token', token: unknown };
  const has = (letters: string) => tokens.some((token) => letters.includes(token[0]));
  return has('y') && has('ML') && has('d') ? undefined : { code: 'format_incomplete' };
}

function output(date: DateTime, reading: DateReading): string | DateProblem {
  if (date.year < 1000 || date.year > 9999) return 'out_of_range';
  return reading.output === 'date' ? date.toISODate()! : date.toUTC().toISO()!;
}

function parseWith(text: string, format: string, timezone: string): DateTime {
  if (format === ISO_FORMAT) return DateTime.fromISO(text, { zone: timezone });
  const english = DateTime.fromFormat(text, format, { zone: timezone, locale: 'en' });
  // Month and weekday names in Arabic (مارس, الأحد) are read with the Arabic locale's names.
  return english.isValid || !/\p{Script=Arabic}/u.test(text)
    ? english
    : DateTime.fromFormat(text, format, { zone: timezone, locale: 'ar' });
}

/**
 * A written date, by the first format that reads it. A format that matches the shape but names a day
 * that does not exist (31/02) makes the value `invalid_date` unless a later format reads it.
 */
export function parseDateText(text: string, reading: DateReading): string | DateProblem {
  const value = latinDigits(trimEdges(text));
  let problem: DateProblem = 'not_a_date';
  for (const format of reading.formats) {
    const date = parseWith(value, format, reading.timezone);
    if (date.isValid) return output(date, reading);
    if (date.invalidReason === 'unit out of range') problem = 'invalid_date';
  }
  return problem;
}

const MS_PER_DAY = 86_400_000;
const EXCEL_LAST_SERIAL = 2_958_465; // 9999-12-31

/**
 * An Excel serial in the 1900 date system: whole days since 1899-12-31, the fraction the time of day
 * (wall clock in the timezone). Excel counts a 29 February 1900 that never was (serial 60, kept from
 * Lotus 1-2-3), so serials after it are one day ahead of the calendar.
 */
function excelSerialDate(serial: number, timezone: string): DateTime | DateProblem {
  if (serial < 1 || serial >= EXCEL_LAST_SERIAL + 1) return 'out_of_range';
  let days = Math.floor(serial);
  let ms = Math.round((serial - days) * MS_PER_DAY);
  if (ms === MS_PER_DAY) [days, ms] = [days + 1, 0];
  if (days === 60) return 'invalid_date';
  const calendar = new Date(Date.UTC(1899, 11, days < 60 ? 31 : 30) + days * MS_PER_DAY);
  const time = new Date(ms);
  return DateTime.fromObject(
    {
      year: calendar.getUTCFullYear(),
      month: calendar.getUTCMonth() + 1,
      day: calendar.getUTCDate(),
      hour: time.getUTCHours(),
      minute: time.getUTCMinutes(),
      second: time.getUTCSeconds(),
      millisecond: time.getUTCMilliseconds(),
    },
    { zone: timezone },
  );
}

/** A number cell: an Excel serial, or seconds or milliseconds since 1970 (UTC) as `numbers` says. */
export function dateFromNumber(value: number, reading: DateReading): string | DateProblem {
  if (!Number.isFinite(value)) return 'not_a_date';
  const date =
    reading.numbers === 'excel_serial'
      ? excelSerialDate(value, reading.timezone)
      : DateTime.fromMillis(reading.numbers === 'unix_seconds' ? value * 1000 : value, { zone: reading.timezone });
  if (typeof date === 'string') return date;
  return date.isValid ? output(date, reading) : 'out_of_range';
}
