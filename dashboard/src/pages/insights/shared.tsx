import { useEffect, useState } from 'preact/hooks';
import { ProblemView } from '../../components/Problem.js';
import type { MessageKey } from '../../i18n/messages.js';
import { answer, client, get } from '../../lib/api.js';
import { pick, useApp } from '../../lib/app-context.js';
import { useLoad, useReloadWhile } from '../../lib/load.js';
import type { ReferenceItem, DimensionValue, ExportSource, InsightsExport } from '../../lib/types.js';

let catalogue: Promise<{ measures: ReferenceItem[]; dimensions: ReferenceItem[] }> | null = null;

/** `GET /measures` and `GET /dimensions`, once per page load. */
export function useCatalogue(): { measures: ReferenceItem[]; dimensions: ReferenceItem[] } | null {
  const [value, setValue] = useState<{ measures: ReferenceItem[]; dimensions: ReferenceItem[] } | null>(null);
  useEffect(() => {
    catalogue ??= Promise.all([get('/admin/insights/measures'), get('/admin/insights/dimensions')]).then(([measures, dimensions]) => ({
      measures: measures.items,
      dimensions: dimensions.items,
    }));
    catalogue.then(setValue, () => {
      catalogue = null;
    });
  }, []);
  return value;
}

/** Text as search compares it: case, accents, Arabic letter forms and diacritics folded. */
export const fold = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u064B-\u065F\u0670\u0640\u0300-\u036f]/g, '')
    .replace(/[أإآٱ]/g, 'ا')
    .replace(/ة/g, 'ه')
    .replace(/ى/g, 'ي');

const LABELS_KEY = 'insights.valueLabels';
/** The most value names kept for the tab: the latest seen. */
const LABELS_KEPT = 500;
let labels: Map<string, DimensionValue> | null = null;

function valueLabels(): Map<string, DimensionValue> {
  if (!labels) {
    let kept: [string, DimensionValue][] = [];
    try {
      kept = JSON.parse(sessionStorage.getItem(LABELS_KEY) ?? '[]') as [string, DimensionValue][];
    } catch {
      // A value the tab cannot read back is a memory lost, nothing more.
    }
    labels = new Map(kept);
  }
  return labels;
}

/**
 * Remembers the names of a dimension's values the page has seen (searched, resolved, suggested, in a
 * report's rows), for the tab's life, reloads included: a filter kept in the address by its id is shown
 * by its name.
 */
export function rememberValues(dimension: string, values: DimensionValue[]): void {
  if (values.length === 0) return;
  const known = valueLabels();
  for (const value of values) {
    known.delete(`${dimension}:${value.value}`);
    known.set(`${dimension}:${value.value}`, value);
  }
  for (const key of [...known.keys()].slice(0, Math.max(0, known.size - LABELS_KEPT))) known.delete(key);
  try {
    sessionStorage.setItem(LABELS_KEY, JSON.stringify([...known]));
  } catch {
    // Storage full or refused: the names stay known until the page is left.
  }
}

/** The remembered name of a dimension's value, if the page has seen it. */
export const rememberedValue = (dimension: string, value: string): DimensionValue | undefined => valueLabels().get(`${dimension}:${value}`);

/** `GET /dimensions/{d}/values?q=`: the first `limit` values whose names contain `text`, in either language. */
export async function searchValues(dimension: string, text: string, limit = 20): Promise<DimensionValue[]> {
  const page = await get('/admin/insights/dimensions/{dimension}/values', {
    path: { dimension },
    query: { limit, q: text || undefined },
  });
  rememberValues(dimension, page.items);
  return page.items;
}

/** A value as the address holds it (its id), with its names; null when the dimension has no such value. */
export async function valueNamed(dimension: string, value: string): Promise<DimensionValue | null> {
  const page = await get('/admin/insights/dimensions/{dimension}/values', { path: { dimension }, query: { value } });
  rememberValues(dimension, page.items);
  return page.items[0] ?? null;
}

/**
 * A dimension's values as the member types, offered by name in a datalist (in the member's language):
 * choosing one fills its name in, which the form resolves to its value.
 */
export function ValueSearch({
  dimension,
  id,
  label,
  value,
  onInput,
  describedBy,
  invalid,
}: {
  dimension: string;
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  describedBy?: string;
  invalid?: boolean;
}) {
  const { lang } = useApp();
  const [options, setOptions] = useState<DimensionValue[]>([]);
  useEffect(() => {
    if (!dimension) return;
    let live = true;
    const timer = setTimeout(() => {
      searchValues(dimension, value).then(
        (items) => live && setOptions(items),
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
        aria-describedby={describedBy}
        aria-invalid={invalid ? 'true' : undefined}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      <datalist id={`${id}-values`}>
        {options.map((option) => (
          <option value={pick(lang, option, 'label')} key={option.value} />
        ))}
      </datalist>
    </label>
  );
}

/** One export's live progress (`GET /exports/{id}` every second until it ends) and, once written, its download link. */
export function ExportProgress({ initial }: { initial: InsightsExport }) {
  const { t, tn, lang, fmt } = useApp();
  const polled = useLoad(() => get('/admin/insights/exports/{id}', { path: { id: initial.id } }), [initial.id]);
  const item = polled.data ?? initial;
  useReloadWhile(polled, item.status === 'queued' || item.status === 'running', 1000);
  const percent = item.progress?.percent ?? (item.status === 'succeeded' ? 100 : 0);
  return (
    <div class="ins-export" data-export={item.id} data-status={item.status}>
      <p aria-live="polite">
        {t(`ins.export.status.${item.status}` as MessageKey)} ·{' '}
        {tn('ins.export.rows', item.progress?.rows ?? 0, {
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
export function StartExport({ source }: { source: ExportSource }) {
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
          answer(client.POST('/admin/insights/exports', { body: { source, format } })).then(setStarted, setError);
        }}
      >
        {t('ins.export.start')}
      </button>
      {error ? <ProblemView error={error} lang={lang} /> : null}
      {started ? <ExportProgress initial={started} key={started.id} /> : null}
    </div>
  );
}
