import { useEffect, useRef, useState } from 'preact/hooks';
import { Field, FieldGroup, nearestControl, useFieldErrors } from '../../components/fields.js';
import { ProblemView } from '../../components/Problem.js';
import type { MessageKey } from '../../i18n/messages.js';
import { answer, client } from '../../lib/api.js';
import { useApp } from '../../lib/app-context.js';
import type { Cadence, SavedReport, Schedule, Schema } from '../../lib/types.js';
import type { Connection } from '../data-hub/types.js';

const WEEKDAYS = ['saturday', 'sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday'];

interface Draft {
  savedReportId: string;
  name: string;
  frequency: 'daily' | 'weekly' | 'monthly';
  time: string;
  weekday: string;
  dayOfMonth: string;
  format: 'csv' | 'xlsx';
  destination: 'email' | 'connection';
  recipients: string;
  connectionId: string;
  pathTemplate: string;
  skipEmpty: boolean;
  paused: boolean;
}

function draftOf(schedule: Schedule | null, firstReport: string): Draft {
  const destination = schedule?.destination;
  return {
    savedReportId: schedule?.savedReportId ?? firstReport,
    name: schedule?.name ?? '',
    frequency: schedule?.cadence.frequency ?? 'weekly',
    time: schedule?.cadence.time ?? '08:00',
    weekday: schedule?.cadence.weekday ?? 'monday',
    dayOfMonth: String(schedule?.cadence.dayOfMonth ?? 1),
    format: schedule?.format ?? 'csv',
    destination: destination?.kind ?? 'email',
    recipients: destination?.kind === 'email' ? destination.recipients.join(', ') : '',
    connectionId: destination?.kind === 'connection' ? destination.connectionId : '',
    pathTemplate: destination?.kind === 'connection' ? destination.pathTemplate : `report-{yyyy}{MM}{dd}.${schedule?.format ?? 'csv'}`,
    skipEmpty: schedule?.skipEmpty ?? false,
    paused: schedule?.paused ?? false,
  };
}

/** The body of `POST /schedules` a draft stands for. */
function requestOf(draft: Draft): Schema<'CreateScheduleDto'> {
  return {
    savedReportId: draft.savedReportId,
    name: draft.name,
    cadence: {
      frequency: draft.frequency,
      time: draft.time,
      ...(draft.frequency === 'weekly' ? { weekday: draft.weekday as Cadence['weekday'] } : {}),
      ...(draft.frequency === 'monthly' ? { dayOfMonth: Number(draft.dayOfMonth) } : {}),
    },
    format: draft.format,
    destination:
      draft.destination === 'email'
        ? {
            kind: 'email' as const,
            recipients: draft.recipients
              .split(/[,\s]+/)
              .map((value) => value.trim())
              .filter(Boolean),
          }
        : { kind: 'connection' as const, connectionId: draft.connectionId, pathTemplate: draft.pathTemplate },
    skipEmpty: draft.skipEmpty,
    paused: draft.paused,
  };
}

/**
 * A schedule's form. `connections`: the store's file connections when the member may deliver to one
 * (pro plan and `data.flows.manage`), else null and the destination is email only.
 */
export function ScheduleForm({
  schedule,
  reports,
  connections,
  onDone,
}: {
  schedule: Schedule | null;
  reports: SavedReport[];
  connections: Connection[] | null;
  onDone: () => void;
}) {
  const { t, lang, fmt, entitled } = useApp();
  const [draft, setDraft] = useState<Draft>(() => draftOf(schedule, reports[0]?.id ?? ''));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  // Until one is chosen, the first of the list (which may arrive after the form opened).
  const connectionId = draft.connectionId || connections?.[0]?.id || '';
  // The controls shown, by the API field each sends; one inside a group the form does not show is said at the group's end.
  const controls = [
    'savedReportId',
    'name',
    'cadence',
    'cadence.frequency',
    'cadence.time',
    ...(draft.frequency === 'weekly' ? ['cadence.weekday'] : draft.frequency === 'monthly' ? ['cadence.dayOfMonth'] : []),
    'format',
    'destination',
    ...(draft.destination === 'email' ? ['destination.recipients'] : []),
    ...(draft.destination === 'connection' && connections !== null ? ['destination.connectionId', 'destination.pathTemplate'] : []),
  ];
  const errors = useFieldErrors(error, nearestControl(controls));
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const body = requestOf({ ...draft, connectionId });
    // A change sends only what changed: what the member may not change (a connection, without data.flows.manage) stays.
    const before = schedule ? requestOf(draftOf(schedule, '')) : null;
    const changes: Schema<'UpdateScheduleDto'> = before
      ? Object.fromEntries(
          Object.entries(body).filter(([field, value]) => JSON.stringify(value) !== JSON.stringify(before[field as keyof typeof before])),
        )
      : body;
    try {
      if (schedule) await answer(client.PATCH('/admin/insights/schedules/{id}', { params: { path: { id: schedule.id } }, body: changes }));
      else await answer(client.POST('/admin/insights/schedules', { body }));
      onDone();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="ins-form panel" ref={errors.formRef} onSubmit={submit} aria-labelledby="schedule-form-title" data-schedule-form>
      <h2 id="schedule-form-title" tabIndex={-1} ref={heading}>
        {schedule ? t('ins.sched.edit', { name: schedule.name }) : t('ins.sched.new')}
      </h2>
      <Field label={t('ins.sched.report')} name="savedReportId" errors={errors}>
        {(control) => (
          <select {...control} value={draft.savedReportId} onChange={(event) => set({ savedReportId: event.currentTarget.value })}>
            {reports.map((report) => (
              <option value={report.id} key={report.id}>
                {report.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t('ins.saved.name')} name="name" errors={errors}>
        {(control) => (
          <input {...control} required maxLength={120} value={draft.name} onInput={(event) => set({ name: event.currentTarget.value })} />
        )}
      </Field>
      <FieldGroup legend={t('ins.sched.cadence')} name="cadence" errors={errors}>
        <Field label={t('ins.sched.frequency')} name="cadence.frequency" errors={errors}>
          {(control) => (
            <select
              {...control}
              value={draft.frequency}
              onChange={(event) => set({ frequency: event.currentTarget.value as Draft['frequency'] })}
            >
              {(['daily', 'weekly', 'monthly'] as const).map((frequency) => (
                <option value={frequency} key={frequency}>
                  {t(`ins.sched.${frequency}` as MessageKey)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('ins.sched.time')} name="cadence.time" errors={errors}>
          {(control) => (
            <input {...control} type="time" required value={draft.time} onInput={(event) => set({ time: event.currentTarget.value })} />
          )}
        </Field>
        {draft.frequency === 'weekly' ? (
          <Field label={t('ins.sched.weekday')} name="cadence.weekday" errors={errors}>
            {(control) => (
              <select {...control} value={draft.weekday} onChange={(event) => set({ weekday: event.currentTarget.value })}>
                {WEEKDAYS.map((day) => (
                  <option value={day} key={day}>
                    {t(`ins.day.${day}` as MessageKey)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
        {draft.frequency === 'monthly' ? (
          <Field label={t('ins.sched.dayOfMonth')} name="cadence.dayOfMonth" errors={errors}>
            {(control) => (
              <select {...control} value={draft.dayOfMonth} onChange={(event) => set({ dayOfMonth: event.currentTarget.value })}>
                {Array.from({ length: 31 }, (_, index) => String(index + 1)).map((day) => (
                  <option value={day} key={day}>
                    {fmt.number(Number(day))}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
      </FieldGroup>
      <Field label={t('ins.export.format')} name="format" errors={errors}>
        {(control) => (
          <select
            {...control}
            value={draft.format}
            onChange={(event) => {
              // A file written to a connection takes the format's extension.
              const format = event.currentTarget.value as Draft['format'];
              set({ format, pathTemplate: draft.pathTemplate.replace(/\.(csv|xlsx)$/, `.${format}`) });
            }}
          >
            <option value="csv">CSV</option>
            {entitled('feature:export_xlsx') ? <option value="xlsx">XLSX</option> : null}
          </select>
        )}
      </Field>
      <FieldGroup legend={t('ins.sched.destination')} name="destination" errors={errors}>
        {connections !== null ? (
          <div class="ins-row">
            {(['email', 'connection'] as const).map((kind) => (
              <label class="check" key={kind}>
                <input
                  type="radio"
                  name="destination"
                  value={kind}
                  checked={draft.destination === kind}
                  onChange={() => set({ destination: kind })}
                />
                <span>{t(`ins.sched.to.${kind}`)}</span>
              </label>
            ))}
          </div>
        ) : null}
        {draft.destination === 'connection' && connections === null ? <p class="hint">{t('ins.sched.connectionLocked')}</p> : null}
        {draft.destination === 'email' ? (
          <Field label={t('ins.sched.recipients')} name="destination.recipients" errors={errors} hint={t('ins.sched.recipientsHint')}>
            {(control) => (
              <input
                {...control}
                required
                dir="ltr"
                value={draft.recipients}
                onInput={(event) => set({ recipients: event.currentTarget.value })}
              />
            )}
          </Field>
        ) : null}
        {draft.destination === 'connection' && connections !== null ? (
          <>
            <Field label={t('ins.sched.connection')} name="destination.connectionId" errors={errors} hint={t('ins.sched.connectionHint')}>
              {(control) => (
                <select {...control} required value={connectionId} onChange={(event) => set({ connectionId: event.currentTarget.value })}>
                  {connections.length === 0 ? <option value="">{t('ins.sched.noConnections')}</option> : null}
                  {connections.map((connection) => (
                    <option value={connection.id} key={connection.id}>
                      {`${connection.name} · ${t(`hub.status.${connection.status}`)}`}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field
              label={t('ins.sched.pathTemplate')}
              name="destination.pathTemplate"
              errors={errors}
              hint={t('ins.sched.pathTemplateHint')}
            >
              {(control) => (
                <input
                  {...control}
                  required
                  maxLength={200}
                  dir="ltr"
                  value={draft.pathTemplate}
                  onInput={(event) => set({ pathTemplate: event.currentTarget.value })}
                />
              )}
            </Field>
          </>
        ) : null}
      </FieldGroup>
      <label class="check">
        <input
          type="checkbox"
          name="skipEmpty"
          checked={draft.skipEmpty}
          aria-describedby="sched-skip-hint"
          onChange={(event) => set({ skipEmpty: event.currentTarget.checked })}
        />
        <span>{t('ins.sched.skipEmpty')}</span>
      </label>
      <p class="hint" id="sched-skip-hint">
        {t('ins.sched.skipEmptyHint')}
      </p>
      <label class="check">
        <input type="checkbox" name="paused" checked={draft.paused} onChange={(event) => set({ paused: event.currentTarget.checked })} />
        <span>{t('ins.sched.paused')}</span>
      </label>
      {error ? <ProblemView error={error} lang={lang} /> : null}
      {errors.rest}
      <div class="ins-row">
        <button type="submit" disabled={busy} data-write>
          {t('ins.save')}
        </button>
        <button type="button" onClick={onDone}>
          {t('ins.cancel')}
        </button>
      </div>
    </form>
  );
}
