import { DateTime } from 'luxon';

import { WEEKDAYS, type Frequency, type Weekday } from '../entities/insights-schedule.entity.js';

/** When a schedule delivers: a local time of day, every day, on one weekday, or on one day of the month. */
export interface Cadence {
  frequency: Frequency;
  /** `HH:MM`, 24-hour, in the store's time zone. */
  time: string;
  /** Weekly only. */
  weekday?: Weekday;
  /** Monthly only, 1 to 31: a month without that day delivers on its last day. */
  dayOfMonth?: number;
}

/**
 * The first due time of the cadence strictly after `after`, the wall-clock time read in `zone`. Across
 * daylight-saving changes the local time holds (08:00 stays 08:00, its UTC instant moves); a time
 * that a spring-forward day skips is due when the clocks have moved past it (02:30 → 03:30), and a
 * time that a fall-back day shows twice is due the first time.
 */
export function nextDueTime(cadence: Cadence, zone: string, after: Date): Date {
  const [hour, minute] = cadence.time.split(':').map(Number);
  const start = DateTime.fromJSDate(after, { zone }).startOf('day');
  // Every cadence recurs within two months; more is a bad cadence, not a search to go on with.
  for (let days = 0; days <= 62; days += 1) {
    const day = start.plus({ days });
    if (!falls(cadence, day)) continue;
    const due = wallClock(day, hour, minute, zone);
    if (due.toMillis() > after.getTime()) return due.toJSDate();
  }
  throw new Error(`no due time within two months for ${JSON.stringify(cadence)}`);
}

function falls(cadence: Cadence, day: DateTime): boolean {
  switch (cadence.frequency) {
    case 'daily':
      return true;
    case 'weekly':
      return day.weekday === WEEKDAYS.indexOf(cadence.weekday!) + 1;
    case 'monthly':
      return day.day === Math.min(cadence.dayOfMonth!, day.daysInMonth!);
  }
}

/** The instant the clocks of `zone` show `hour:minute` on `day`: the first of two, or the moment after a skipped one. */
function wallClock(day: DateTime, hour: number, minute: number, zone: string): DateTime {
  // luxon moves a skipped time forward, and of two it takes the later (the offset after the change).
  const at = DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour, minute }, { zone });
  const shift = Math.abs(at.offset - at.minus({ hours: 3 }).offset);
  if (shift > 0) {
    const earlier = at.minus({ minutes: shift });
    if (earlier.hour === hour && earlier.minute === minute && earlier.day === at.day) return earlier;
  }
  return at;
}
