import { useEffect, useState } from 'preact/hooks';
import { useApp } from '../../lib/app-context.js';
import { navigate } from '../../lib/router.js';
import type { Flow, RecordRow, RejectedRow, Run } from './types.js';
import { Counts, ErrorView, HUB, HubLink, hubPost, Pager, StatusBadge, useAction, useBilingual, useLoad, usePaged } from './ui.js';

/** A flow's runs, with Preview (whole file, or its first 100 rows) and Run now. */
export function FlowRuns({ flow }: { flow: Flow }) {
  const { t, can, canWrite, fmt } = useApp();
  const runs = usePaged<Run>(`${HUB}/flows/${flow.id}/runs`, 20);
  const [preview, setPreview] = useState<Run | null>(null);
  const action = useAction();
  const write = canWrite && can('data.flows.manage');
  const start = (body: Record<string, unknown>) =>
    action.run(async () => {
      const run = await hubPost<Run>(`/flows/${flow.id}/runs`, body);
      if (run.preview) setPreview(run);
      else navigate(`/data-hub/runs/${run.id}`);
    });
  return (
    <section aria-labelledby="runs-title" class="runs">
      <h2 id="runs-title">{t('hub.runs.title')}</h2>
      {write ? (
        <div class="actions">
          <button type="button" disabled={action.busy} onClick={() => start({ preview: true })}>
            {t('hub.runs.preview')}
          </button>
          <button type="button" disabled={action.busy} onClick={() => start({ preview: true, firstRows: 100 })}>
            {t('hub.runs.previewFirst')}
          </button>
          <button type="button" disabled={action.busy} onClick={() => start({})}>
            {t('hub.runs.runNow')}
          </button>
          {action.busy ? <span role="status">{t('hub.working')}</span> : null}
        </div>
      ) : null}
      <ErrorView error={action.error} />
      {preview ? (
        <section aria-labelledby="preview-title" class="preview" data-preview>
          <h3 id="preview-title">
            {preview.firstRows ? t('hub.runs.previewOfFirst', { n: fmt.number(preview.firstRows) }) : t('hub.runs.previewTitle')}
          </h3>
          <p class="hint">{t('hub.runs.previewNote')}</p>
          <RunSummary run={preview} />
          <RejectedTable rows={preview.rows?.rejected ?? []} />
          <RecordTable title={t('hub.runs.created')} rows={preview.rows?.created ?? []} name="created" />
          <RecordTable title={t('hub.runs.deactivated')} rows={preview.rows?.deactivated ?? []} name="deactivated" />
        </section>
      ) : null}
      <ErrorView error={runs.error} />
      {runs.data?.items.length === 0 ? <p>{t('hub.runs.empty')}</p> : null}
      {runs.data?.items.length ? (
        <div class="scroll">
          <table class="hub-table runs-table">
            <caption class="visually-hidden">{t('hub.runs.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('hub.field.status')}</th>
                <th scope="col">{t('hub.runs.trigger')}</th>
                {(['read', 'created', 'changed', 'unchanged', 'deactivated', 'rejected', 'sent'] as const).map((count) => (
                  <th scope="col" key={count}>
                    {t(`hub.count.${count}`)}
                  </th>
                ))}
                <th scope="col">{t('hub.runs.file')}</th>
                <th scope="col">{t('hub.runs.started')}</th>
                <th scope="col">{t('hub.runs.finished')}</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.items.map((run) => (
                <tr key={run.id} data-run={run.id}>
                  <td>
                    <HubLink to={`/data-hub/runs/${run.id}`}>
                      <StatusBadge status={run.status} />
                      {run.preview ? ` (${t('hub.runs.previewShort')})` : ''}
                    </HubLink>
                  </td>
                  <td>{t(`hub.trigger.${run.trigger}`)}</td>
                  {(['read', 'created', 'changed', 'unchanged', 'deactivated', 'rejected', 'sent'] as const).map((count) => (
                    <td key={count} class="number">
                      {fmt.number(run.counts?.[count] ?? 0)}
                    </td>
                  ))}
                  <td dir="ltr">{run.file?.name ?? '—'}</td>
                  <td>{run.startedAt ? fmt.dateTime(run.startedAt) : '—'}</td>
                  <td>{run.finishedAt ? fmt.dateTime(run.finishedAt) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager {...runs} />
    </section>
  );
}

/** Counts, file, the shrink guard's refusal explained, the error. */
function RunSummary({ run, onOverride }: { run: Run; onOverride?: (maxDeactivatePercent: number, reason: string) => void }) {
  const { t, fmt } = useApp();
  const bilingual = useBilingual();
  const [percent, setPercent] = useState('');
  const [reason, setReason] = useState('');
  return (
    <div class="run-summary">
      <p>
        <StatusBadge status={run.status} /> {t(`hub.trigger.${run.trigger}`)}
        {run.file ? (
          <span dir="ltr">
            {' '}
            · {run.file.name} ({fmt.number(run.file.bytes)} B)
          </span>
        ) : null}
      </p>
      <Counts run={run} />
      {run.refusal ? (
        <div class="refusal" role="alert" data-refusal={run.refusal.code}>
          <p>
            <strong>{t('hub.runs.refused')}</strong>{' '}
            {t('hub.runs.shrinkGuard', {
              would: fmt.number(run.refusal.wouldDeactivate),
              active: fmt.number(run.refusal.activeRecords),
              percent: fmt.percent(run.refusal.percent / 100),
              threshold: fmt.percent(run.refusal.threshold.maxDeactivatePercent / 100),
              count: fmt.number(run.refusal.threshold.maxDeactivateCount),
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
              <button type="submit">{t('hub.runs.override')}</button>
            </form>
          ) : null}
        </div>
      ) : null}
      {run.override ? <p>{t('hub.runs.overridden', { percent: run.override.maxDeactivatePercent, reason: run.override.reason })}</p> : null}
      {run.error ? (
        <div class="problem" role="alert" data-code={run.error.code}>
          <p>{bilingual(run.error)}</p>
        </div>
      ) : null}
    </div>
  );
}

function valuesText(values: unknown): string {
  if (values && typeof values === 'object')
    return Object.entries(values as Record<string, unknown>)
      .map(([key, value]) => `${key}: ${value === null || value === undefined ? '' : String(value)}`)
      .join(' · ');
  return values === null || values === undefined ? '' : String(values);
}

function RejectedTable({ rows }: { rows: RejectedRow[] }) {
  const { t, fmt } = useApp();
  const bilingual = useBilingual();
  return (
    <section aria-labelledby="rejected-title" data-list="rejected">
      <h3 id="rejected-title">{t('hub.runs.rejected')}</h3>
      {rows.length === 0 ? (
        <p>{t('hub.runs.none')}</p>
      ) : (
        <table class="hub-table">
          <caption class="visually-hidden">{t('hub.runs.rejected')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('hub.runs.line')}</th>
              <th scope="col">{t('hub.runs.values')}</th>
              <th scope="col">{t('hub.runs.reasons')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={`${row.line}-${index}`} data-rejected-line={row.line ?? ''}>
                <td class="number">{row.line === null ? '—' : fmt.number(row.line)}</td>
                <td dir="auto">{valuesText(row.values)}</td>
                <td>
                  <ul class="reasons">
                    {row.errors.map((error, at) => (
                      <li key={at} data-reason={error.code}>
                        <code>{error.field}</code>: {bilingual(error)}
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function RecordTable({ title, rows, name }: { title: string; rows: RecordRow[]; name: string }) {
  const { t } = useApp();
  return (
    <section aria-labelledby={`${name}-title`} data-list={name}>
      <h3 id={`${name}-title`}>{title}</h3>
      {rows.length === 0 ? (
        <p>{t('hub.runs.none')}</p>
      ) : (
        <table class="hub-table">
          <caption class="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">{t('hub.runs.key')}</th>
              <th scope="col">{t('hub.runs.recordId')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={`${row.key}-${index}`}>
                <td dir="auto">{row.key ?? '—'}</td>
                <td dir="ltr">
                  <code>{row.recordId ?? '—'}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A run: its counts, its refusal with the override form, its error, and its lists page by page. */
export function RunPage({ id }: { id: string }) {
  const { t, can, canWrite } = useApp();
  const loaded = useLoad<Run>(`${HUB}/runs/${id}`);
  const action = useAction();
  const run = loaded.data;
  const pending = run?.status === 'queued' || run?.status === 'running';
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(loaded.reload, 2000);
    return () => clearTimeout(timer);
  }, [pending, run]);
  const rejected = usePaged<RejectedRow>(run && !pending ? `${HUB}/runs/${id}/rejected` : null);
  const created = usePaged<RecordRow>(run && !pending ? `${HUB}/runs/${id}/created` : null);
  const deactivated = usePaged<RecordRow>(run && !pending ? `${HUB}/runs/${id}/deactivated` : null);
  if (!run) return <ErrorView error={loaded.error} />;
  const override =
    canWrite && can('data.flows.manage') && run.refusal?.code === 'shrink_guard'
      ? (maxDeactivatePercent: number, reason: string) =>
          action.run(async () => {
            const next = await hubPost<Run>(`/flows/${run.flowId}/runs`, { overrideShrinkGuard: { maxDeactivatePercent, reason } });
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
      <RunSummary run={run} onOverride={override} />
      <ErrorView error={action.error} />
      {pending ? null : (
        <>
          <ErrorView error={rejected.error} />
          <RejectedTable rows={rejected.data?.items ?? []} />
          <Pager {...rejected} />
          <RecordTable title={t('hub.runs.created')} rows={created.data?.items ?? []} name="created" />
          <Pager {...created} />
          <RecordTable title={t('hub.runs.deactivated')} rows={deactivated.data?.items ?? []} name="deactivated" />
          <Pager {...deactivated} />
        </>
      )}
    </section>
  );
}
