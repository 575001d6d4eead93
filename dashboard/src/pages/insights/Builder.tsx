import { useState } from 'preact/hooks';
import { Field, FieldGroup, nearestControl, useFieldErrors } from '../../components/fields.js';
import { ProblemView } from '../../components/Problem.js';
import { RangePicker, rangeParams } from '../../components/RangePicker.js';
import type { MessageKey } from '../../i18n/messages.js';
import { ApiError, answer, client, get } from '../../lib/api.js';
import { pick, useApp } from '../../lib/app-context.js';
import { useLoad } from '../../lib/load.js';
import type {
  BuilderFilter,
  BuilderQuery,
  ReferenceItem,
  ExportSource,
  InsightsExport,
  ReportResponse,
  SavedReport,
} from '../../lib/types.js';
import { ResultView } from './ReportView.js';
import { ExportProgress, ValueSearch, fold, useCatalogue } from './shared.js';

const OPERATORS: readonly BuilderFilter['op'][] = ['in', 'not_in', 'contains', 'gt', 'gte', 'lt', 'lte', 'between', 'is_set', 'is_not_set'];
const MAX_DIMENSIONS = 3;
/** The builder's controls, by the API field each sends (`filters` covers `filters[0].values`). */
const BUILDER_CONTROLS = ['measures', 'dimensions', 'filters', 'sort', 'limit'];

/** The query string's range as the builder's body takes it. */
export function bodyRange(query: URLSearchParams): Pick<BuilderQuery, 'last' | 'from' | 'to' | 'compare'> {
  const params = rangeParams(query);
  const range: Pick<BuilderQuery, 'last' | 'from' | 'to' | 'compare'> = {};
  const last = params.get('last');
  if (last) range.last = last === 'all' ? 'all' : Number(last);
  if (params.get('from')) range.from = params.get('from')!;
  if (params.get('to')) range.to = params.get('to')!;
  if (params.get('compare')) range.compare = params.get('compare') as BuilderQuery['compare'];
  return range;
}

/** The builder with a saved builder report opened in it (`saved`), its range in the address as the range picker keeps it. */
export function builderPath(savedReportId: string, query: BuilderQuery): string {
  const params = new URLSearchParams({ saved: savedReportId });
  if (query.from && query.to) {
    params.set('from', query.from);
    params.set('to', query.to);
  } else if (query.last !== undefined) params.set('last', String(query.last));
  if (query.compare) params.set('compare', query.compare);
  return `/insights/builder?${params}`;
}

interface FilterDraft {
  dimension: string;
  op: BuilderFilter['op'];
  value: string;
}

/**
 * Measures by up to three dimensions, filtered, over a range; run, export what is too big, save. With
 * `?saved=id` a saved builder report is opened in it, filled in, to be saved again or saved as a copy.
 */
export function Builder({ query }: { query: URLSearchParams }) {
  const { t, lang } = useApp();
  const cat = useCatalogue();
  const savedId = query.get('saved');
  const opened = useLoad(savedId ? () => get('/admin/insights/saved-reports/{id}', { path: { id: savedId } }) : null, [savedId]);
  if (opened.error)
    return (
      <section aria-labelledby="page-title" data-page="builder">
        <h1 id="page-title">{t('ins.builder.title')}</h1>
        <ProblemView error={opened.error} lang={lang} />
      </section>
    );
  // While another saved report is read, the one read before is not the one to fill in.
  if (!cat || (savedId && opened.data?.id !== savedId)) return <p role="status">{t('app.loading')}</p>;
  return <BuilderForm query={query} cat={cat} opened={opened.data} key={savedId ?? ''} />;
}

/**
 * Every measure the builder takes, grouped by area, all in view, with a search of their names and
 * descriptions (in either language) that narrows the groups; chosen measures stay in view whatever the search.
 */
function MeasurePicker({
  measures,
  chosen,
  onChange,
}: {
  measures: ReferenceItem[];
  chosen: string[];
  onChange: (chosen: string[]) => void;
}) {
  const { t, lang, fmt } = useApp();
  const [search, setSearch] = useState('');
  const wanted = fold(search);
  const shown = measures.filter(
    (measure) =>
      chosen.includes(measure.name) ||
      [measure.label_en, measure.label_ar, measure.description_en, measure.description_ar].some((text) => fold(text).includes(wanted)),
  );
  const areas = [...new Set(measures.map((measure) => measure.area))];
  return (
    <>
      <div class="ins-measure-search">
        <label>
          <span>{t('ins.builder.findMeasure')}</span>
          <input type="search" name="measure-search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
        </label>
        <p class="hint" aria-live="polite">
          {t('ins.builder.measuresShown', {
            shown: fmt.number(shown.length),
            all: fmt.number(measures.length),
            chosen: fmt.number(chosen.length),
          })}
        </p>
      </div>
      {areas.map((area) => {
        const inArea = shown.filter((measure) => measure.area === area);
        if (inArea.length === 0) return null;
        return (
          <fieldset class="ins-measure-area" key={area} data-area={area}>
            <legend>{t(`area.${area}` as MessageKey)}</legend>
            <div class="ins-checks">
              {inArea.map((measure) => (
                <label key={measure.name} title={pick(lang, measure, 'description')}>
                  <input
                    type="checkbox"
                    name="measure"
                    value={measure.name}
                    checked={chosen.includes(measure.name)}
                    onChange={(event) =>
                      onChange(event.currentTarget.checked ? [...chosen, measure.name] : chosen.filter((name) => name !== measure.name))
                    }
                  />
                  <span>{pick(lang, measure, 'label')}</span>
                </label>
              ))}
            </div>
          </fieldset>
        );
      })}
      {shown.length === 0 ? <p>{t('ins.builder.noMeasure', { search: search.trim() })}</p> : null}
    </>
  );
}

/** The builder's form, filled in from `opened` when a saved builder report is opened in it. */
function BuilderForm({
  query,
  cat,
  opened,
}: {
  query: URLSearchParams;
  cat: { measures: ReferenceItem[]; dimensions: ReferenceItem[] };
  opened: SavedReport | null;
}) {
  const { t, tn, lang, fmt, can, canWrite, entitled } = useApp();
  const initial = opened?.definition.builder ?? null;
  const [measures, setMeasures] = useState<string[]>(initial?.measures ?? ['net_sales']);
  const [dimensions, setDimensions] = useState<string[]>(
    initial ? [...(initial.dimensions ?? []), '', '', ''].slice(0, MAX_DIMENSIONS) : ['day', '', ''],
  );
  const [filters, setFilters] = useState<FilterDraft[]>(
    (initial?.filters ?? []).map((filter) => ({ dimension: filter.dimension, op: filter.op, value: (filter.values ?? []).join(', ') })),
  );
  const [sort, setSort] = useState(initial?.sort ?? '');
  const [limit, setLimit] = useState(initial?.limit === undefined ? '' : String(initial.limit));
  const [result, setResult] = useState<ReportResponse | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [exported, setExported] = useState<InsightsExport | null>(null);
  const [exportError, setExportError] = useState<unknown>(null);
  // The saved report that "Save changes" updates: the one opened, or the copy saved from it since.
  const [target, setTarget] = useState<SavedReport | null>(initial ? opened : null);
  const [name, setName] = useState(target?.name ?? '');
  const [saved, setSaved] = useState<{ report: SavedReport; updated: boolean } | null>(null);
  const [saveError, setSaveError] = useState<unknown>(null);
  const [copyNeedsName, setCopyNeedsName] = useState(false);
  const builderMeasures = cat.measures.filter((measure) => measure.builder !== false);
  const chosenDims = dimensions.filter(Boolean);
  // Dimensions every chosen measure can be split by.
  const splittable = cat.dimensions.filter((dimension) =>
    measures.every((name) => cat.measures.find((measure) => measure.name === name)?.dimensions?.includes(dimension.name) ?? true),
  );
  const filterable = cat.dimensions.filter((dimension) => dimension.filterable);
  const builderQuery = (): BuilderQuery => {
    const out: BuilderQuery = { measures, dimensions: chosenDims, ...bodyRange(query) };
    const complete = filters.filter((filter) => filter.dimension && filter.op);
    if (complete.length)
      out.filters = complete.map<BuilderFilter>((filter) => ({
        dimension: filter.dimension,
        op: filter.op,
        values:
          filter.op === 'is_set' || filter.op === 'is_not_set'
            ? []
            : filter.value
                .split(',')
                .map((value) => value.trim())
                .filter(Boolean),
      }));
    if (sort) out.sort = sort;
    if (limit) out.limit = Number(limit);
    return out;
  };
  const run = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setExported(null);
    setExportError(null);
    try {
      setResult(await answer(client.POST('/admin/insights/builder/run', { body: builderQuery() })));
    } catch (caught) {
      setResult(null);
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const problem = error instanceof ApiError ? error.problem : null;
  const errors = useFieldErrors(error, nearestControl(BUILDER_CONTROLS), {
    dimensions: problem?.code === 'too_many_dimensions' && pick(lang, problem, 'message'),
  });
  const saveErrors = useFieldErrors(saveError, nearestControl(['name']), { name: copyNeedsName && t('ins.builder.copyNeedsName') });
  // Too many rows, or too many records to read in time: both refusals suggest the export of the same query, as `POST /exports` takes it.
  const overLimit = problem?.code === 'over_row_limit' || problem?.code === 'query_too_heavy' ? problem : null;
  const exportBody = (overLimit?.suggestion as { export?: { source: ExportSource; format: InsightsExport['format'] } } | undefined)?.export;
  // Too heavy: how many orders it would read and the days that fit, or the time it ran out of, in the member's words and digits.
  const tooHeavy = (refusal: Record<string, unknown>) => {
    const fits = (refusal.suggestion as { range?: { from: string; to: string } } | undefined)?.range;
    if (typeof refusal.orders !== 'number') return t('ins.builder.tooSlow', { seconds: fmt.number(Number(refusal.timeoutSeconds ?? 0)) });
    const orders = t('ins.builder.tooManyOrders', { orders: fmt.number(refusal.orders), max: fmt.number(Number(refusal.maxOrders ?? 0)) });
    const fitting = fits ? ` ${t('ins.builder.fits', { from: fmt.date(fits.from), to: fmt.date(fits.to) })}` : '';
    return `${orders}${fitting} ${t('ins.builder.narrowOrExport')}`;
  };
  const mayExport = canWrite && entitled('feature:export_csv');
  const maySave = canWrite && can('insights.reports.manage') && entitled('feature:saved_reports');
  const title = t('ins.builder.title');
  return (
    <section aria-labelledby="page-title" aria-busy={busy} data-page="builder">
      <h1 id="page-title">{title}</h1>
      <RangePicker query={query} grain={false} key={query.toString()} />
      <form class="ins-form ins-builder" ref={errors.formRef} onSubmit={run} aria-label={title}>
        <FieldGroup class="ins-measures" legend={t('ins.builder.measures')} name="measures" errors={errors}>
          <MeasurePicker measures={builderMeasures} chosen={measures} onChange={setMeasures} />
        </FieldGroup>
        <FieldGroup legend={t('ins.builder.dimensions', { max: fmt.number(MAX_DIMENSIONS) })} name="dimensions" errors={errors}>
          {dimensions.map((value, index) => (
            <label key={index}>
              <span>{t('ins.builder.dimensionN', { n: fmt.number(index + 1) })}</span>
              <select
                name={`dimension-${index + 1}`}
                value={value}
                onChange={(event) => setDimensions(dimensions.map((old, at) => (at === index ? event.currentTarget.value : old)))}
              >
                <option value="">{t('ins.none')}</option>
                {(splittable.some((dimension) => dimension.name === value)
                  ? splittable
                  : [...splittable, ...cat.dimensions.filter((d) => d.name === value)]
                ).map((dimension) => (
                  <option value={dimension.name} key={dimension.name}>
                    {pick(lang, dimension, 'label')}
                  </option>
                ))}
              </select>
            </label>
          ))}
        </FieldGroup>
        <FieldGroup legend={t('ins.filters.title')} name="filters" errors={errors}>
          {filters.map((filter, index) => {
            const update = (change: Partial<FilterDraft>) =>
              setFilters(filters.map((old, at) => (at === index ? { ...old, ...change } : old)));
            const dimension = filterable.find((entry) => entry.name === filter.dimension);
            return (
              <div class="ins-filter" key={index} data-filter={index}>
                <label>
                  <span>{t('ins.filters.dimension')}</span>
                  <select value={filter.dimension} onChange={(event) => update({ dimension: event.currentTarget.value, value: '' })}>
                    <option value="">{t('ins.none')}</option>
                    {filterable.map((entry) => (
                      <option value={entry.name} key={entry.name}>
                        {pick(lang, entry, 'label')}
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  <span>{t('ins.filters.op')}</span>
                  <select value={filter.op} onChange={(event) => update({ op: event.currentTarget.value as BuilderFilter['op'] })}>
                    {(dimension?.operators ?? OPERATORS).map((op) => (
                      <option value={op} key={op}>
                        {t(`ins.op.${op}` as MessageKey)}
                      </option>
                    ))}
                  </select>
                </label>
                {filter.op !== 'is_set' && filter.op !== 'is_not_set' ? (
                  <ValueSearch
                    id={`builder-filter-${index}`}
                    dimension={filter.dimension}
                    label={t('ins.filters.values')}
                    value={filter.value}
                    onInput={(value) => update({ value })}
                  />
                ) : null}
                <button type="button" onClick={() => setFilters(filters.filter((_, at) => at !== index))}>
                  {t('ins.filters.remove')}
                </button>
              </div>
            );
          })}
          <button type="button" onClick={() => setFilters([...filters, { dimension: filterable[0]?.name ?? '', op: 'in', value: '' }])}>
            {t('ins.filters.add')}
          </button>
        </FieldGroup>
        <div class="ins-row">
          <Field label={t('ins.builder.sort')} name="sort" errors={errors}>
            {(control) => (
              <select {...control} value={sort} onChange={(event) => setSort(event.currentTarget.value)}>
                <option value="">{t('ins.builder.sortDefault')}</option>
                {measures.flatMap((name) => {
                  const measure = cat.measures.find((entry) => entry.name === name);
                  const label = measure ? pick(lang, measure, 'label') : name;
                  return [
                    <option value={`-${name}`} key={`-${name}`}>
                      {t('ins.builder.sortDesc', { measure: label })}
                    </option>,
                    <option value={name} key={name}>
                      {t('ins.builder.sortAsc', { measure: label })}
                    </option>,
                  ];
                })}
              </select>
            )}
          </Field>
          <Field label={t('ins.builder.limit')} name="limit" errors={errors}>
            {(control) => (
              <input
                {...control}
                type="number"
                min={1}
                inputMode="numeric"
                value={limit}
                onInput={(event) => setLimit(event.currentTarget.value)}
              />
            )}
          </Field>
          <button type="submit" disabled={busy || measures.length === 0}>
            {busy ? t('app.loading') : t('ins.builder.run')}
          </button>
        </div>
        {errors.rest}
      </form>
      {overLimit ? (
        <div class="problem ins-over-limit" role="alert" data-code={overLimit.code}>
          <p>
            {overLimit.code === 'over_row_limit'
              ? tn('ins.builder.overLimit', Number(overLimit.rowCount ?? 0), {
                  limit: fmt.number(Number(overLimit.rowLimit ?? 5000)),
                })
              : tooHeavy(overLimit)}
          </p>
          {overLimit.code === 'over_row_limit' && exportBody ? <p class="suggestion">{t('ins.builder.exportHint')}</p> : null}
          {exportBody && mayExport ? (
            <button
              type="button"
              data-write
              onClick={() => {
                setExportError(null);
                answer(client.POST('/admin/insights/exports', { body: exportBody })).then(setExported, setExportError);
              }}
            >
              {t('ins.builder.export')}
            </button>
          ) : null}
        </div>
      ) : error && problem?.code !== 'too_many_dimensions' && problem?.code !== 'validation_failed' ? (
        <ProblemView error={error} lang={lang} />
      ) : null}
      {problem?.code === 'validation_failed' ? (
        <p role="alert" class="problem">
          {pick(lang, problem, 'message')}
        </p>
      ) : null}
      {exportError ? <ProblemView error={exportError} lang={lang} /> : null}
      {exported ? <ExportProgress initial={exported} key={exported.id} /> : null}
      {result ? <ResultView data={result} title={title} /> : null}
      {maySave ? (
        <form
          class="ins-form ins-save"
          ref={saveErrors.formRef}
          aria-label={t('ins.builder.save')}
          onSubmit={(event) => {
            event.preventDefault();
            const update = target !== null && (event.submitter as HTMLButtonElement | null)?.value === 'update';
            setSaved(null);
            setSaveError(null);
            // A copy is told apart from the report it was opened from by its name.
            const unnamedCopy = !update && target !== null && name.trim() === target.name;
            setCopyNeedsName(unnamedCopy);
            if (unnamedCopy) return;
            const request = { name, definition: { builder: builderQuery() } };
            answer(
              update
                ? client.PATCH('/admin/insights/saved-reports/{id}', { params: { path: { id: target.id } }, body: request })
                : client.POST('/admin/insights/saved-reports', { body: request }),
            ).then((report) => {
              setTarget(report);
              setSaved({ report, updated: update });
            }, setSaveError);
          }}
        >
          <Field label={t('ins.saved.name')} name="name" errors={saveErrors}>
            {(control) => (
              <input {...control} required maxLength={120} value={name} onInput={(event) => setName(event.currentTarget.value)} />
            )}
          </Field>
          {target ? (
            <button type="submit" name="save" value="update" data-write>
              {t('ins.builder.update', { name: target.name })}
            </button>
          ) : null}
          <button type="submit" name="save" value="copy" data-write>
            {target ? t('ins.builder.saveCopy') : t('ins.builder.save')}
          </button>
          {saveError ? <ProblemView error={saveError} lang={lang} /> : null}
          {saveErrors.rest}
          {saved ? (
            <p role="status" data-saved={saved.report.id}>
              {t(saved.updated ? 'ins.builder.updated' : 'ins.builder.saved', { name: saved.report.name })}
            </p>
          ) : null}
        </form>
      ) : null}
    </section>
  );
}
