import { between, WeightedTable, type Random } from './random.js';

export const SECOND = 1000;
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** An instant in epoch ms as the whole epoch seconds that rows keep. */
export const seconds = (ms: number) => Math.round(ms / SECOND);
/** Demo shoppers live on Saudi time (UTC+3 all year, no daylight saving). */
export const LOCAL_OFFSET = 3 * HOUR;
export const WINDOW_MONTHS = 18;

/** Periods that change what sells, not only how much. */
export type Season = 'ramadan' | 'eid' | 'mega_sale' | 'national_day' | 'back_to_school' | 'winter' | 'summer';

export interface DemoDay {
  /** Local midnight, epoch milliseconds. */
  start: number;
  /** Relative order volume of the day: trend x weekday x season x noise. */
  weight: number;
  seasons: Season[];
  /** 0 on an ordinary day, up to 1 in the busiest periods: couriers fall behind, so late deliveries rise with it. */
  rush: number;
  ramadan: boolean;
  /** Local hour of day (0-23) of an order or search. */
  hours: WeightedTable<number>;
}

export interface Timeline {
  /** The end of the demo history, epoch ms: nothing happens after it. */
  anchor: number;
  windowStart: number;
  days: DemoDay[];
}

interface IslamicYear {
  ramadan: number;
  eidAlFitr: number;
  eidAlAdha: number;
}

// Gregorian dates in Saudi Arabia (Umm al-Qura). 2027 is the announced calendar's prediction; outside
// these years the dates are stepped by the mean Hijri year, which is right to a day or two.
const ISLAMIC_YEARS = [
  { ramadan: '2024-03-11', eidAlFitr: '2024-04-10', eidAlAdha: '2024-06-16' },
  { ramadan: '2025-03-01', eidAlFitr: '2025-03-30', eidAlAdha: '2025-06-06' },
  { ramadan: '2026-02-18', eidAlFitr: '2026-03-20', eidAlAdha: '2026-05-27' },
  { ramadan: '2027-02-08', eidAlFitr: '2027-03-10', eidAlAdha: '2027-05-16' },
];
const HIJRI_YEAR_DAYS = 354.367;

// Sunday .. Saturday: the Saudi weekend is Friday and Saturday; Thursday night is the big night out (and in).
const WEEKDAY_WEIGHTS = [0.97, 0.95, 0.94, 1.0, 1.2, 1.12, 1.0];
const HOUR_WEIGHTS = [
  0.55, 0.35, 0.2, 0.12, 0.08, 0.1, 0.18, 0.3, 0.45, 0.6, 0.72, 0.8, 0.8, 0.82, 0.85, 0.85, 0.9, 0.95, 1, 1.05, 1.2, 1.35, 1.3, 0.95,
];
const GROWTH_OVER_WINDOW = 2.3;
const DAILY_NOISE = 0.12;

/** The default anchor: the start of the current UTC day, so a seed gives the same data all day long. */
export function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/** The local days of the 18 months before `anchor`, with their order volume and seasons. */
export function demoTimeline(anchor: Date, rng: Random): Timeline {
  const end = anchor.getTime();
  const windowStart = windowStartOf(anchor);
  const firstDay = localDayNumber(windowStart) + 1;
  const lastDay = localDayNumber(end) - 1;
  const islamic = islamicYearsAround(firstDay, lastDay);
  const hourTables = new Map<string, WeightedTable<number>>();

  const days: DemoDay[] = [];
  for (let day = firstDay; day <= lastDay; day++) {
    const progress = (day - firstDay) / Math.max(1, lastDay - firstDay);
    const date = new Date(day * DAY);
    const weekday = date.getUTCDay();
    const { factor, seasons, ramadan } = seasonOf(day, islamic);
    const hoursKey = `${ramadan}-${weekday}`;
    if (!hourTables.has(hoursKey)) hourTables.set(hoursKey, hourTable(weekday, ramadan));
    days.push({
      start: day * DAY - LOCAL_OFFSET,
      weight: GROWTH_OVER_WINDOW ** progress * WEEKDAY_WEIGHTS[weekday] * factor * between(rng, 1 - DAILY_NOISE, 1 + DAILY_NOISE),
      seasons,
      rush: Math.min(1, Math.max(0, (factor - 1) / 1.3)),
      ramadan,
      hours: hourTables.get(hoursKey)!,
    });
  }
  return { anchor: end, windowStart, days };
}

/** 18 calendar months before the anchor. */
export function windowStartOf(anchor: Date): number {
  const start = new Date(anchor.getTime());
  start.setUTCMonth(start.getUTCMonth() - WINDOW_MONTHS);
  return start.getTime();
}

/** Days since 1970-01-01 on the local calendar. */
export function localDayNumber(epochMs: number): number {
  return Math.floor((epochMs + LOCAL_OFFSET) / DAY);
}

function hourTable(weekday: number, ramadan: boolean): WeightedTable<number> {
  const weights = HOUR_WEIGHTS.map((weight, hour) => {
    let w = weight;
    // Thursday and Friday evenings are the peak of the week.
    if ((weekday === 4 || weekday === 5) && hour >= 19) w *= 1.4;
    // Friday prayer.
    if (weekday === 5 && hour >= 11 && hour <= 13) w *= 0.6;
    if (ramadan) {
      // Fasting days are quiet, iftar is quieter still, and the nights run late.
      if (hour >= 9 && hour <= 17) w *= 0.55;
      if (hour === 18) w *= 0.5;
      if (hour >= 20) w *= 1.5;
      if (hour <= 2) w *= 2.2;
    }
    return w;
  });
  return new WeightedTable(
    weights.map((_, hour) => hour),
    weights,
  );
}

function seasonOf(day: number, islamic: IslamicYear[]): { factor: number; seasons: Season[]; ramadan: boolean } {
  const date = new Date(day * DAY);
  const month = date.getUTCMonth() + 1;
  const dayOfMonth = date.getUTCDate();
  const seasons = new Set<Season>();
  let factor = 1;
  let ramadan = false;

  for (const year of islamic) {
    if (day >= year.ramadan && day < year.eidAlFitr) {
      ramadan = true;
      seasons.add('ramadan');
      // The last ten nights are Eid shopping: clothes, perfume, gifts.
      if (day >= year.eidAlFitr - 10) {
        factor *= 1.85;
        seasons.add('eid');
      } else factor *= 1.35;
    } else if (day >= year.eidAlFitr && day <= year.eidAlFitr + 2) factor *= 0.85;
    else if (day > year.eidAlFitr + 2 && day <= year.eidAlFitr + 6) factor *= 1.1;
    if (day >= year.eidAlAdha - 8 && day < year.eidAlAdha) {
      factor *= 1.45;
      seasons.add('eid');
    } else if (day >= year.eidAlAdha && day <= year.eidAlAdha + 3) factor *= 0.85;
  }

  if (month === 9 && dayOfMonth >= 16 && dayOfMonth <= 23) {
    factor *= dayOfMonth === 23 ? 1.6 : 1.35;
    seasons.add('national_day');
  }
  // Founding Day, 22 February.
  if (month === 2 && dayOfMonth >= 20 && dayOfMonth <= 22) factor *= 1.2;
  if (month === 11) {
    if (dayOfMonth === 11) {
      factor *= 2.1;
      seasons.add('mega_sale');
    } else if (dayOfMonth === 10 || dayOfMonth === 12) factor *= 1.3;
    const whiteFriday = whiteFridayOf(date.getUTCFullYear());
    if (dayOfMonth >= whiteFriday && dayOfMonth <= whiteFriday + 3) {
      factor *= 2.3;
      seasons.add('mega_sale');
    } else if (dayOfMonth >= whiteFriday - 7 && dayOfMonth < whiteFriday) factor *= 1.35;
  }
  // Salaries land on the 27th.
  if (dayOfMonth >= 27 || dayOfMonth === 1) factor *= 1.18;
  else if (dayOfMonth >= 15 && dayOfMonth <= 24) factor *= 0.93;

  if (month === 7 || (month === 8 && dayOfMonth <= 15)) factor *= 0.88;
  if ((month === 8 && dayOfMonth > 15) || (month === 9 && dayOfMonth <= 7)) {
    factor *= 1.12;
    seasons.add('back_to_school');
  }
  if (month >= 11 || month <= 2) seasons.add('winter');
  if (month >= 6 && month <= 8) seasons.add('summer');
  return { factor, seasons: [...seasons].sort(), ramadan };
}

/** White Friday is the Saudi Black Friday: the day after the fourth Thursday of November. */
function whiteFridayOf(year: number): number {
  const firstWeekday = new Date(Date.UTC(year, 10, 1)).getUTCDay();
  const firstThursday = 1 + ((4 - firstWeekday + 7) % 7);
  return firstThursday + 21 + 1;
}

function islamicYearsAround(firstDay: number, lastDay: number): IslamicYear[] {
  const known = ISLAMIC_YEARS.map((year) => ({
    ramadan: dateDay(year.ramadan),
    eidAlFitr: dateDay(year.eidAlFitr),
    eidAlAdha: dateDay(year.eidAlAdha),
  }));
  const shifted = (from: IslamicYear, years: number): IslamicYear => {
    const days = Math.round(years * HIJRI_YEAR_DAYS);
    return { ramadan: from.ramadan + days, eidAlFitr: from.eidAlFitr + days, eidAlAdha: from.eidAlAdha + days };
  };
  const all = [...known];
  for (let k = 1; known[0].ramadan - k * HIJRI_YEAR_DAYS > firstDay - 400; k++) all.unshift(shifted(known[0], -k));
  for (let k = 1; known[known.length - 1].ramadan + k * HIJRI_YEAR_DAYS < lastDay + 400; k++) all.push(shifted(known[known.length - 1], k));
  return all.filter((year) => year.eidAlAdha + 10 >= firstDay && year.ramadan - 10 <= lastDay);
}

function dateDay(isoDate: string): number {
  return Date.parse(`${isoDate}T00:00:00Z`) / DAY;
}
