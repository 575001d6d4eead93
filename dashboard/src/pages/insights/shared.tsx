import { useEffect, useState } from 'preact/hooks';
import { ProblemView } from '../../components/Problem.js';
import type { MessageKey } from '../../i18n/messages.js';
import { get, post } from '../../lib/api.js';
import { pick, useApp } from '../../lib/app-context.js';
import { useLoad, useReloadWhile } from '../../lib/load.js';
import type { CatalogueItem, DimensionValue, InsightsExport, Page } from '../../lib/types.js';

let catalogue: Promise<{ measures: CatalogueItem[]; dimensions: CatalogueItem[] }> | null = null;

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

/** One export's live progress (`GET /exports/{id}` every second until it ends) and, once written, its download link. */
export function ExportProgress({ initial }: { initial: InsightsExport }) {
  const { t, lang, fmt } = useApp();
  const polled = useLoad<InsightsExport>(`/admin/insights/exports/${initial.id}`);
  const item = polled.data ?? initial;
  useReloadWhile(polled, item.status === 'queued' || item.status === 'running', 1000);
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
      {polled.error ? <ProblemView error={polled.error} lang={lang} /> : null}
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
