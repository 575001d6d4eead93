import { useState } from 'preact/hooks';
import { useApp } from '../../lib/app-context.js';
import { navigate } from '../../lib/router.js';
import { FlowRuns } from './Runs.js';
import type { Connection, Flow, Mapping, Page } from './types.js';
import { ErrorView, HUB, HubLink, hubPost, hubPut, Pager, StatusBadge, useAction, useLoad, usePaged } from './ui.js';

export function FlowsList() {
  const { t, can, canWrite, fmt } = useApp();
  const list = usePaged<Flow>(`${HUB}/flows`);
  return (
    <section aria-labelledby="page-title" class="hub">
      <div class="page-head">
        <h1 id="page-title">{t('nav.flows')}</h1>
        {canWrite && can('data.flows.manage') ? (
          <HubLink to="/data-hub/flows/new" class="button">
            {t('hub.flows.new')}
          </HubLink>
        ) : null}
      </div>
      <ErrorView error={list.error} />
      {list.data?.items.length === 0 ? <p>{t('hub.flows.empty')}</p> : null}
      {list.data?.items.length ? (
        <table class="hub-table">
          <caption class="visually-hidden">{t('nav.flows')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('hub.field.name')}</th>
              <th scope="col">{t('hub.field.direction')}</th>
              <th scope="col">{t('hub.field.fileTemplate')}</th>
              <th scope="col">{t('hub.flows.nextRunAt')}</th>
              <th scope="col">{t('hub.flows.lastRun')}</th>
              <th scope="col">{t('hub.flows.state')}</th>
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((flow) => (
              <tr key={flow.id} data-flow={flow.name}>
                <td>
                  <HubLink to={`/data-hub/flows/${flow.id}`}>{flow.name}</HubLink>
                </td>
                <td>{t(`hub.direction.${flow.direction}`)}</td>
                <td dir="ltr">
                  <code>{flow.fileTemplate}</code>
                </td>
                <td>{flow.nextRunAt ? fmt.dateTime(flow.nextRunAt) : '—'}</td>
                <td>
                  <LastRun flow={flow} />
                </td>
                <td>
                  {[flow.paused ? t('hub.flows.paused') : null, flow.muted ? t('hub.flows.muted') : null].filter(Boolean).join(' · ') ||
                    '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager {...list} />
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
  const loaded = useLoad<Flow>(id === 'new' ? null : `${HUB}/flows/${id}`);
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
  const toggle = (change: Partial<Flow>) => action.run(async () => loaded.set(await hubPut<Flow>(`/flows/${id}`, change)));
  return (
    <section aria-labelledby="page-title" class="hub">
      <p>
        <HubLink to="/data-hub/flows">{t('hub.back.flows')}</HubLink>
      </p>
      <h1 id="page-title">{flow.name}</h1>
      <dl class="facts">
        <div>
          <dt>{t('hub.flows.nextRunAt')}</dt>
          <dd>{flow.nextRunAt ? fmt.dateTime(flow.nextRunAt) : '—'}</dd>
        </div>
        <div>
          <dt>{t('hub.field.schedule')}</dt>
          <dd dir="ltr">{flow.schedule ? `${flow.schedule.cron} (${flow.schedule.timezone})` : t('hub.flows.noSchedule')}</dd>
        </div>
        <div>
          <dt>{t('hub.flows.state')}</dt>
          <dd data-flow-state>
            {flow.paused ? t('hub.flows.paused') : t('hub.flows.running')} · {flow.muted ? t('hub.flows.muted') : t('hub.flows.alerting')}
          </dd>
        </div>
      </dl>
      {write ? (
        <div class="actions">
          <button type="button" aria-pressed={flow.paused} disabled={action.busy} onClick={() => toggle({ paused: !flow.paused })}>
            {flow.paused ? t('hub.flows.resume') : t('hub.flows.pause')}
          </button>
          <button type="button" aria-pressed={flow.muted} disabled={action.busy} onClick={() => toggle({ muted: !flow.muted })}>
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

function FlowForm({ flow, onSaved }: { flow?: Flow; onSaved?: (flow: Flow) => void }) {
  const { t, me } = useApp();
  const connections = useLoad<Page<Connection>>(`${HUB}/connections?limit=100`);
  const mappings = useLoad<Page<Mapping>>(`${HUB}/mappings?limit=100`);
  const [mappingId, setMappingId] = useState(flow?.mappingId ?? '');
  const [scheduled, setScheduled] = useState(!!flow?.schedule);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const mapping = mappings.data?.items.find((item) => item.id === mappingId);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const body: Record<string, unknown> = {
      name: text('name'),
      connectionId: text('connectionId'),
      mappingId: text('mappingId'),
      format: text('format'),
      encoding: text('encoding'),
      fileTemplate: text('fileTemplate'),
      mode: text('mode'),
      schedule: scheduled ? { cron: text('cron'), timezone: text('timezone') } : null,
      missingAfterMinutes: Number(text('missingAfterMinutes')),
      alertRecipients: text('alertRecipients')
        .split(/[\s,;]+/)
        .filter(Boolean),
      shrinkGuard: { maxDeactivatePercent: Number(text('maxDeactivatePercent')), maxDeactivateCount: Number(text('maxDeactivateCount')) },
    };
    setSaved(false);
    void action.run(async () => {
      if (flow) {
        onSaved?.(await hubPut<Flow>(`/flows/${flow.id}`, body));
        setSaved(true);
      } else {
        const created = await hubPost<Flow>('/flows', { ...body, direction: mapping?.direction ?? 'import' });
        navigate(`/data-hub/flows/${created.id}`);
      }
    });
  };
  return (
    <form class="hub-form" onSubmit={submit} aria-labelledby={flow ? 'flow-form-title' : 'page-title'}>
      {flow ? <h2 id="flow-form-title">{t('hub.flows.edit')}</h2> : null}
      <ErrorView error={connections.error ?? mappings.error} />
      <label>
        <span>{t('hub.field.name')}</span>
        <input name="name" required maxLength={120} defaultValue={flow?.name ?? ''} />
      </label>
      <label>
        <span>{t('hub.field.connection')}</span>
        <select name="connectionId" required>
          {(connections.data?.items ?? []).map((connection) => (
            <option value={connection.id} key={connection.id} selected={connection.id === flow?.connectionId}>
              {connection.name} ({t(`hub.status.${connection.status}`)})
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>{t('hub.field.mapping')}</span>
        <select name="mappingId" required value={mappingId} onChange={(event) => setMappingId(event.currentTarget.value)}>
          <option value="">—</option>
          {(mappings.data?.items ?? []).map((item) => (
            <option value={item.id} key={item.id}>
              {item.name} ({item.structure}, {t(`hub.direction.${item.direction}`)})
            </option>
          ))}
        </select>
      </label>
      {mapping ? <p class="hint">{t('hub.flows.directionFromMapping', { direction: t(`hub.direction.${mapping.direction}`) })}</p> : null}
      <label>
        <span>{t('hub.field.format')}</span>
        <select name="format">
          {['csv', 'jsonl', 'xlsx'].map((format) => (
            <option value={format} key={format} selected={format === (flow?.format ?? 'csv')}>
              {format.toUpperCase()}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>{t('hub.field.encoding')}</span>
        <select name="encoding">
          <option value="utf-8">UTF-8</option>
          <option value="windows-1256" selected={flow?.encoding === 'windows-1256'}>
            Windows-1256
          </option>
        </select>
      </label>
      <label>
        <span>{t('hub.field.fileTemplate')}</span>
        <input
          name="fileTemplate"
          required
          dir="ltr"
          defaultValue={flow?.fileTemplate ?? ''}
          placeholder="stock-{yyyy}{MM}{dd}.csv"
          aria-describedby="template-hint"
        />
        <span class="hint" id="template-hint">
          {t('hub.flows.templateHint')}
        </span>
      </label>
      <label>
        <span>{t('hub.field.mode')}</span>
        <select name="mode">
          <option value="upsert">{t('hub.mode.upsert')}</option>
          <option value="replace" selected={flow?.mode === 'replace'}>
            {t('hub.mode.replace')}
          </option>
        </select>
      </label>
      <fieldset>
        <legend>{t('hub.field.schedule')}</legend>
        <label class="check">
          <input type="checkbox" checked={scheduled} onChange={(event) => setScheduled(event.currentTarget.checked)} />
          <span>{t('hub.flows.scheduled')}</span>
        </label>
        {scheduled ? (
          <>
            <label>
              <span>{t('hub.flows.cron')}</span>
              <input name="cron" required dir="ltr" defaultValue={flow?.schedule?.cron ?? '0 2 * * *'} aria-describedby="cron-hint" />
              <span class="hint" id="cron-hint">
                {t('hub.flows.cronHint')}
              </span>
            </label>
            <label>
              <span>{t('hub.flows.timezone')}</span>
              <input name="timezone" required dir="ltr" defaultValue={flow?.schedule?.timezone ?? me.store.timezone} />
            </label>
          </>
        ) : null}
        <label>
          <span>{t('hub.flows.missingAfter')}</span>
          <input
            name="missingAfterMinutes"
            type="number"
            min={1}
            max={10080}
            required
            defaultValue={String(flow?.missingAfterMinutes ?? 60)}
          />
        </label>
        <label>
          <span>{t('hub.flows.recipients')}</span>
          <input
            name="alertRecipients"
            dir="ltr"
            defaultValue={(flow?.alertRecipients ?? []).join(', ')}
            aria-describedby="recipients-hint"
          />
          <span class="hint" id="recipients-hint">
            {t('hub.flows.recipientsHint')}
          </span>
        </label>
      </fieldset>
      <fieldset>
        <legend>{t('hub.flows.shrinkGuard')}</legend>
        <label>
          <span>{t('hub.flows.maxPercent')}</span>
          <input
            name="maxDeactivatePercent"
            type="number"
            min={0}
            max={100}
            required
            defaultValue={String(flow?.shrinkGuard.maxDeactivatePercent ?? 10)}
          />
        </label>
        <label>
          <span>{t('hub.flows.maxCount')}</span>
          <input
            name="maxDeactivateCount"
            type="number"
            min={0}
            required
            defaultValue={String(flow?.shrinkGuard.maxDeactivateCount ?? 500)}
          />
        </label>
      </fieldset>
      <ErrorView error={action.error} />
      {saved ? <p role="status">{t('hub.saved')}</p> : null}
      <button type="submit" disabled={action.busy}>
        {flow ? t('hub.save') : t('hub.create')}
      </button>
    </form>
  );
}
