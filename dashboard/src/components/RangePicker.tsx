import { useState } from 'preact/hooks';
import type { MessageKey } from '../i18n/messages.js';
import { useApp } from '../lib/app-context.js';
import { TIME_GRAINS } from '../lib/reports.js';
import { navigate, withQuery } from '../lib/router.js';

const PRESETS = ['7', '30', '90', '365'];

/**
 * The report query's range part (`last`, or `from` and `to`), `compare`, `grain` and filters, from the page's
 * query string. `overTime` false: a report whose page shows nothing over time (cohorts, the funnel, products
 * not selling) is asked without `compare` and `grain`, which the address keeps for the next page.
 */
export function rangeParams(query: URLSearchParams, overTime = true): URLSearchParams {
  const params = new URLSearchParams();
  const from = query.get('from');
  const to = query.get('to');
  if (from && to) {
    params.set('from', from);
    params.set('to', to);
  } else params.set('last', query.get('last') ?? '30');
  const compare = query.get('compare');
  if (compare && overTime) params.set('compare', compare);
  const grain = query.get('grain');
  if (grain && overTime && TIME_GRAINS.includes(grain)) params.set('grain', grain);
  for (const filter of query.getAll('filter')) params.append('filter[]', filter);
  return params;
}

/** The page's `filter=dimension:value` entries (repeated in the query string). */
export function filtersOf(query: URLSearchParams): { dimension: string; value: string }[] {
  return query.getAll('filter').flatMap((entry) => {
    const at = entry.indexOf(':');
    return at > 0 ? [{ dimension: entry.slice(0, at), value: entry.slice(at + 1) }] : [];
  });
}

/**
 * Last 7/30/90/365 days, all time or custom dates, what to compare with and the grain, the last two only
 * where the page shows something they change; changes go to the query string.
 */
export function RangePicker({
  query,
  range,
  compareRange,
  compare = true,
  grain = true,
}: {
  query: URLSearchParams;
  range?: { from: string; to: string };
  /** The range the answer was compared with, shown beside its own. */
  compareRange?: { from: string; to: string } | null;
  /** Offer a comparison: not where nothing on the page is compared. */
  compare?: boolean;
  /** Offer a grain: not in the builder (it splits by a time grain as a dimension), nor where nothing is shown over time. */
  grain?: boolean;
}) {
  const { t, tn, fmt } = useApp();
  const custom = Boolean(query.get('from') && query.get('to'));
  const [mode, setMode] = useState(custom ? 'custom' : (query.get('last') ?? '30'));
  const [from, setFrom] = useState(query.get('from') ?? range?.from ?? '');
  const [to, setTo] = useState(query.get('to') ?? range?.to ?? '');
  const choose = (value: string) => {
    setMode(value);
    if (value !== 'custom') navigate(withQuery({ last: value, from: null, to: null, cursor: null }));
  };
  return (
    <form
      class="range"
      aria-label={t('range.form')}
      onSubmit={(event) => {
        event.preventDefault();
        if (from && to) navigate(withQuery({ from, to, last: null, cursor: null }));
      }}
    >
      <label>
        <span>{t('range.label')}</span>
        <select name="range" value={mode} onChange={(event) => choose(event.currentTarget.value)}>
          {PRESETS.map((days) => (
            <option value={days} key={days}>
              {tn('range.last', Number(days))}
            </option>
          ))}
          <option value="all">{t('range.all')}</option>
          <option value="custom">{t('range.custom')}</option>
        </select>
      </label>
      {mode === 'custom' ? (
        <>
          <label>
            <span>{t('range.from')}</span>
            <input type="date" name="from" value={from} required onInput={(event) => setFrom(event.currentTarget.value)} />
          </label>
          <label>
            <span>{t('range.to')}</span>
            <input type="date" name="to" value={to} required onInput={(event) => setTo(event.currentTarget.value)} />
          </label>
          <button type="submit">{t('range.apply')}</button>
        </>
      ) : null}
      {compare ? (
        <label>
          <span>{t('range.compare')}</span>
          <select
            name="compare"
            value={query.get('compare') ?? ''}
            onChange={(event) => navigate(withQuery({ compare: event.currentTarget.value || null, cursor: null }))}
          >
            <option value="">{t('range.compareNone')}</option>
            <option value="previous_period">{t('range.previous_period')}</option>
            <option value="previous_year">{t('range.previous_year')}</option>
          </select>
        </label>
      ) : null}
      {grain ? (
        <label>
          <span>{t('range.grain')}</span>
          <select
            name="grain"
            value={query.get('grain') ?? ''}
            onChange={(event) => navigate(withQuery({ grain: event.currentTarget.value || null, cursor: null }))}
          >
            <option value="">{t('grain.auto')}</option>
            {TIME_GRAINS.map((grain) => (
              <option value={grain} key={grain}>
                {t(`grain.${grain}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {range ? (
        <p class="range-shown" aria-live="polite">
          {t('range.shown', { from: fmt.date(range.from), to: fmt.date(range.to) })}
          {compareRange ? (
            <span class="range-compared">
              {t('range.comparedWith', { from: fmt.date(compareRange.from), to: fmt.date(compareRange.to) })}
            </span>
          ) : null}
        </p>
      ) : null}
    </form>
  );
}
