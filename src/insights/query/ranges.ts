import { notEntitled } from '../../auth/access/plan-refusal.js';
import { ApiError } from '../../common/errors/api-error.js';
import type { Entitlement } from '../../common/permissions.js';
import type { TimeGrain } from '../definitions/dimensions.js';

/**
 * Date ranges of reports (contract section 8), as calendar dates in the store's time zone: pure
 * arithmetic on `YYYY-MM-DD` strings, no clock and no time zone inside.
 */

export const WEEK_STARTS = ['saturday', 'sunday', 'monday'] as const;
export type WeekStart = (typeof WEEK_STARTS)[number];
export const COMPARES = ['none', 'previous_period', 'previous_year'] as const;
export type Compare = (typeof COMPARES)[number];

export const MAX_RANGE_DAYS = 366;
const HOUR_GRAIN_MAX_DAYS = 7;
const DAY = 86_400_000;

/** Inclusive local calendar dates. */
export interface DateRange {
  from: string;
  to: string;
}

export interface RangeRequest {
  from?: string;
  to?: string;
  last?: number | 'all';
  compare?: Compare;
  grain?: TimeGrain;
}

export interface ResolvedRange {
  range: DateRange;
  compare: DateRange | null;
  grain: TimeGrain;
}

export interface RangeContext {
  /** Today in the store's time zone. */
  today: string;
  /** The local day of the store's first order; null without orders (`last=all` is then today). */
  firstOrderDay: string | null;
  entitlements: readonly Entitlement[];
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isCalendarDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY);
}

/** The same date a year earlier; 29 February becomes the 28th. */
function yearEarlier(day: string): string {
  const [year, month, date] = day.split('-').map(Number);
  const candidate = `${String(year - 1).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(date).padStart(2, '0')}`;
  return isCalendarDate(candidate) ? candidate : addDays(candidate.slice(0, 8) + '01', 27);
}

function invalidRange(en: string, ar: string): ApiError {
  return new ApiError('invalid_range', { message: { en, ar } });
}

/** The default grain for a range of `days` days: hour up to 2, day up to 90, week up to 366, then month. */
export function defaultGrain(days: number): TimeGrain {
  if (days <= 2) return 'hour';
  if (days <= 90) return 'day';
  if (days <= MAX_RANGE_DAYS) return 'week';
  return 'month';
}

/**
 * `last=N` is today and the N−1 days before; `last=all` runs from the store's first order; `from`
 * and `to` are inclusive. Over 366 days (other than `all`), `from` after `to`, or both forms at once:
 * 400 invalid_range. A range or compare the plan lacks: 403 plan_not_entitled, never a shorter answer.
 */
export function resolveRange(request: RangeRequest, context: RangeContext): ResolvedRange {
  const explicit = request.from !== undefined || request.to !== undefined;
  if (explicit && request.last !== undefined) {
    throw invalidRange('Give either last or from and to, not both.', 'أعطِ last أو from وto، لا كليهما.');
  }
  let range: DateRange;
  let all = false;
  if (explicit) {
    if (request.from === undefined || request.to === undefined) {
      throw invalidRange('from and to go together.', 'يُعطى from وto معًا.');
    }
    if (!isCalendarDate(request.from) || !isCalendarDate(request.to)) {
      throw invalidRange('from and to are calendar dates: YYYY-MM-DD.', 'from وto تاريخان تقويميان: YYYY-MM-DD.');
    }
    if (request.from > request.to) throw invalidRange('from is after to.', 'from بعد to.');
    range = { from: request.from, to: request.to };
    if (daysBetween(range.from, range.to) + 1 > MAX_RANGE_DAYS) {
      throw invalidRange(
        'A range is at most 366 days; use last=all for the whole history.',
        'النطاق 366 يومًا كحد أقصى؛ استخدم last=all للسجل كله.',
      );
    }
  } else if (request.last === 'all') {
    all = true;
    const first = context.firstOrderDay && context.firstOrderDay < context.today ? context.firstOrderDay : context.today;
    range = { from: first, to: context.today };
  } else {
    const last = request.last ?? 30;
    if (!Number.isInteger(last) || last < 1 || last > MAX_RANGE_DAYS) {
      throw invalidRange('last is a whole number of days from 1 to 366, or all.', 'last عدد أيام صحيح من 1 إلى 366، أو all.');
    }
    range = { from: addDays(context.today, 1 - last), to: context.today };
  }
  const days = daysBetween(range.from, range.to) + 1;

  if (all && !context.entitlements.includes('range:all')) throw notEntitled('range:all');
  if (!all && days > 90 && !context.entitlements.includes('range:366')) throw notEntitled('range:366');
  const compare = request.compare ?? 'none';
  if (compare !== 'none' && !context.entitlements.includes('feature:compare')) throw notEntitled('feature:compare');

  const grain = request.grain ?? defaultGrain(days);
  if (grain === 'hour' && days > HOUR_GRAIN_MAX_DAYS) {
    throw invalidRange('The hour grain is for ranges of up to 7 days.', 'وحدة الساعة للنطاقات حتى 7 أيام.');
  }
  return { range, compare: compareRange(range, compare), grain };
}

function compareRange(range: DateRange, compare: Compare): DateRange | null {
  if (compare === 'none') return null;
  if (compare === 'previous_year') return { from: yearEarlier(range.from), to: yearEarlier(range.to) };
  const days = daysBetween(range.from, range.to) + 1;
  return { from: addDays(range.from, -days), to: addDays(range.from, -1) };
}

const ISO_WEEKDAY: Record<WeekStart, number> = { monday: 1, saturday: 6, sunday: 7 };

export function isoWeekday(start: WeekStart): number {
  return ISO_WEEKDAY[start];
}

/** The first day of the period of `grain` that holds `day`. */
export function periodStart(day: string, grain: Exclude<TimeGrain, 'hour'>, weekStartsOn: WeekStart): string {
  const [year, month] = day.split('-').map(Number);
  switch (grain) {
    case 'day':
      return day;
    case 'week': {
      const isoDay = ((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;
      return addDays(day, -((isoDay - ISO_WEEKDAY[weekStartsOn] + 7) % 7));
    }
    case 'month':
      return `${day.slice(0, 7)}-01`;
    case 'quarter':
      return `${year}-${String(month - ((month - 1) % 3)).padStart(2, '0')}-01`;
    case 'year':
      return `${year}-01-01`;
  }
}

/** Every period of the range, in order, as the query layer names them: `YYYY-MM-DD`, or `YYYY-MM-DDTHH:00` for hours. */
export function periodsOf(range: DateRange, grain: TimeGrain, weekStartsOn: WeekStart): string[] {
  const periods: string[] = [];
  if (grain === 'hour') {
    for (let day = range.from; day <= range.to; day = addDays(day, 1)) {
      for (let hour = 0; hour < 24; hour++) periods.push(`${day}T${String(hour).padStart(2, '0')}:00`);
    }
    return periods;
  }
  for (let day = range.from; day <= range.to; day = addDays(day, 1)) {
    const start = periodStart(day, grain, weekStartsOn);
    if (periods[periods.length - 1] !== start) periods.push(start);
  }
  return periods;
}

/** The first days of the first and last whole months inside the range, or null when it holds none. */
export function monthsWithin(range: DateRange): DateRange | null {
  const first = range.from.endsWith('-01') ? range.from : shiftMonths(range.from, 1);
  const last = range.to === lastDayOfMonth(range.to) ? firstDayOfMonth(range.to) : shiftMonths(range.to, -1);
  return first <= last ? { from: first, to: last } : null;
}

function firstDayOfMonth(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

/** The first day of the month `months` after (before, when negative) the month of `day`. */
function shiftMonths(day: string, months: number): string {
  const [year, month] = day.split('-').map(Number);
  const index = year * 12 + month - 1 + months;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01`;
}

function lastDayOfMonth(day: string): string {
  return addDays(shiftMonths(day, 1), -1);
}

/** Months from the month of `from` to that of `to` (0 within one month, never negative). */
export function monthsBetween(from: string, to: string): number {
  const [fromYear, fromMonth] = from.split('-').map(Number);
  const [toYear, toMonth] = to.split('-').map(Number);
  return Math.max(0, (toYear - fromYear) * 12 + toMonth - fromMonth);
}

/** The range widened to the whole months it touches (not past `today`): cohorts are months. */
export function wholeMonths(range: DateRange, today: string): DateRange {
  const lastDay = lastDayOfMonth(range.to);
  return { from: firstDayOfMonth(range.from), to: lastDay > today && range.to <= today ? today : lastDay };
}

/**
 * A cohort report's ranges. Cohorts are months: the range is the whole months it touches (not past
 * today), and the compared range is as many whole months just before it (`previous_period`) or the
 * same months a year before (`previous_year`), its last month cut on the same day as the range's
 * when the range ends inside its month (today). The two never overlap: a range of more than 12
 * months has no year before that does not, and is refused that compare.
 */
export function cohortRanges(asked: ResolvedRange, compare: Compare, today: string): ResolvedRange {
  const range = wholeMonths(asked.range, today);
  if (compare === 'none') return { ...asked, range, compare: null };
  const months = monthsBetween(range.from, range.to) + 1;
  if (compare === 'previous_year' && months > 12) {
    throw invalidRange(
      `Cohorts are whole months: this range covers ${months} months, so the same months a year before would overlap it. Compare with the previous period, or choose at most 12 months.`,
      `الأفواج أشهر كاملة: يغطي هذا النطاق ${months} شهرًا، فتتداخل معه الأشهر نفسها قبل سنة. قارن بالفترة السابقة، أو اختر 12 شهرًا على الأكثر.`,
    );
  }
  const shift = compare === 'previous_period' ? -months : -12;
  const lastMonthEnd = lastDayOfMonth(shiftMonths(range.to, shift));
  const sameDay = `${lastMonthEnd.slice(0, 8)}${range.to.slice(8)}`;
  const to = range.to === lastDayOfMonth(range.to) || sameDay > lastMonthEnd ? lastMonthEnd : sameDay;
  return { ...asked, range, compare: { from: shiftMonths(range.from, shift), to } };
}

/** Today's date in a time zone. */
export function localToday(timezone: string, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}
