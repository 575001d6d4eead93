import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/common/errors/api-error.js';
import { entitlementsOf } from '../../src/common/permissions.js';
import { cohortRanges, resolveRange, type Compare, type RangeRequest } from '../../src/insights/query/ranges.js';

/** A cohort report's range and compared range: whole months, never overlapping (ranges.ts, cohortRanges). */
describe('cohort ranges', () => {
  const cohorts = (request: RangeRequest, today: string) =>
    cohortRanges(
      resolveRange(request, { today, firstOrderDay: '2020-01-01', entitlements: entitlementsOf('pro') }),
      request.compare ?? 'none',
      today,
    );
  const ranges = (request: RangeRequest, today: string) => {
    const { range, compare } = cohorts(request, today);
    return { range, compare };
  };

  it('compares the months the range touches with as many months just before, cut on the same day when the range ends today', () => {
    // The example: on 27 November, the last 90 days are 1 August – 27 November, compared with 1 April – 27 July
    // (not 1 June – 31 August, which overlaps August).
    expect(ranges({ last: 90, compare: 'previous_period' }, '2026-11-27')).toEqual({
      range: { from: '2026-08-01', to: '2026-11-27' },
      compare: { from: '2026-04-01', to: '2026-07-27' },
    });
    expect(ranges({ last: 90, compare: 'previous_year' }, '2026-11-27')).toEqual({
      range: { from: '2026-08-01', to: '2026-11-27' },
      compare: { from: '2025-08-01', to: '2025-11-27' },
    });
  });

  it('compares whole months with whole months, whatever their lengths', () => {
    const cases: [RangeRequest, Compare, { from: string; to: string }, { from: string; to: string }][] = [
      [
        { from: '2025-08-30', to: '2025-11-27' },
        'previous_period',
        { from: '2025-08-01', to: '2025-11-30' },
        { from: '2025-04-01', to: '2025-07-31' },
      ],
      [
        { from: '2026-03-05', to: '2026-03-20' },
        'previous_period',
        { from: '2026-03-01', to: '2026-03-31' },
        { from: '2026-02-01', to: '2026-02-28' },
      ],
      [
        { from: '2024-02-10', to: '2024-02-11' },
        'previous_year',
        { from: '2024-02-01', to: '2024-02-29' },
        { from: '2023-02-01', to: '2023-02-28' },
      ],
      [
        { from: '2025-02-01', to: '2025-02-28' },
        'previous_year',
        { from: '2025-02-01', to: '2025-02-28' },
        { from: '2024-02-01', to: '2024-02-29' },
      ],
      [
        { from: '2025-11-15', to: '2026-01-10' },
        'previous_period',
        { from: '2025-11-01', to: '2026-01-31' },
        { from: '2025-08-01', to: '2025-10-31' },
      ],
    ];
    for (const [request, compare, range, compared] of cases) {
      expect(ranges({ ...request, compare }, '2026-11-27'), JSON.stringify(request)).toEqual({ range, compare: compared });
    }
  });

  it('cuts a shorter month on its last day when the range ends today on a later one', () => {
    expect(ranges({ from: '2026-03-01', to: '2026-03-30', compare: 'previous_period' }, '2026-03-30')).toEqual({
      range: { from: '2026-03-01', to: '2026-03-30' },
      compare: { from: '2026-02-01', to: '2026-02-28' },
    });
  });

  it('never overlaps: a range of more than 12 months has no year before that does not, and is refused it', () => {
    for (const today of ['2026-11-27', '2026-01-31', '2024-02-29']) {
      for (const last of [1, 30, 31, 90, 200, 365, 366]) {
        const { range, compare } = cohorts({ last, compare: 'previous_period' }, today);
        expect(compare!.to < range.from, `${today} ${last}`).toBe(true);
        expect(compare!.from.endsWith('-01')).toBe(true);
      }
    }
    // 366 days from 27 November touch 13 months (November to November)
    const refused = (() => {
      try {
        cohorts({ last: 366, compare: 'previous_year' }, '2026-11-27');
        return null;
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('invalid_range');
    expect((refused as ApiError).message).toContain('13 months');
    expect(ranges({ last: 365, compare: 'previous_year' }, '2026-11-30').compare).toEqual({ from: '2024-12-01', to: '2025-11-30' });
  });
});
