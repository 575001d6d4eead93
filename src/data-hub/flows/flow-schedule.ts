import { CronExpressionParser } from 'cron-parser';

/**
 * A flow's schedule: a five-field cron expression in an IANA time zone (`0 2 * * *` in `Asia/Riyadh` is
 * 02:00 in Riyadh every day), read by cron-parser, the library pg-boss schedules with. Due times are
 * instants; daylight saving moves them as the zone's clocks move. (A flow's cron and zone are checked by
 * CronField and TimeZoneField.)
 */

/** The first due time strictly after `after`. */
export function nextDueAt(cron: string, timezone: string, after: Date): Date {
  return CronExpressionParser.parse(cron, { tz: timezone, currentDate: after }).next().toDate();
}
