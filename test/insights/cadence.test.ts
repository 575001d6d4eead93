import { describe, expect, it } from 'vitest';
import { nextDueTime, type Cadence } from '../../src/insights/schedules/cadence.js';

const at = (iso: string) => new Date(iso);
const next = (cadence: Cadence, zone: string, after: string) => nextDueTime(cadence, zone, at(after)).toISOString();

describe('delivery cadences (store time zone, daylight saving)', () => {
  it('every Monday at 08:00 in Riyadh (no daylight saving) is 05:00 UTC', () => {
    const monday = { frequency: 'weekly', time: '08:00', weekday: 'monday' } as const;
    // Tuesday 2026-11-24 → Monday 2026-11-30
    expect(next(monday, 'Asia/Riyadh', '2026-11-24T10:00:00Z')).toBe('2026-11-30T05:00:00.000Z');
    // on the due time itself: the next one, a week on
    expect(next(monday, 'Asia/Riyadh', '2026-11-30T05:00:00Z')).toBe('2026-12-07T05:00:00.000Z');
    // a moment before it: that one
    expect(next(monday, 'Asia/Riyadh', '2026-11-30T04:59:59Z')).toBe('2026-11-30T05:00:00.000Z');
  });

  it('keeps the local time across New York’s changes: 08:00 is 13:00 UTC in winter, 12:00 in summer', () => {
    const monday = { frequency: 'weekly', time: '08:00', weekday: 'monday' } as const;
    // daylight saving starts Sunday 2026-03-08
    expect(next(monday, 'America/New_York', '2026-03-03T00:00:00Z')).toBe('2026-03-09T12:00:00.000Z');
    expect(next(monday, 'America/New_York', '2026-03-01T00:00:00Z')).toBe('2026-03-02T13:00:00.000Z');
    // and ends Sunday 2026-11-01
    expect(next(monday, 'America/New_York', '2026-10-27T00:00:00Z')).toBe('2026-11-02T13:00:00.000Z');
    expect(next(monday, 'America/New_York', '2026-10-20T00:00:00Z')).toBe('2026-10-26T12:00:00.000Z');
  });

  it('a time the spring-forward day skips is due when the clocks have passed it; a time shown twice is due the first time', () => {
    const daily0230 = { frequency: 'daily', time: '02:30' } as const;
    // 2026-03-08 02:00 EST → 03:00 EDT: 02:30 never shows; due at 03:30 EDT (07:30 UTC), once
    expect(next(daily0230, 'America/New_York', '2026-03-08T05:00:00Z')).toBe('2026-03-08T07:30:00.000Z');
    expect(next(daily0230, 'America/New_York', '2026-03-08T07:30:00Z')).toBe('2026-03-09T06:30:00.000Z');
    const daily0130 = { frequency: 'daily', time: '01:30' } as const;
    // 2026-11-01 02:00 EDT → 01:00 EST: 01:30 shows at 05:30 UTC and again at 06:30 UTC; due once, the first time
    expect(next(daily0130, 'America/New_York', '2026-11-01T04:00:00Z')).toBe('2026-11-01T05:30:00.000Z');
    expect(next(daily0130, 'America/New_York', '2026-11-01T05:30:00Z')).toBe('2026-11-02T06:30:00.000Z');
  });

  it('London: a daily delivery at 09:00 moves from 09:00 UTC to 08:00 UTC on the last Sunday of March', () => {
    const daily = { frequency: 'daily', time: '09:00' } as const;
    expect(next(daily, 'Europe/London', '2026-03-28T10:00:00Z')).toBe('2026-03-29T08:00:00.000Z');
    expect(next(daily, 'Europe/London', '2026-03-27T10:00:00Z')).toBe('2026-03-28T09:00:00.000Z');
  });

  it('monthly on the 31st falls on the last day of shorter months; on the 1st, on the 1st', () => {
    const last = { frequency: 'monthly', time: '23:00', dayOfMonth: 31 } as const;
    expect(next(last, 'Asia/Riyadh', '2027-02-01T00:00:00Z')).toBe('2027-02-28T20:00:00.000Z');
    expect(next(last, 'Asia/Riyadh', '2028-02-01T00:00:00Z')).toBe('2028-02-29T20:00:00.000Z');
    expect(next(last, 'Asia/Riyadh', '2027-02-28T20:00:00Z')).toBe('2027-03-31T20:00:00.000Z');
    const first = { frequency: 'monthly', time: '06:00', dayOfMonth: 1 } as const;
    expect(next(first, 'Asia/Riyadh', '2026-11-24T00:00:00Z')).toBe('2026-12-01T03:00:00.000Z');
  });

  it('daily at midnight in a zone ahead of UTC falls on the local date, not the UTC one', () => {
    const midnight = { frequency: 'daily', time: '00:00' } as const;
    // 21:30 UTC on the 24th is 00:30 on the 25th in Riyadh: next is the 26th 00:00 local
    expect(next(midnight, 'Asia/Riyadh', '2026-11-24T21:30:00Z')).toBe('2026-11-25T21:00:00.000Z');
  });
});
