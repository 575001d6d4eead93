import { useState } from 'preact/hooks';
import { DataTable } from '../../components/DataTable.js';
import { answer, client, get } from '../../lib/api.js';
import type { Schema } from '../../lib/types.js';
import { useApp } from '../../lib/app-context.js';
import { useLoad, usePaged, useReloadWhile, type Paging } from '../../lib/load.js';
import { navigate } from '../../lib/router.js';
import { RUN_COUNTS, type Flow, type RecordRow, type RejectedRow, type Run } from './types.js';
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

/** Counts, file, the shrink guard's refusal explained, the error. */
function RunSummary({
  run,
  direction,
  onOverride,
}: {
  run: Run;
  direction: Flow['direction'];
  onOverride?: (maxDeactivatePercent: number, reason: string) => void;
}) {
  const { t, tn, fmt } = useApp();
  const bilingual = useBilingual();
  const [percent, setPercent] = useState('');
  const [reason, setReason] = useState('');
  return (
    <div class="run-summary">
      <p>
        <StatusBadge status={run.status} /> {t(`hub.trigger.${run.trigger}`)}
        {run.file ? (
          <>
            {' '}
            · <bdi>{run.file.name}</bdi> ({fmt.bytes(run.file.bytes)})
          </>
        ) : null}
      </p>
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
              aria-label={t('hub.runs.override')}
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
                {t('hub.runs.override')}
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

/** A run's rejected rows: a preview's first ones, or a run's page by page (`paging`). */
function RejectedTable({ rows, paging, error }: { rows: RejectedRow[] | undefined; paging?: Paging; error?: unknown }) {
  const { t, lang, fmt } = useApp();
  const bilingual = useBilingual();
  return (
    <section aria-labelledby="rejected-title" data-list="rejected">
      <h3 id="rejected-title">{t('hub.runs.rejected')}</h3>
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
  return (
    <section aria-labelledby={`${name}-title`} data-list={name}>
      <h3 id={`${name}-title`}>{title}</h3>
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

/** A run: its counts, its refusal with the override form, its error, and its lists page by page. */
export function RunPage({ id }: { id: string }) {
  const { t, can, canWrite } = useApp();
  const byId = { params: { path: { id } } };
  const loaded = useLoad(() => answer<Run>(client.GET('/admin/data-hub/runs/{id}', byId)), [id]);
  const action = useAction();
  const run = loaded.data;
  // The run's flow: its direction says which counts the run has.
  const flow = useLoad(run ? () => get('/admin/data-hub/flows/{id}', { path: { id: run.flowId } }) : null, [run?.flowId]);
  const pending = run ? isPending(run) : false;
  useReloadWhile(loaded, pending, POLL_MS);
  const listed = run && !pending;
  const rejected = usePaged(
    listed
      ? (page) =>
          answer<Schema<'RejectedRowPageDoc'>>(
            client.GET('/admin/data-hub/runs/{id}/rejected', { params: { ...byId.params, query: page } }),
          )
      : null,
    [id],
  );
  const created = usePaged(
    listed
      ? (page) =>
          answer<Schema<'RecordRowPageDoc'>>(client.GET('/admin/data-hub/runs/{id}/created', { params: { ...byId.params, query: page } }))
      : null,
    [id],
  );
  const deactivated = usePaged(
    listed
      ? (page) =>
          answer<Schema<'RecordRowPageDoc'>>(
            client.GET('/admin/data-hub/runs/{id}/deactivated', { params: { ...byId.params, query: page } }),
          )
      : null,
    [id],
  );
  if (!run || !flow.data) return <ErrorView error={loaded.error ?? flow.error} />;
  const override =
    canWrite && can('data.flows.manage') && run.refusal?.code === 'shrink_guard'
      ? (maxDeactivatePercent: number, reason: string) =>
          action.run(async () => {
            const next = await answer<Run>(
              client.POST('/admin/data-hub/flows/{id}/runs', {
                params: { path: { id: run.flowId } },
                body: { overrideShrinkGuard: { maxDeactivatePercent, reason } },
              }),
            );
            navigate(`/data-hub/runs/${next.id}`);
          })
      : undefined;
  return (
    <section aria-labelledby="page-title" class="hub">
      <p>
        <HubLink to={`/data-hub/flows/${run.flowId}`}>{t('hub.back.flow')}</HubLink>
      </p>
      <h1 id="page-title">{t('hub.runs.runTitle')}</h1>
      {pending ? <p role="status">{t('hub.runs.pending')}</p> : null}
      <RunSummary run={run} direction={flow.data.direction} onOverride={override} />
      <ErrorView error={action.error} />
      {pending ? null : (
        <>
          <RejectedTable rows={rejected.data?.items} paging={rejected} error={rejected.error} />
          <RecordTable title={t('hub.runs.created')} name="created" rows={created.data?.items} paging={created} error={created.error} />
          <RecordTable
            title={t('hub.runs.deactivated')}
            name="deactivated"
            rows={deactivated.data?.items}
            paging={deactivated}
            error={deactivated.error}
          />
        </>
      )}
    </section>
  );
}
