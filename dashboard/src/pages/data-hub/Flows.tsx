import { useState } from 'preact/hooks';
import { DataTable } from '../../components/DataTable.js';
import { Field, useFieldErrors } from '../../components/fields.js';
import { answer, client, get } from '../../lib/api.js';
import type { Schema } from '../../lib/types.js';
import { pick, useApp } from '../../lib/app-context.js';
import { getAll, useLoad, usePaged } from '../../lib/load.js';
import { navigate } from '../../lib/router.js';
import { FlowRuns } from './Runs.js';
import { FORMULA_SAFETY, type Flow, type FormulaSafety } from './types.js';
import { ErrorView, HubLink, StatusBadge, useAction } from './ui.js';

export function FlowsList() {
  const { t, can, canWrite, fmt } = useApp();
  const list = usePaged((page) => get('/admin/data-hub/flows', { query: page }));
  return (
    <section aria-labelledby="page-title" class="hub">
      <div class="page-head">
        <h1 id="page-title">{t('nav.flows')}</h1>
        {canWrite && can('data.flows.manage') ? (
          <HubLink to="/data-hub/flows/new" class="button" write>
            {t('hub.flows.new')}
          </HubLink>
        ) : null}
      </div>
      <DataTable
        label={t('nav.flows')}
        columns={[
          { header: t('hub.field.name'), cell: (flow) => <HubLink to={`/data-hub/flows/${flow.id}`}>{flow.name}</HubLink> },
          { header: t('hub.field.direction'), cell: (flow) => t(`hub.direction.${flow.direction}`) },
          {
            header: t('hub.field.fileTemplate'),
            cell: (flow) => <code dir="ltr">{flow.fileTemplate}</code>,
          },
          {
            header: t('hub.flows.nextRunAt'),
            cell: (flow) => (!flow.schedule ? t('hub.flows.noSchedule') : flow.nextRunAt ? fmt.dateTime(flow.nextRunAt) : '—'),
          },
          { header: t('hub.flows.lastRun'), cell: (flow) => <LastRun flow={flow} /> },
          {
            header: t('hub.flows.state'),
            cell: (flow) =>
              (flow.schedule &&
                [flow.paused ? t('hub.flows.paused') : null, flow.muted ? t('hub.flows.muted') : null].filter(Boolean).join(' · ')) ||
              '—',
          },
        ]}
        rows={list.data?.items}
        rowKey={(flow) => flow.id}
        rowData={(flow) => ({ 'data-flow': flow.name })}
        empty={t('hub.flows.empty')}
        error={list.error}
        paging={list}
      />
    </section>
  );
}

/** The flow's last run (not a preview), as the flow document gives it. */
function LastRun({ flow }: { flow: Flow }) {
  if (!flow.lastRun) return <>—</>;
  return (
    <HubLink to={`/data-hub/runs/${flow.lastRun.id}`}>
      <StatusBadge status={flow.lastRun.status} />
    </HubLink>
  );
}

export function FlowPage({ id }: { id: string }) {
  const { t, can, canWrite, fmt } = useApp();
  const loaded = useLoad(id === 'new' ? null : () => get('/admin/data-hub/flows/{id}', { path: { id } }), [id]);
  const action = useAction();
  const write = canWrite && can('data.flows.manage');
  if (id === 'new')
    return (
      <section aria-labelledby="page-title" class="hub">
        <p>
          <HubLink to="/data-hub/flows">{t('hub.back.flows')}</HubLink>
        </p>
        <h1 id="page-title">{t('hub.flows.new')}</h1>
        <FlowForm />
      </section>
    );
  const flow = loaded.data;
  if (!flow) return <ErrorView error={loaded.error} />;
  const toggle = (change: Pick<Flow, 'paused'> | Pick<Flow, 'muted'>) =>
    action.run(async () => loaded.set(await answer(client.PUT('/admin/data-hub/flows/{id}', { params: { path: { id } }, body: change }))));
  return (
    <section aria-labelledby="page-title" class="hub">
      <p>
        <HubLink to="/data-hub/flows">{t('hub.back.flows')}</HubLink>
      </p>
      <h1 id="page-title">{flow.name}</h1>
      <dl class="facts">
        <div>
          <dt>{t('hub.field.direction')}</dt>
          <dd>{t(`hub.direction.${flow.direction}`)}</dd>
        </div>
        <div>
          <dt>{t('hub.field.schedule')}</dt>
          <dd data-schedule>
            {flow.schedule ? (
              <code dir="ltr">
                {flow.schedule.cron} ({flow.schedule.timezone})
              </code>
            ) : (
              t('hub.flows.noSchedule')
            )}
          </dd>
        </div>
        {flow.schedule ? (
          <>
            <div>
              <dt>{t('hub.flows.nextRunAt')}</dt>
              <dd>{flow.nextRunAt ? fmt.dateTime(flow.nextRunAt) : '—'}</dd>
            </div>
            <div>
              <dt>{t('hub.flows.state')}</dt>
              <dd data-flow-state>
                {flow.paused ? t('hub.flows.paused') : t('hub.flows.running')} ·{' '}
                {flow.muted ? t('hub.flows.muted') : flow.alertRecipients.length ? t('hub.flows.alerting') : t('hub.flows.noRecipients')}
              </dd>
            </div>
          </>
        ) : null}
        {flow.direction === 'export' ? (
          <div>
            <dt>{t('hub.field.formulaSafety')}</dt>
            <dd data-formula-safety={flow.formulaSafety}>{t(`hub.formulaSafety.${flow.formulaSafety}`)}</dd>
          </div>
        ) : null}
      </dl>
      {write && flow.schedule ? (
        <div class="actions">
          <button
            type="button"
            data-write
            aria-pressed={flow.paused}
            disabled={action.busy}
            onClick={() => toggle({ paused: !flow.paused })}
          >
            {flow.paused ? t('hub.flows.resume') : t('hub.flows.pause')}
          </button>
          <button type="button" data-write aria-pressed={flow.muted} disabled={action.busy} onClick={() => toggle({ muted: !flow.muted })}>
            {flow.muted ? t('hub.flows.unmute') : t('hub.flows.mute')}
          </button>
        </div>
      ) : null}
      <ErrorView error={action.error} />
      <FlowRuns flow={flow} />
      {write ? <FlowForm flow={flow} onSaved={(saved) => loaded.set(saved)} key={flow.id} /> : null}
    </section>
  );
}

/**
 * The form's controls, named by the API fields they send (a refusal's errors name the same fields). Alerts
 * are about scheduled runs: their recipients are asked for a scheduled flow, and the delay after which a
 * file that did not come is a missing run for a scheduled import; a form without them leaves them as they are.
 */
const FLOW_CONTROLS = [
  'name',
  'connectionId',
  'mappingId',
  'format',
  'encoding',
  'fileTemplate',
  'mode',
  'formulaSafety',
  'schedule.cron',
  'schedule.timezone',
  'missingAfterMinutes',
  'alertRecipients',
  'shrinkGuard.maxDeactivatePercent',
  'shrinkGuard.maxDeactivateCount',
];

function FlowForm({ flow, onSaved }: { flow?: Flow; onSaved?: (flow: Flow) => void }) {
  const { t, lang, me } = useApp();
  // Every connection and mapping of the store, whatever their number: a flow may use any of them.
  const connections = useLoad(() => getAll((page) => get('/admin/data-hub/connections', { query: page })));
  const mappings = useLoad(() =>
    getAll((page) => answer<Schema<'MappingPageDoc'>>(client.GET('/admin/data-hub/mappings', { params: { query: page } }))),
  );
  const structures = useLoad(() => get('/admin/data-hub/structures'));
  const [mappingId, setMappingId] = useState(flow?.mappingId ?? '');
  const [scheduled, setScheduled] = useState(!!flow?.schedule);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const errors = useFieldErrors(action.error, (field) => (FLOW_CONTROLS.includes(field) ? field : undefined));
  const mapping = mappings.data?.find((item) => item.id === mappingId);
  // Formula safety is what an export writes: an import's form leaves it as it is.
  const exporting = (mapping?.direction ?? flow?.direction) === 'export';
  const structureLabel = (name: string) => {
    const structure = structures.data?.items.find((item) => item.name === name);
    return structure ? pick(lang, structure, 'label') : name;
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const body = {
      name: text('name'),
      connectionId: text('connectionId'),
      mappingId: text('mappingId'),
      format: text('format') as Flow['format'],
      encoding: text('encoding') as Flow['encoding'],
      fileTemplate: text('fileTemplate'),
      mode: text('mode') as Flow['mode'],
      ...(exporting ? { formulaSafety: text('formulaSafety') as FormulaSafety } : {}),
      schedule: scheduled ? { cron: text('schedule.cron'), timezone: text('schedule.timezone') } : null,
      ...(scheduled && !exporting ? { missingAfterMinutes: Number(text('missingAfterMinutes')) } : {}),
      ...(scheduled
        ? {
            alertRecipients: text('alertRecipients')
              .split(/[\s,;]+/)
              .filter(Boolean),
          }
        : {}),
      shrinkGuard: {
        maxDeactivatePercent: Number(text('shrinkGuard.maxDeactivatePercent')),
        maxDeactivateCount: Number(text('shrinkGuard.maxDeactivateCount')),
      },
    };
    setSaved(false);
    void action.run(async () => {
      if (flow) {
        onSaved?.(await answer(client.PUT('/admin/data-hub/flows/{id}', { params: { path: { id: flow.id } }, body })));
        setSaved(true);
      } else {
        const created = await answer(
          client.POST('/admin/data-hub/flows', { body: { ...body, direction: mapping?.direction ?? 'import' } }),
        );
        navigate(`/data-hub/flows/${created.id}`);
      }
    });
  };
  return (
    <form class="hub-form" ref={errors.formRef} onSubmit={submit} aria-labelledby={flow ? 'flow-form-title' : 'page-title'}>
      {flow ? <h2 id="flow-form-title">{t('hub.flows.edit')}</h2> : null}
      <ErrorView error={connections.error ?? mappings.error ?? structures.error} />
      <Field label={t('hub.field.name')} name="name" errors={errors}>
        {(control) => <input {...control} required maxLength={120} defaultValue={flow?.name ?? ''} />}
      </Field>
      <Field label={t('hub.field.connection')} name="connectionId" errors={errors}>
        {(control) => (
          <select {...control} required>
            {(connections.data ?? []).map((connection) => (
              <option value={connection.id} key={connection.id} selected={connection.id === flow?.connectionId}>
                {connection.name} ({t(`hub.status.${connection.status}`)})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        label={t('hub.field.mapping')}
        name="mappingId"
        errors={errors}
        hint={mapping ? t('hub.flows.directionFromMapping', { direction: t(`hub.direction.${mapping.direction}`) }) : undefined}
      >
        {(control) => (
          <select {...control} required value={mappingId} onChange={(event) => setMappingId(event.currentTarget.value)}>
            <option value="">—</option>
            {(mappings.data ?? []).map((item) => (
              <option value={item.id} key={item.id}>
                {item.name} ({structureLabel(item.structure)}, {t(`hub.direction.${item.direction}`)})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('hub.field.format')} name="format" errors={errors}>
        {(control) => (
          <select {...control}>
            {['csv', 'jsonl', 'xlsx'].map((format) => (
              <option value={format} key={format} selected={format === (flow?.format ?? 'csv')}>
                {format.toUpperCase()}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('hub.field.encoding')} name="encoding" errors={errors}>
        {(control) => (
          <select {...control}>
            <option value="utf-8">UTF-8</option>
            <option value="windows-1256" selected={flow?.encoding === 'windows-1256'}>
              Windows-1256
            </option>
          </select>
        )}
      </Field>
      <Field label={t('hub.field.fileTemplate')} name="fileTemplate" errors={errors} hint={t('hub.flows.templateHint')}>
        {(control) => (
          <input {...control} required dir="ltr" defaultValue={flow?.fileTemplate ?? ''} placeholder="stock-{yyyy}{MM}{dd}.csv" />
        )}
      </Field>
      {exporting ? (
        <Field label={t('hub.field.formulaSafety')} name="formulaSafety" errors={errors} hint={t('hub.formulaSafety.hint')}>
          {(control) => (
            <select {...control}>
              {FORMULA_SAFETY.map((setting) => (
                <option value={setting} key={setting} selected={setting === (flow?.formulaSafety ?? 'escape')}>
                  {t(`hub.formulaSafety.${setting}`)}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      <Field label={t('hub.field.mode')} name="mode" errors={errors}>
        {(control) => (
          <select {...control}>
            <option value="upsert">{t('hub.mode.upsert')}</option>
            <option value="replace" selected={flow?.mode === 'replace'}>
              {t('hub.mode.replace')}
            </option>
          </select>
        )}
      </Field>
      <fieldset>
        <legend>{t('hub.field.schedule')}</legend>
        <label class="check">
          <input type="checkbox" checked={scheduled} onChange={(event) => setScheduled(event.currentTarget.checked)} />
          <span>{t('hub.flows.scheduled')}</span>
        </label>
        {scheduled ? (
          <>
            <Field label={t('hub.flows.cron')} name="schedule.cron" errors={errors} hint={t('hub.flows.cronHint')}>
              {(control) => <input {...control} required dir="ltr" defaultValue={flow?.schedule?.cron ?? '0 2 * * *'} />}
            </Field>
            <Field label={t('hub.flows.timezone')} name="schedule.timezone" errors={errors}>
              {(control) => <input {...control} required dir="ltr" defaultValue={flow?.schedule?.timezone ?? me.store.timezone} />}
            </Field>
            {exporting ? null : (
              <Field label={t('hub.flows.missingAfter')} name="missingAfterMinutes" errors={errors}>
                {(control) => (
                  <input {...control} type="number" min={1} max={10080} required defaultValue={String(flow?.missingAfterMinutes ?? 60)} />
                )}
              </Field>
            )}
            <Field label={t('hub.flows.recipients')} name="alertRecipients" errors={errors} hint={t('hub.flows.recipientsHint')}>
              {(control) => <input {...control} dir="ltr" defaultValue={(flow?.alertRecipients ?? []).join(', ')} />}
            </Field>
          </>
        ) : null}
      </fieldset>
      <fieldset>
        <legend>{t('hub.flows.shrinkGuard')}</legend>
        <Field label={t('hub.flows.maxPercent')} name="shrinkGuard.maxDeactivatePercent" errors={errors}>
          {(control) => (
            <input
              {...control}
              type="number"
              min={0}
              max={100}
              required
              defaultValue={String(flow?.shrinkGuard.maxDeactivatePercent ?? 10)}
            />
          )}
        </Field>
        <Field label={t('hub.flows.maxCount')} name="shrinkGuard.maxDeactivateCount" errors={errors}>
          {(control) => (
            <input {...control} type="number" min={0} required defaultValue={String(flow?.shrinkGuard.maxDeactivateCount ?? 500)} />
          )}
        </Field>
      </fieldset>
      <ErrorView error={action.error} />
      {errors.rest}
      {saved ? <p role="status">{t('hub.saved')}</p> : null}
      <button type="submit" data-write disabled={action.busy}>
        {flow ? t('hub.save') : t('hub.create')}
      </button>
    </form>
  );
}
