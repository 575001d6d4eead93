import { useEffect, useState } from 'preact/hooks';
import { fieldErrorsOf } from '../../components/fields.js';
import { filtersOf, rangeParams } from '../../components/RangePicker.js';
import { ApiError } from '../../lib/api.js';
import { pick, useApp } from '../../lib/app-context.js';
import { navigate } from '../../lib/router.js';
import type { DimensionValue, ReportParams } from '../../lib/types.js';
import { fold, rememberValues, rememberedValue, searchValues, useCatalogue, valueNamed, ValueSearch } from './shared.js';

function withFilters(filters: string[]): string {
  const next = new URLSearchParams(window.location.search);
  next.delete('filter');
  next.delete('cursor');
  for (const filter of filters) next.append('filter', filter);
  const search = next.toString();
  return `${window.location.pathname}${search ? `?${search}` : ''}`;
}

/** An id the page cannot name (a UUID or a number): never shown as a filter's name. */
const looksLikeId = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) || /^\d+$/.test(value);

/**
 * The values typed text names (its value or its name in English or Arabic, as search compares text), and
 * the values the search found for it, closest first.
 */
async function resolveTyped(dimension: string, text: string): Promise<{ named: DimensionValue[]; found: DimensionValue[] }> {
  const found = await searchValues(dimension, text.trim());
  const wanted = fold(text);
  const named = found.filter((item) => [item.value, item.label_en, item.label_ar].some((name) => fold(name) === wanted));
  return { named, found };
}

/** The `unknown_dimension_value` refusal of a report, if that is what `error` is. */
function unknownValueOf(error: unknown) {
  if (!(error instanceof ApiError) || error.problem.code !== 'unknown_dimension_value') return null;
  const { dimension, value, suggestion } = error.problem as {
    dimension?: string;
    value?: string;
    suggestion?: { values?: DimensionValue[] };
  };
  return dimension && value !== undefined ? { dimension, value, values: suggestion?.values ?? [] } : null;
}

/**
 * A report's filters (`filter=dimension:value` in the address, by the value's id): the dimensions offered
 * are those the report can be filtered by (`filterable`, from its answer; none while it is unknown). A typed
 * value is added only once the values endpoint resolves it (its name in either language or its value);
 * otherwise the values closest to it are offered to choose from. Each filter is shown by its value's name.
 * `error`: the report's refusal, whose `unknown_dimension_value` offers its suggested values in place of
 * the filter it names.
 */
export function ReportFilters({ query, filterable, error }: { query: URLSearchParams; filterable?: string[]; error?: unknown }) {
  const { t, lang } = useApp();
  const cat = useCatalogue();
  const [dimension, setDimension] = useState('');
  const [text, setText] = useState('');
  const [unresolved, setUnresolved] = useState<{ dimension: string; text: string; choices: DimensionValue[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const current = query.getAll('filter');
  const active = filtersOf(query);
  const names = useValueNames(active);
  if (!cat) return null;
  const offered = cat.dimensions.filter((entry) => filterable?.includes(entry.name));
  const chosen = offered.some((entry) => entry.name === dimension) ? dimension : (offered[0]?.name ?? '');
  const dimensionLabel = (name: string) => {
    const entry = cat.dimensions.find((item) => item.name === name);
    return entry ? pick(lang, entry, 'label') : name;
  };
  const valueLabel = (name: string, value: string) => {
    const known = rememberedValue(name, value) ?? names[`${name}:${value}`];
    if (known) return pick(lang, known, 'label');
    return looksLikeId(value) ? t('ins.filters.unnamed') : value;
  };
  const add = (name: string, value: DimensionValue) => {
    rememberValues(name, [value]);
    setText('');
    setUnresolved(null);
    const filter = `${name}:${value.value}`;
    if (!current.includes(filter)) navigate(withFilters([...current, filter]));
  };
  const refused = unknownValueOf(error);
  // A refusal naming filters by their place (`filter[1]`: a dimension the report cannot be filtered by) marks them.
  const refusedAt = new Set(
    fieldErrorsOf(error)
      .flatMap((fieldError) => /^filter\[(\d+)\]/.exec(fieldError.field)?.[1] ?? [])
      .map(Number),
  );
  const noteId = 'report-filter-note';
  return (
    <form
      class="ins-report-filters"
      aria-label={t('ins.filters.title')}
      aria-busy={busy}
      onSubmit={(event) => {
        event.preventDefault();
        if (!chosen || !text.trim() || busy) return;
        setBusy(true);
        resolveTyped(chosen, text)
          .then(
            ({ named, found }) =>
              named.length === 1
                ? add(chosen, named[0])
                : setUnresolved({ dimension: chosen, text: text.trim(), choices: named.length > 1 ? named : found }),
            () => setUnresolved({ dimension: chosen, text: text.trim(), choices: [] }),
          )
          .finally(() => setBusy(false));
      }}
    >
      {offered.length > 0 ? (
        <>
          {/* Labelled by `for`, not by wrapping: the options' names stay out of the label's text. */}
          <div class="ins-field">
            <label for="report-filter-dimension">
              <span>{t('ins.filters.dimension')}</span>
            </label>
            <select
              id="report-filter-dimension"
              name="filter-dimension"
              value={chosen}
              onChange={(event) => {
                setDimension(event.currentTarget.value);
                setUnresolved(null);
              }}
            >
              {offered.map((entry) => (
                <option value={entry.name} key={entry.name}>
                  {pick(lang, entry, 'label')}
                </option>
              ))}
            </select>
          </div>
          <ValueSearch
            id="report-filter"
            dimension={chosen}
            label={t('ins.filters.value')}
            value={text}
            onInput={(value) => {
              setText(value);
              setUnresolved(null);
            }}
            describedBy={unresolved ? noteId : undefined}
            invalid={Boolean(unresolved)}
          />
          <button type="submit" disabled={busy}>
            {t('ins.filters.add')}
          </button>
        </>
      ) : filterable ? (
        <p class="hint">{t('ins.filters.none')}</p>
      ) : null}
      {unresolved ? (
        <ValueChoices
          id={noteId}
          message={t(unresolved.choices.length > 0 ? 'ins.filters.noMatch' : 'ins.filters.nothingLike', {
            dimension: dimensionLabel(unresolved.dimension),
            value: unresolved.text,
          })}
          choices={unresolved.choices}
          onChoose={(value) => add(unresolved.dimension, value)}
        />
      ) : null}
      {active.length > 0 ? (
        <ul class="ins-chips" aria-label={t('ins.filters.active')}>
          {active.map((filter, index) => {
            const named = `${dimensionLabel(filter.dimension)}: ${valueLabel(filter.dimension, filter.value)}`;
            const invalid = (refused?.dimension === filter.dimension && refused.value === filter.value) || refusedAt.has(index);
            return (
              <li key={`${filter.dimension}:${filter.value}`} data-filter-chip={filter.dimension} data-invalid={invalid || undefined}>
                <span>{named}</span>
                <button
                  type="button"
                  aria-label={t('ins.filters.removeOne', { filter: named })}
                  onClick={() => navigate(withFilters(current.filter((_, at) => at !== index)))}
                >
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
      {refused && refused.values.length > 0 ? (
        <ValueChoices
          id="report-filter-suggested"
          message={t('ins.filters.insteadOf', { dimension: dimensionLabel(refused.dimension), value: refused.value })}
          choices={refused.values}
          onChoose={(value) => {
            rememberValues(refused.dimension, [value]);
            const replaced = current.map((filter) =>
              filter === `${refused.dimension}:${refused.value}` ? `${refused.dimension}:${value.value}` : filter,
            );
            navigate(withFilters([...new Set(replaced)]));
          }}
        />
      ) : null}
    </form>
  );
}

/** A note about a value that names none (or several), and the values to choose from instead. */
function ValueChoices({
  id,
  message,
  choices,
  onChoose,
}: {
  id: string;
  message: string;
  choices: DimensionValue[];
  onChoose: (value: DimensionValue) => void;
}) {
  const { t, lang } = useApp();
  return (
    <div class="ins-value-choices" id={id} role="status" data-value-choices>
      <p>{message}</p>
      {choices.length > 0 ? (
        <ul aria-label={t('ins.filters.choices')}>
          {choices.map((choice) => (
            <li key={choice.value}>
              <button type="button" onClick={() => onChoose(choice)}>
                {pick(lang, choice, 'label')}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * Names of the active filters' values the page has not seen (a shared link, an address opened in another
 * tab): looked up by value (`?value=`). A value written by hand as a name has none and is shown as written.
 */
function useValueNames(active: { dimension: string; value: string }[]): Record<string, DimensionValue> {
  const [found, setFound] = useState<Record<string, DimensionValue>>({});
  const unknown = active.filter((filter) => !rememberedValue(filter.dimension, filter.value));
  const key = unknown.map((filter) => `${filter.dimension}:${filter.value}`).join('\n');
  useEffect(() => {
    let live = true;
    for (const filter of unknown) {
      valueNamed(filter.dimension, filter.value).then(
        (named) => {
          if (live && named) setFound((before) => ({ ...before, [`${filter.dimension}:${filter.value}`]: named }));
        },
        () => undefined,
      );
    }
    return () => {
      live = false;
    };
  }, [key]);
  return found;
}

/** A built-in report's parameters as an export or a saved report's body takes them (`filter[]` as `filters`). */
export function reportBodyParams(query: URLSearchParams, overTime = true): ReportParams {
  const params = rangeParams(query, overTime);
  const out: ReportParams = {};
  const last = params.get('last');
  if (last) out.last = last === 'all' ? 'all' : Number(last);
  if (params.get('from')) out.from = params.get('from')!;
  if (params.get('to')) out.to = params.get('to')!;
  if (params.get('compare')) out.compare = params.get('compare') as ReportParams['compare'];
  if (params.get('grain')) out.grain = params.get('grain') as ReportParams['grain'];
  if (query.get('sort')) out.sort = query.get('sort')!;
  const filters = params.getAll('filter[]');
  if (filters.length) out.filters = filters;
  return out;
}
