import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { DataTable } from '../../components/DataTable.js';
import { answer, client, get, saveFile } from '../../lib/api.js';
import type { Schema } from '../../lib/types.js';
import { pick, useApp } from '../../lib/app-context.js';
import { useLoad, usePaged, useReloadWhile, type PageQuery, type Paging } from '../../lib/load.js';
import { navigate } from '../../lib/router.js';
import {
  RUN_COUNTS,
  type ChangedRow,
  type ConflictRow,
  type Flow,
  type RecordRow,
  type RejectedRow,
  type Run,
  type Structure,
} from './types.js';
import { Counts, ErrorView, HubLink, StatusBadge, useAction, useBilingual } from './ui.js';

/** How often a run still queued or running is asked about again. */
const POLL_MS = 2000;

const isPending = (run: Run) => run.status === 'queued' || run.status === 'running';

/**
 * A flow's runs, with Preview (whole file, or its first 100 rows) and Run now. The list follows what they
 * start: it is read again after each, and every 2 s while one of its runs is queued or running. A run
 * started after a preview takes its place: the preview's panel goes.
 */
export function FlowRuns({ flow }: { flow: Flow }) {
  const { t, tn, can, canWrite, fmt } = useApp();
  const runs = usePaged(
    (page) =>
      answer<Schema<'RunPageDoc'>>(client.GET('/admin/data-hub/flows/{id}/runs', { params: { path: { id: flow.id }, query: page } })),
    [flow.id],
    20,
  );
  const [preview, setPreview] = useState<Run | null>(null);
  const [started, setStarted] = useState<Run | null>(null);
  const action = useAction();
  const write = canWrite && can('data.flows.manage');
  const structure = useStructureOf(flow);
  const following = runs.data?.items.some(isPending) ?? false;
  useReloadWhile(runs, following, POLL_MS);
  const start = (body: Schema<'StartRunDto'>) =>
    action.run(async () => {
      const run = await answer<Run>(client.POST('/admin/data-hub/flows/{id}/runs', { params: { path: { id: flow.id } }, body }));
      setPreview(run.preview ? run : null);
      setStarted(run.preview ? null : run);
      runs.reload();
    });
  return (
    <section aria-labelledby="runs-title" class="runs">
      <h2 id="runs-title">{t('hub.runs.title')}</h2>
      {write ? (
        <div class="actions">
          <button type="button" data-write disabled={action.busy} onClick={() => start({ preview: true })}>
            {t('hub.runs.preview')}
          </button>
          <button type="button" data-write disabled={action.busy} onClick={() => start({ preview: true, firstRows: 100 })}>
            {t('hub.runs.previewFirst')}
          </button>
          <button type="button" data-write disabled={action.busy} onClick={() => start({})}>
            {t('hub.runs.runNow')}
          </button>
          {action.busy ? <span role="status">{t('hub.working')}</span> : null}
        </div>
      ) : null}
      <ErrorView error={action.error} />
      {started ? (
        <p role="status" data-started={started.id}>
          {t('hub.runs.runStarted')} <HubLink to={`/data-hub/runs/${started.id}`}>{t('hub.runs.open')}</HubLink>
        </p>
      ) : null}
      {preview ? (
        <section aria-labelledby="preview-title" class="preview" data-preview>
          <h3 id="preview-title">{preview.firstRows ? tn('hub.runs.previewOfFirst', preview.firstRows) : t('hub.runs.previewTitle')}</h3>
          <p class="hint">{t('hub.runs.previewNote')}</p>
          <RunSummary run={preview} direction={flow.direction} />
          <RejectedTable rows={preview.rows?.rejected ?? []} />
          {flow.direction === 'import' ? <ChangedTable rows={preview.rows?.changed ?? []} structure={structure} /> : null}
          <RecordTable title={t('hub.runs.created')} rows={preview.rows?.created ?? []} name="created" />
          <RecordTable title={t('hub.runs.deactivated')} rows={preview.rows?.deactivated ?? []} name="deactivated" />
        </section>
      ) : null}
      {following ? (
        <p role="status" data-following>
          {t('hub.runs.following')}
        </p>
      ) : null}
      <DataTable
        label={t('hub.runs.title')}
        columns={[
          {
            header: t('hub.field.status'),
            cell: (run) => (
              <HubLink to={`/data-hub/runs/${run.id}`}>
                <StatusBadge status={run.status} />
                {run.preview ? ` (${t('hub.runs.previewShort')})` : ''}
              </HubLink>
            ),
          },
          { header: t('hub.runs.trigger'), cell: (run) => t(`hub.trigger.${run.trigger}`) },
          ...RUN_COUNTS[flow.direction].map((count) => ({
            header: t(`hub.count.${count}`),
            numeric: true,
            cell: (run: Run) => fmt.number(run.counts?.[count] ?? 0),
          })),
          { header: t('hub.runs.file'), cell: (run) => <bdi>{run.file?.name ?? '—'}</bdi> },
          { header: t('hub.runs.started'), cell: (run) => (run.startedAt ? fmt.dateTime(run.startedAt) : '—') },
          { header: t('hub.runs.finished'), cell: (run) => (run.finishedAt ? fmt.dateTime(run.finishedAt) : '—') },
        ]}
        rows={runs.data?.items}
        rowKey={(run) => run.id}
        rowData={(run) => ({ 'data-run': run.id })}
        empty={t('hub.runs.empty')}
        error={runs.error}
        paging={runs}
      />
    </section>
  );
}

/**
 * Counts, file, the shrink guard's refusal explained (with the override form, `overrideLabel` its button),
 * the error. `status`: false for an undo's preview, which has not run.
 */
function RunSummary({
  run,
  direction,
  onOverride,
  overrideLabel,
  status = true,
}: {
  run: Run;
  direction: Flow['direction'];
  onOverride?: (maxDeactivatePercent: number, reason: string) => void;
  overrideLabel?: string;
  status?: boolean;
}) {
  const { t, tn, fmt } = useApp();
  const bilingual = useBilingual();
  const [percent, setPercent] = useState('');
  const [reason, setReason] = useState('');
  return (
    <div class="run-summary">
      {status ? (
        <p>
          <StatusBadge status={run.status} /> {t(`hub.trigger.${run.trigger}`)}
          {run.file ? (
            <>
              {' '}
              · <bdi>{run.file.name}</bdi> ({fmt.bytes(run.file.bytes)})
            </>
          ) : null}
        </p>
      ) : null}
      <Counts run={run} direction={direction} />
      {run.formulaSafety ? (
        <p data-formula-safety={run.formulaSafety}>
          {t('hub.field.formulaSafety')}: {t(`hub.formulaSafety.${run.formulaSafety}`)}
        </p>
      ) : null}
      {run.refusal ? (
        <div class="refusal" role="alert" data-refusal={run.refusal.code}>
          <p>
            <strong>{t('hub.runs.refused')}</strong>{' '}
            {tn('hub.runs.shrinkGuard', run.refusal.activeRecords, {
              would: fmt.number(run.refusal.wouldDeactivate),
              percent: fmt.percent(run.refusal.percent / 100),
              threshold: fmt.percent(run.refusal.threshold.maxDeactivatePercent / 100),
              limit: tn('hub.runs.records', run.refusal.threshold.maxDeactivateCount),
            })}
          </p>
          <p>{bilingual(run.refusal)}</p>
          {onOverride ? (
            <form
              class="hub-form inline"
              aria-label={overrideLabel ?? t('hub.runs.override')}
              onSubmit={(event) => {
                event.preventDefault();
                onOverride(Number(percent), reason.trim());
              }}
            >
              <label>
                <span>{t('hub.flows.maxPercent')}</span>
                <input
                  type="number"
                  min={0}
                  max={100}
                  required
                  value={percent}
                  onInput={(event) => setPercent(event.currentTarget.value)}
                />
              </label>
              <label>
                <span>{t('hub.runs.reason')}</span>
                <input required maxLength={500} value={reason} onInput={(event) => setReason(event.currentTarget.value)} />
              </label>
              <button type="submit" data-write>
                {overrideLabel ?? t('hub.runs.override')}
              </button>
            </form>
          ) : null}
        </div>
      ) : null}
      {run.override ? (
        <p>{t('hub.runs.overridden', { percent: fmt.percent(run.override.maxDeactivatePercent / 100), reason: run.override.reason })}</p>
      ) : null}
      {run.error ? (
        <div class="problem" role="alert" data-code={run.error.code}>
          <p>{bilingual(run.error)}</p>
        </div>
      ) : null}
    </div>
  );
}

const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));

/**
 * A rejected row's values, each name and value isolated: a Latin column name or value beside Arabic ones
 * (or the other way round) keeps its place, and "name: value" reads in the page's direction.
 */
function RowValues({ values }: { values: unknown }) {
  if (!values || typeof values !== 'object') return <bdi>{text(values)}</bdi>;
  return (
    <ul class="row-values">
      {Object.entries(values as Record<string, unknown>).map(([name, value]) => (
        <li key={name} data-value={name}>
          <bdi>{name}</bdi>: <bdi>{text(value)}</bdi>
        </li>
      ))}
    </ul>
  );
}

/** A run's rejected rows: a preview's first ones, or a run's page by page (`paging`); `downloads`: the buttons that save them as files. */
function RejectedTable({
  rows,
  paging,
  error,
  downloads,
}: {
  rows: RejectedRow[] | undefined;
  paging?: Paging;
  error?: unknown;
  downloads?: ComponentChildren;
}) {
  const { t, lang, fmt } = useApp();
  const bilingual = useBilingual();
  const title = useId();
  return (
    <section aria-labelledby={title} data-list="rejected">
      <h3 id={title}>{t('hub.runs.rejected')}</h3>
      {downloads}
      <DataTable
        label={t('hub.runs.rejected')}
        columns={[
          { header: t('hub.runs.line'), numeric: true, cell: (row) => (row.line === null ? '—' : fmt.number(row.line)) },
          { header: t('hub.runs.values'), cell: (row) => <RowValues values={row.values} /> },
          {
            header: t('hub.runs.reasons'),
            cell: (row) => (
              <ul class="reasons">
                {row.errors.map((error, at) => (
                  <li key={at} data-reason={error.code}>
                    {error.field ? (
                      <>
                        <bdi>
                          <code>{error.field}</code>
                        </bdi>
                        :{' '}
                      </>
                    ) : null}
                    <bdi dir={lang === 'ar' ? 'rtl' : 'ltr'}>{bilingual(error)}</bdi>
                  </li>
                ))}
              </ul>
            ),
          },
        ]}
        rows={rows}
        rowKey={(row, index) => `${row.line}-${index}`}
        rowData={(row) => ({ 'data-rejected-line': row.line === null ? '' : String(row.line) })}
        empty={t('hub.runs.none')}
        error={error}
        paging={paging}
      />
    </section>
  );
}

/** The records a run created or deactivated: a preview's first ones, or a run's page by page (`paging`). */
function RecordTable({
  title,
  name,
  rows,
  paging,
  error,
}: {
  title: string;
  name: 'created' | 'deactivated';
  rows: RecordRow[] | undefined;
  paging?: Paging;
  error?: unknown;
}) {
  const { t } = useApp();
  const heading = useId();
  return (
    <section aria-labelledby={heading} data-list={name}>
      <h3 id={heading}>{title}</h3>
      <DataTable
        label={title}
        columns={[
          { header: t('hub.runs.key'), cell: (row) => <bdi>{row.key ?? '—'}</bdi> },
          {
            header: t('hub.runs.recordId'),
            cell: (row) => <code dir="ltr">{row.recordId ?? '—'}</code>,
          },
        ]}
        rows={rows}
        rowKey={(row, index) => `${row.key}-${index}`}
        empty={t('hub.runs.none')}
        error={error}
        paging={paging}
      />
    </section>
  );
}

/**
 * The structure a flow's mapping maps (its fields' labels and types, to name a change's field as the
 * mapping editor does); undefined until read, or where it cannot be (the identifiers are shown then).
 */
function useStructureOf(flow: Flow | null | undefined): Structure | undefined {
  const mapping = useLoad(flow ? () => get('/admin/data-hub/mappings/{id}', { path: { id: flow.mappingId } }) : null, [flow?.mappingId]);
  const structures = useLoad(() => get('/admin/data-hub/structures'));
  return structures.data?.items.find((item) => item.name === mapping.data?.structure);
}

/** A structure field's label in the page's language, else its identifier. */
function useFieldLabel(structure: Structure | undefined): (field: string) => string {
  const { lang } = useApp();
  return (field) => {
    const found = structure?.fields.find((item) => item.name === field);
    return found ? pick(lang, found, 'label') : field;
  };
}

/** A field's value as a merchant reads it: money, counts and times in the page's formats, an empty value said. */
function FieldValue({ value, field, structure }: { value: unknown; field: string | null; structure: Structure | undefined }) {
  const { t, fmt } = useApp();
  const type = structure?.fields.find((item) => item.name === field)?.type;
  if (value === null || value === undefined || value === '') return <em class="empty-value">{t('hub.value.empty')}</em>;
  let shown: string;
  if (typeof value === 'number') shown = type === 'money' ? fmt.money(value) : fmt.number(value);
  else if (typeof value === 'boolean') shown = t(value ? 'hub.value.yes' : 'hub.value.no');
  else if (type === 'datetime' && typeof value === 'string' && !Number.isNaN(Date.parse(value))) shown = fmt.dateTime(value);
  else shown = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return <bdi>{shown}</bdi>;
}

/**
 * The records a run changed (an undo: restored), each field before → after: a preview's first ones, or a
 * run's page by page (`paging`). The arrow points the way the page reads.
 */
function ChangedTable({
  rows,
  structure,
  undo = false,
  paging,
  error,
}: {
  rows: ChangedRow[] | undefined;
  structure: Structure | undefined;
  undo?: boolean;
  paging?: Paging;
  error?: unknown;
}) {
  const { t, lang } = useApp();
  const label = useFieldLabel(structure);
  const heading = useId();
  const title = undo ? t('hub.undo.restored') : t('hub.runs.changed');
  return (
    <section aria-labelledby={heading} data-list="changed">
      <h3 id={heading}>{title}</h3>
      <p class="hint">{undo ? t('hub.undo.restoredHint') : t('hub.runs.changedHint')}</p>
      <DataTable
        label={title}
        columns={[
          { header: t('hub.runs.key'), cell: (row) => <bdi>{row.key ?? '—'}</bdi> },
          {
            header: t('hub.runs.changes'),
            cell: (row) => (
              <ul class="changes">
                {row.changes.map((change) => (
                  <li key={change.field} data-change={change.field}>
                    <span class="field-label">{label(change.field)}</span>:{' '}
                    <span data-before>
                      <FieldValue value={change.before} field={change.field} structure={structure} />
                    </span>{' '}
                    <span aria-hidden="true">{lang === 'ar' ? '←' : '→'}</span>
                    <span class="visually-hidden"> {t('hub.runs.changedTo')} </span>{' '}
                    <span data-after>
                      <FieldValue value={change.after} field={change.field} structure={structure} />
                    </span>
                  </li>
                ))}
              </ul>
            ),
          },
        ]}
        rows={rows}
        rowKey={(row, index) => `${row.key}-${index}`}
        rowData={(row) => ({ 'data-changed-key': row.key ?? '' })}
        empty={t('hub.runs.none')}
        error={error}
        paging={paging}
      />
    </section>
  );
}

/** What an undo left as it was (changed since the run), with the value the run left and the value now. */
function ConflictTable({
  rows,
  structure,
  paging,
  error,
}: {
  rows: ConflictRow[] | undefined;
  structure: Structure | undefined;
  paging?: Paging;
  error?: unknown;
}) {
  const { t } = useApp();
  const label = useFieldLabel(structure);
  const heading = useId();
  return (
    <section aria-labelledby={heading} data-list="conflicts">
      <h3 id={heading}>{t('hub.undo.conflicts')}</h3>
      <p class="hint">{t('hub.undo.conflictsHint')}</p>
      <DataTable
        label={t('hub.undo.conflicts')}
        columns={[
          { header: t('hub.runs.key'), cell: (row) => <bdi>{row.key ?? '—'}</bdi> },
          { header: t('hub.runs.field'), cell: (row) => (row.field ? label(row.field) : '—') },
          {
            header: t('hub.undo.runAfter'),
            cell: (row) => (row.field ? <FieldValue value={row.runAfter} field={row.field} structure={structure} /> : '—'),
          },
          {
            header: t('hub.undo.now'),
            cell: (row) => (row.field ? <FieldValue value={row.now} field={row.field} structure={structure} /> : '—'),
          },
          { header: t('hub.undo.why'), cell: (row) => t(`hub.conflict.${row.reason}`) },
        ]}
        rows={rows}
        rowKey={(row, index) => `${row.key}-${row.field}-${index}`}
        rowData={(row) => ({ 'data-conflict': row.field ?? '', 'data-conflict-key': row.key ?? '', 'data-reason': row.reason })}
        empty={t('hub.runs.none')}
        error={error}
        paging={paging}
      />
    </section>
  );
}

const REJECTED_FILE_TYPES = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

/**
 * Buttons that save a run's rejected rows as CSV or XLSX, headed and explained in the page's language:
 * fetched by the API client with the member's language (a link would carry the browser's), then saved.
 */
function RejectedDownloads({ runId }: { runId: string }) {
  const { t, lang } = useApp();
  const action = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  const save = (format: keyof typeof REJECTED_FILE_TYPES) =>
    action.run(async () => {
      setSaved(null);
      const init = {
        params: { path: { id: runId } },
        parseAs: 'blob' as const,
        headers: { Accept: `${REJECTED_FILE_TYPES[format]}, application/problem+json`, 'Accept-Language': lang },
      };
      const call =
        format === 'csv'
          ? client.GET('/admin/data-hub/runs/{id}/rejected.csv', init)
          : client.GET('/admin/data-hub/runs/{id}/rejected.xlsx', init);
      setSaved(await saveFile(call, `run-${runId}-rejected.${format}`));
    });
  return (
    <div class="downloads" data-downloads>
      <p class="hint">{t('hub.runs.downloads')}</p>
      <div class="actions">
        <button type="button" disabled={action.busy} onClick={() => void save('csv')} data-download="csv">
          {t('hub.runs.downloadCsv')}
        </button>
        <button type="button" disabled={action.busy} onClick={() => void save('xlsx')} data-download="xlsx">
          {t('hub.runs.downloadXlsx')}
        </button>
        {action.busy ? <span role="status">{t('hub.working')}</span> : null}
        {saved ? (
          <span role="status" data-downloaded={saved}>
            {t('hub.runs.downloaded', { name: saved })}
          </span>
        ) : null}
      </div>
      <ErrorView error={action.error} />
    </div>
  );
}

/** The link between a run and its undo, both ways. */
function UndoLinks({ run }: { run: Run }) {
  const { t } = useApp();
  return (
    <>
      {run.undoOf ? (
        <p data-undo-of={run.undoOf}>
          {t('hub.undo.undoes')} <HubLink to={`/data-hub/runs/${run.undoOf}`}>{t('hub.undo.openUndone')}</HubLink>
        </p>
      ) : null}
      {run.undoneBy ? (
        <p data-undone-by={run.undoneBy}>
          {t('hub.undo.undoneBy')} <HubLink to={`/data-hub/runs/${run.undoneBy}`}>{t('hub.undo.openUndo')}</HubLink>
        </p>
      ) : null}
    </>
  );
}

type UndoBody = Schema<'UndoRunDto'>;

/** Until when a run can be undone: said to every member who may read it, Undo offered only to those who may run flows. */
function UndoableUntil({ until }: { until: string }) {
  const { t, fmt } = useApp();
  return <p data-undoable-until={until}>{t('hub.undo.until', { time: fmt.dateTime(until) })}</p>;
}

/**
 * Undo, offered while the run can be undone: first its preview (what would be restored and deactivated,
 * what would be left as it is, and why), then the confirmation that queues it. A preview the shrink guard
 * refuses offers its override, which queues the undo with it. `undo` sends the request (its refusal is
 * shown by the page).
 */
function UndoPanel({
  run,
  direction,
  structure,
  busy,
  undo,
}: {
  run: Run;
  direction: Flow['direction'];
  structure: Structure | undefined;
  busy: boolean;
  undo: (body: UndoBody) => Promise<Run | undefined>;
}) {
  const { t } = useApp();
  const [preview, setPreview] = useState<Run | null>(null);
  const previewHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => previewHeading.current?.focus(), [preview]);
  const ask = async () => setPreview((await undo({ preview: true })) ?? null);
  const confirm = async (body: UndoBody) => {
    const queued = await undo(body);
    if (queued) navigate(`/data-hub/runs/${queued.id}`);
  };
  return (
    <section aria-labelledby="undo-title" class="undo" data-undo>
      <h2 id="undo-title">{t('hub.undo.title')}</h2>
      <UndoableUntil until={run.undoableUntil!} />
      {preview ? null : (
        <div class="actions">
          <button type="button" data-write disabled={busy} onClick={() => void ask()}>
            {t('hub.undo.ask')}
          </button>
          {busy ? <span role="status">{t('hub.working')}</span> : null}
        </div>
      )}
      {preview ? (
        <section aria-labelledby="undo-preview-title" class="preview" data-undo-preview>
          <h3 id="undo-preview-title" tabIndex={-1} ref={previewHeading}>
            {t('hub.undo.previewTitle')}
          </h3>
          <p>
            <strong>{t('hub.undo.nothingYet')}</strong>
          </p>
          <p class="explain">{t('hub.undo.explain')}</p>
          <RunSummary
            run={preview}
            direction={direction}
            status={false}
            overrideLabel={t('hub.undo.override')}
            onOverride={(maxDeactivatePercent, reason) => void confirm({ overrideShrinkGuard: { maxDeactivatePercent, reason } })}
          />
          <div class="actions">
            {preview.status === 'succeeded' ? (
              <button type="button" data-write disabled={busy} onClick={() => void confirm({})}>
                {t('hub.undo.confirm')}
              </button>
            ) : null}
            <button type="button" disabled={busy} onClick={() => setPreview(null)}>
              {t('hub.undo.cancel')}
            </button>
            {busy ? <span role="status">{t('hub.working')}</span> : null}
          </div>
          <p class="hint">{t('hub.undo.firstRows')}</p>
          <ConflictTable rows={preview.rows?.conflicts ?? []} structure={structure} />
          <ChangedTable rows={preview.rows?.changed ?? []} structure={structure} undo />
          <RecordTable title={t('hub.runs.deactivated')} name="deactivated" rows={preview.rows?.deactivated ?? []} />
        </section>
      ) : null}
    </section>
  );
}

/** How long a run's lists are kept (then purged, and the run can no longer be undone). */
const LISTS_KEPT_DAYS = 90;

/**
 * A run: its counts, its refusal with the override form, its error, the link to its undo or to the run it
 * undoes, Undo (previewed, then confirmed) while it can be undone, and its lists page by page: rejected
 * (with their downloads), changed (an undo's: restored), an undo's conflicts, created and deactivated.
 */
export function RunPage({ id }: { id: string }) {
  const { t, can, canWrite, fmt } = useApp();
  const byId = { params: { path: { id } } };
  const loaded = useLoad(() => answer<Run>(client.GET('/admin/data-hub/runs/{id}', byId)), [id]);
  const action = useAction();
  const run = loaded.data;
  // The run's flow: its direction says which counts the run has; its mapping's structure names the fields.
  const flow = useLoad(run ? () => get('/admin/data-hub/flows/{id}', { path: { id: run.flowId } }) : null, [run?.flowId]);
  const structure = useStructureOf(flow.data);
  const pending = run ? isPending(run) : false;
  useReloadWhile(loaded, pending, POLL_MS);
  const listed = !!run && !pending && !run.listsPurgedAt;
  const isUndo = run?.trigger === 'undo';
  /** A page of one of the run's lists (each its own path, all paged alike), or null while it is not shown. */
  const list = <T,>(name: 'rejected' | 'created' | 'deactivated' | 'changed' | 'conflicts', when: boolean) => {
    const request = client.GET as (path: string, init: object) => Promise<{ data?: T; error?: unknown; response: Response }>;
    return when ? (query: PageQuery) => answer(request(`/admin/data-hub/runs/{id}/${name}`, { params: { ...byId.params, query } })) : null;
  };
  const rejected = usePaged(list<Schema<'RejectedRowPageDoc'>>('rejected', listed && !isUndo), [id, isUndo]);
  // An export changes no record: it has no changes to list.
  const imports = flow.data?.direction === 'import';
  const changed = usePaged(list<Schema<'ChangedRowPageDoc'>>('changed', listed && imports), [id, imports]);
  const conflicts = usePaged(list<Schema<'ConflictRowPageDoc'>>('conflicts', listed && isUndo), [id, isUndo]);
  const created = usePaged(list<Schema<'RecordRowPageDoc'>>('created', listed && !isUndo), [id, isUndo]);
  const deactivated = usePaged(list<Schema<'RecordRowPageDoc'>>('deactivated', listed), [id]);
  // A refusal may mean the run changed meanwhile (undone by someone else, its lists purged): read it again.
  useEffect(() => {
    if (action.error) loaded.reload();
  }, [action.error]);
  if (!run || !flow.data) return <ErrorView error={loaded.error ?? flow.error} />;
  const write = canWrite && can('data.flows.manage');
  const override =
    write && run.refusal?.code === 'shrink_guard'
      ? (maxDeactivatePercent: number, reason: string) =>
          action.run(async () => {
            const body = { overrideShrinkGuard: { maxDeactivatePercent, reason } };
            // A refused undo is asked again of the run it undoes; any other run, of its flow.
            const next = run.undoOf
              ? await answer<Run>(client.POST('/admin/data-hub/runs/{id}/undo', { params: { path: { id: run.undoOf } }, body }))
              : await answer<Run>(client.POST('/admin/data-hub/flows/{id}/runs', { params: { path: { id: run.flowId } }, body }));
            navigate(`/data-hub/runs/${next.id}`);
          })
      : undefined;
  const undo = (body: UndoBody) => action.run(() => answer<Run>(client.POST('/admin/data-hub/runs/{id}/undo', { ...byId, body })));
  return (
    <section aria-labelledby="page-title" class="hub">
      <p>
        <HubLink to={`/data-hub/flows/${run.flowId}`}>{t('hub.back.flow')}</HubLink>
      </p>
      <h1 id="page-title">{t('hub.runs.runTitle')}</h1>
      {pending ? <p role="status">{t('hub.runs.pending')}</p> : null}
      <RunSummary
        run={run}
        direction={flow.data.direction}
        onOverride={override}
        overrideLabel={run.undoOf ? t('hub.undo.override') : undefined}
      />
      <UndoLinks run={run} />
      {run.undoableUntil && !run.undoneBy ? (
        write ? (
          <UndoPanel run={run} direction={flow.data.direction} structure={structure} busy={action.busy} undo={undo} />
        ) : (
          <UndoableUntil until={run.undoableUntil} />
        )
      ) : null}
      <ErrorView error={action.error} />
      {run.listsPurgedAt ? (
        <p data-lists-purged>{t('hub.runs.purged', { time: fmt.dateTime(run.listsPurgedAt), days: fmt.number(LISTS_KEPT_DAYS) })}</p>
      ) : null}
      {listed ? (
        <>
          {isUndo ? <ConflictTable rows={conflicts.data?.items} structure={structure} paging={conflicts} error={conflicts.error} /> : null}
          {isUndo ? null : (
            <RejectedTable
              rows={rejected.data?.items}
              paging={rejected}
              error={rejected.error}
              downloads={run.counts?.rejected ? <RejectedDownloads runId={run.id} /> : null}
            />
          )}
          {imports ? (
            <ChangedTable rows={changed.data?.items} structure={structure} undo={isUndo} paging={changed} error={changed.error} />
          ) : null}
          {isUndo ? null : (
            <RecordTable title={t('hub.runs.created')} name="created" rows={created.data?.items} paging={created} error={created.error} />
          )}
          <RecordTable
            title={t('hub.runs.deactivated')}
            name="deactivated"
            rows={deactivated.data?.items}
            paging={deactivated}
            error={deactivated.error}
          />
        </>
      ) : null}
    </section>
  );
}
