import { describe, expect, it } from 'vitest';
import { cronProblem, isTimezone } from '../../src/common/validation/schedule-fields.js';
import { nextDueAt } from '../../src/data-hub/flows/flow-schedule.js';

describe('flow schedules: cron in a time zone', () => {
  it('takes five-field cron expressions only, and IANA zones', () => {
    expect(cronProblem('0 2 * * *')).toBeNull();
    expect(cronProblem('*/15 6-22 * * 0-4')).toBeNull();
    expect(cronProblem('0 0 2 * * *')).toMatch(/five fields/);
    expect(cronProblem('61 2 * * *')).not.toBeNull();
    expect(cronProblem('nonsense')).not.toBeNull();
    expect([isTimezone('Asia/Riyadh'), isTimezone('Europe/London'), isTimezone('Mars/Olympus'), isTimezone('')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('gives the next due time strictly after now, following the zone’s daylight saving', () => {
    expect(nextDueAt('30 2 * * *', 'Asia/Riyadh', new Date('2026-11-24T12:00:00Z')).toISOString()).toBe('2026-11-24T23:30:00.000Z');
    expect(nextDueAt('30 2 * * *', 'Asia/Riyadh', new Date('2026-11-24T23:30:00Z')).toISOString()).toBe('2026-11-25T23:30:00.000Z');
    // London moves to summer time on 29 March 2026: 09:00 local is 09:00Z before, 08:00Z after.
    expect(nextDueAt('0 9 * * *', 'Europe/London', new Date('2026-03-28T00:00:00Z')).toISOString()).toBe('2026-03-28T09:00:00.000Z');
    expect(nextDueAt('0 9 * * *', 'Europe/London', new Date('2026-03-28T09:00:00Z')).toISOString()).toBe('2026-03-29T08:00:00.000Z');
  });
});
