import { useState } from 'preact/hooks';
import { filtersOf, rangeParams } from '../../components/RangePicker.js';
import { pick, useApp } from '../../lib/app-context.js';
import { navigate } from '../../lib/router.js';
import { KNOWN_VALUES, ValueSearch, useCatalogue } from './shared.js';

function withFilters(filters: string[]): string {
  const next = new URLSearchParams(window.location.search);
  next.delete('filter');
  next.delete('cursor');
  for (const filter of filters) next.append('filter', filter);
  const search = next.toString();
  return `${window.location.pathname}${search ? `?${search}` : ''}`;
}

/** A report's filters (`filter[]=dimension:value`) in the address, with the dimension's values searched as one types. */
export function ReportFilters({ query }: { query: URLSearchParams }) {
  const { t, lang } = useApp();
  const cat = useCatalogue();
  const [dimension, setDimension] = useState('');
  const [value, setValue] = useState('');
  const current = query.getAll('filter');
  if (!cat) return null;
  const filterable = cat.dimensions.filter((entry) => entry.filterable);
  const chosen = dimension || filterable[0]?.name || '';
  const labelOf = (name: string) => {
    const entry = cat.dimensions.find((item) => item.name === name);
    return entry ? pick(lang, entry, 'label') : name;
  };
  const valueOf = (name: string, value: string) => {
    const known = KNOWN_VALUES.get(`${name}:${value}`);
    return known ? pick(lang, known, 'label') : value;
  };
  return (
    <form
      class="ins-report-filters"
      aria-label={t('ins.filters.title')}
      onSubmit={(event) => {
        event.preventDefault();
        if (!chosen || !value.trim()) return;
        navigate(withFilters([...current, `${chosen}:${value.trim()}`]));
        setValue('');
      }}
    >
      {/* Labelled by `for`, not by wrapping: the options' names stay out of the label's text. */}
      <div class="ins-field">
        <label for="report-filter-dimension">
          <span>{t('ins.filters.dimension')}</span>
        </label>
        <select
          id="report-filter-dimension"
          name="filter-dimension"
          value={chosen}
          onChange={(event) => setDimension(event.currentTarget.value)}
        >
          {filterable.map((entry) => (
            <option value={entry.name} key={entry.name}>
              {pick(lang, entry, 'label')}
            </option>
          ))}
        </select>
      </div>
      <ValueSearch id="report-filter" dimension={chosen} label={t('ins.filters.value')} value={value} onInput={setValue} />
      <button type="submit">{t('ins.filters.add')}</button>
      {filtersOf(query).length > 0 ? (
        <ul class="ins-chips" aria-label={t('ins.filters.active')}>
          {filtersOf(query).map((filter, index) => (
            <li key={`${filter.dimension}:${filter.value}`}>
              <span>
                {labelOf(filter.dimension)}: {valueOf(filter.dimension, filter.value)}
              </span>
              <button
                type="button"
                aria-label={t('ins.filters.removeOne', {
                  filter: `${labelOf(filter.dimension)}: ${valueOf(filter.dimension, filter.value)}`,
                })}
                onClick={() => navigate(withFilters(current.filter((_, at) => at !== index)))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </form>
  );
}

/** A built-in report's parameters as an export or a saved report's body takes them (`filter[]` as `filters`). */
export function reportBodyParams(query: URLSearchParams): Record<string, unknown> {
  const params = rangeParams(query);
  const out: Record<string, unknown> = {};
  const last = params.get('last');
  if (last) out.last = last === 'all' ? 'all' : Number(last);
  for (const key of ['from', 'to', 'compare', 'grain']) if (params.get(key)) out[key] = params.get(key);
  if (query.get('sort')) out.sort = query.get('sort');
  const filters = params.getAll('filter[]');
  if (filters.length) out.filters = filters;
  return out;
}
