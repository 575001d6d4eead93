import { useApp } from '../lib/app-context.js';

/** Measures whose rise is bad news: returns, cancellations, lateness, failures, searches that find nothing. */
const LOWER_IS_BETTER = new Set([
  'returns',
  'units_returned',
  'return_rate',
  'cancelled_orders',
  'late_orders',
  'open_past_promise',
  'late_by',
  'failed_payments',
  'failed_amount',
  'refunded_payments',
  'refunded_amount',
  'voided_payments',
  'voided_amount',
  'taxes_refunded',
  'zero_result_searches',
  'zero_result_rate',
  'products_not_selling',
  'days_since_last_sale',
]);

/** `value`'s change against `before` as a share of it; none where either is missing or `before` is zero. */
function changeOf(value: unknown, before: unknown): number | null {
  return typeof value === 'number' && typeof before === 'number' && before !== 0 ? (value - before) / Math.abs(before) : null;
}

/**
 * A measure's change against the compared range and the compared figure ("+63.4% vs SAR 19,070.42"),
 * green when it is good news and red when it is bad: a rise of returns or of a duration is bad.
 */
export function Change({ measure, value, before, type }: { measure: string; value: unknown; before: unknown; type: string }) {
  const { t, fmt } = useApp();
  // A figure the compared range has none of (the open orders past their promise, counted now) has no change.
  if (typeof before !== 'number') return null;
  const change = changeOf(value, before);
  const direction = change === null || change === 0 ? 'none' : change > 0 ? 'up' : 'down';
  const risingIsBad = LOWER_IS_BETTER.has(measure) || type === 'duration';
  const tone = direction === 'none' ? 'none' : (direction === 'up') !== risingIsBad ? 'good' : 'bad';
  return (
    <span class="delta" data-direction={direction} data-tone={tone}>
      {`${change === null ? '—' : fmt.percent(change, true)} ${t('compare.vs', { value: fmt.value(before, type) })}`}
    </span>
  );
}
