import { useEffect, useMemo, useState } from 'preact/hooks';
import { Chart } from '../../components/Chart.js';
import { ProblemView } from '../../components/Problem.js';
import type { MessageKey } from '../../i18n/messages.js';
import { ApiError, get, post } from '../../lib/api.js';
import { pick, useApp } from '../../lib/app-context.js';
import type { CatalogueItem, Column, DimensionValue, InsightsExport, Page, ReportResponse, Row } from '../../lib/types.js';
import { barOption, lineOption } from '../chart-options.js';

let catalogue: Promise<{ measures: CatalogueItem[]; dimensions: CatalogueItem[] }> | null = null;

/** GETs `path` again whenever `version` changes (after a write), keeping the last answer meanwhile. */
export function useLoad<T>(path: string, version: number): { data: T | null; error: unknown } {
  const [state, setState] = useState<{ data: T | null; error: unknown }>({ data: null, error: null });
  useEffect(() => {
    let live = true;
    get<T>(path).then(
      (data) => live && setState({ data, error: null }),
      (error: unknown) => live && setState({ data: null, error }),
    );
    return () => {
      live = false;
    };
  }, [path, version]);
  return state;
}

/** `GET /measures` and `GET /dimensions`, once per page load. */
export function useCatalogue(): { measures: CatalogueItem[]; dimensions: CatalogueItem[] } | null {
  const [value, setValue] = useState<{ measures: CatalogueItem[]; dimensions: CatalogueItem[] } | null>(null);
  useEffect(() => {
    catalogue ??= Promise.all([
      get<Page<CatalogueItem>>('/admin/insights/measures'),
      get<Page<CatalogueItem>>('/admin/insights/dimensions'),
    ]).then(([measures, dimensions]) => ({ measures: measures.items, dimensions: dimensions.items }));
    catalogue.then(setValue, () => {
      catalogue = null;
    });
  }, []);
  return value;
}

/** Values seen in searches, so that a chosen filter shows its name rather than its id. */
export const KNOWN_VALUES = new Map<string, DimensionValue>();

/** A dimension's values as the member types (`GET /dimensions/{d}/values?q=`), offered in a datalist. */
export function ValueSearch({
  dimension,
  id,
  label,
  value,
  onInput,
}: {
  dimension: string;
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
}) {
  const { lang } = useApp();
  const [options, setOptions] = useState<DimensionValue[]>([]);
  useEffect(() => {
    if (!dimension) return;
    let live = true;
    const timer = setTimeout(() => {
      get<Page<DimensionValue>>(
        `/admin/insights/dimensions/${encodeURIComponent(dimension)}/values?limit=20${value ? `&q=${encodeURIComponent(value)}` : ''}`,
      ).then(
        (page) => {
          for (const item of page.items) KNOWN_VALUES.set(`${dimension}:${item.value}`, item);
          if (live) setOptions(page.items);
        },
        () => live && setOptions([]),
      );
    }, 200);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [dimension, value]);
  return (
    <label>
      <span>{label}</span>
      <input
        id={id}
        list={`${id}-values`}
        value={value}
        autoComplete="off"
        data-value-search={dimension}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      <datalist id={`${id}-values`}>
        {options.map((option) => (
          <option value={option.value} key={option.value}>
            {pick(lang, option, 'label')}
          </option>
        ))}
      </datalist>
    </label>
  );
}

/** A report or builder answer: a line over time when it has a series, else bars of its first dimension, and its table. */
export function ResultView({ data, title }: { data: ReportResponse; title: string }) {
  const { t, lang, fmt } = useApp();
  const dimensions = data.columns.filter((column) => column.kind === 'dimension');
  const measures = data.columns.filter((column) => column.kind === 'measure');
  const timed = dimensions.length === 1 && ['hour', 'day', 'week', 'month', 'quarter', 'year'].includes(dimensions[0].name);
  const option = useMemo(() => {
    if (!measures[0]) return null;
    if (data.series.length > 1 && (dimensions.length === 0 || timed))
      return lineOption(data, measures.filter((column) => column.name in (data.series[0] ?? {})).slice(0, 2), lang, fmt, t);
    if (dimensions[0] && data.rows.length > 0) return barOption(data.rows, dimensions[0], measures[0], lang, fmt);
    return null;
  }, [data, lang]);
  const cell = (row: Row, column: Column) =>
    column.kind === 'dimension' && row.labels?.[column.name] ? row.labels[column.name][lang] : fmt.value(row[column.name], column.type);
  return (
    <div class="ins-result" data-result>
      {option ? (
        <section class="panel" aria-label={title}>
          <Chart rtl={lang === 'ar'} label={t('chart.label', { title })} option={option} />
        </section>
      ) : null}
      {measures.some((column) => column.name in data.totals) ? (
        <section class="totals" aria-label={t('table.totals')}>
          <dl>
            {measures
              .filter((column) => column.name in data.totals)
              .map((column) => (
                <div key={column.name}>
                  <dt>{pick(lang, column, 'label')}</dt>
                  <dd>{fmt.value(data.totals[column.name], column.type)}</dd>
                </div>
              ))}
          </dl>
        </section>
      ) : null}
      <div class="table-wrap" tabIndex={0} role="region" aria-label={t('table.caption', { title })}>
        <table>
          <caption class="visually-hidden">{t('table.caption', { title })}</caption>
          <thead>
            <tr>
              {data.columns.map((column) => (
                <th scope="col" key={column.name} class={column.kind === 'measure' ? 'num' : undefined}>
                  {pick(lang, column, 'label')}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.rows.length === 0 ? (
              <tr>
                <td colSpan={data.columns.length}>{t('table.empty')}</td>
              </tr>
            ) : (
              data.rows.slice(0, 500).map((row, index) => (
                <tr key={index}>
                  {data.columns.map((column) => (
                    <td key={column.name} class={column.kind === 'measure' ? 'num' : undefined}>
                      {cell(row, column)}
                    </td>
                  ))}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** One export's live progress (`GET /exports/{id}` every second until it ends) and, once written, its download link. */
export function ExportProgress({ initial }: { initial: InsightsExport }) {
  const { t, lang, fmt } = useApp();
  const [item, setItem] = useState(initial);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (item.status === 'succeeded' || item.status === 'failed') return;
    const timer = setTimeout(() => get<InsightsExport>(`/admin/insights/exports/${item.id}`).then(setItem, setError), 1000);
    return () => clearTimeout(timer);
  }, [item]);
  const percent = item.progress?.percent ?? (item.status === 'succeeded' ? 100 : 0);
  return (
    <div class="ins-export" data-export={item.id} data-status={item.status}>
      <p aria-live="polite">
        {t(`ins.export.status.${item.status}` as MessageKey)} ·{' '}
        {t('ins.export.rows', {
          rows: fmt.number(item.progress?.rows ?? 0),
          total: item.progress?.totalRows === null || item.progress?.totalRows === undefined ? '…' : fmt.number(item.progress.totalRows),
        })}
      </p>
      <progress max={100} value={percent} aria-label={t('ins.export.progress')}>
        {fmt.percent(percent / 100)}
      </progress>
      {item.status === 'succeeded' && item.file && !item.file.expired ? (
        <a class="button" href={`/admin/insights/exports/${item.id}/file`} download={item.file.name} data-download>
          {t('ins.export.download', { name: item.file.name })}
        </a>
      ) : null}
      {item.status === 'failed' && item.error ? (
        <p role="alert" class="problem">
          {pick(lang, item.error, 'message')}
        </p>
      ) : null}
      {error ? <ProblemView error={error} lang={lang} /> : null}
    </div>
  );
}

/** Format and a button that POSTs `/exports` for `source`, then shows its progress. Not offered to a read-only session. */
export function StartExport({ source }: { source: Record<string, unknown> }) {
  const { t, lang, canWrite, entitled } = useApp();
  const [format, setFormat] = useState<'csv' | 'xlsx'>('csv');
  const [started, setStarted] = useState<InsightsExport | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (!canWrite || !entitled('feature:export_csv')) return null;
  return (
    <div class="ins-start-export">
      <label>
        <span>{t('ins.export.format')}</span>
        <select value={format} onChange={(event) => setFormat(event.currentTarget.value as 'csv' | 'xlsx')}>
          <option value="csv">CSV</option>
          {entitled('feature:export_xlsx') ? <option value="xlsx">XLSX</option> : null}
        </select>
      </label>
      <button
        type="button"
        data-write
        onClick={() => {
          setError(null);
          post<InsightsExport>('/admin/insights/exports', { source, format }).then(setStarted, setError);
        }}
      >
        {t('ins.export.start')}
      </button>
      {error ? <ProblemView error={error} lang={lang} /> : null}
      {started ? <ExportProgress initial={started} key={started.id} /> : null}
    </div>
  );
}

/** The field errors of a `validation_failed` answer, by field. */
export function fieldErrors(error: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!(error instanceof ApiError)) return out;
  const errors = (error.problem.errors ?? []) as { field: string; message_en: string; message_ar: string }[];
  for (const entry of errors) (out[entry.field] ??= []).push(entry.message_en);
  return out;
}

export function FieldError({ error, field, id }: { error: unknown; field: string; id: string }) {
  const { lang } = useApp();
  if (!(error instanceof ApiError)) return null;
  const errors = ((error.problem.errors ?? []) as { field: string; message_en: string; message_ar: string }[]).filter(
    (entry) => entry.field === field || entry.field.startsWith(`${field}.`) || entry.field.startsWith(`${field}[`),
  );
  if (errors.length === 0) return null;
  return (
    <p class="field-error" id={id} data-field-error={field}>
      {errors.map((entry) => pick(lang, entry, 'message')).join(' ')}
    </p>
  );
}
