import { useApp } from '../lib/app-context.js';
import type { Direction } from '../lib/types.js';

/**
 * `value`'s change against `before` as a merchant reads it: a ratio's in percentage points (the difference
 * of two rates), anything else's as a share of `before`; none where either is missing or a share of zero.
 */
function changeOf(value: unknown, before: unknown, type: string): number | null {
  if (typeof value !== 'number' || typeof before !== 'number') return null;
  if (type === 'ratio') return value - before;
  return before !== 0 ? (value - before) / Math.abs(before) : null;
}

/**
 * A measure's change against the compared range and the compared figure ("+63.4% vs SAR 19,070.42",
 * "−0.1 pt vs 3.1%"), green when it is good news and red when it is bad, as the measure's `direction` says.
 */
export function Change({ value, before, type, direction }: { value: unknown; before: unknown; type: string; direction?: Direction }) {
  const { t, fmt } = useApp();
  // A figure the compared range has none of (the open orders past their promise, counted now) has no change.
  if (typeof before !== 'number') return null;
  const change = changeOf(value, before, type);
  // Which way it moved, even from zero (returns where there were none is bad news), where a share cannot say by how much.
  const moved = typeof value !== 'number' || value === before ? 'none' : value > before ? 'up' : 'down';
  const tone =
    moved === 'none' || direction === undefined || direction === 'neutral'
      ? 'none'
      : (moved === 'up') === (direction === 'higher_is_better')
        ? 'good'
        : 'bad';
  const shown = change === null ? '—' : type === 'ratio' ? fmt.points(change) : fmt.percent(change, true);
  return (
    <span class="delta" data-direction={moved} data-tone={tone}>
      {`${shown} ${t('compare.vs', { value: fmt.value(before, type) })}`}
    </span>
  );
}
