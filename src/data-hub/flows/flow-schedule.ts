import { CronExpressionParser } from 'cron-parser';
import { IANAZone } from 'luxon';

/**
 * A flow's schedule: a five-field cron expression in an IANA time zone (`0 2 * * *` in `Asia/Riyadh` is
 * 02:00 in Riyadh every day), read by cron-parser, the library pg-boss schedules with. Due times are
 * instants; daylight saving moves them as the zone's clocks move.
 */
export function cronProblem(cron: string): string | null {
  if (cron.trim().split(/\s+/).length !== 5) return 'five fields: minute hour day-of-month month day-of-week';
  try {
    CronExpressionParser.parse(cron, { tz: 'UTC' });
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

export function isTimezone(name: string): boolean {
  return IANAZone.isValidZone(name);
}

/** The first due time strictly after `after`. */
export function nextDueAt(cron: string, timezone: string, after: Date): Date {
  return CronExpressionParser.parse(cron, { tz: timezone, currentDate: after }).next().toDate();
}
