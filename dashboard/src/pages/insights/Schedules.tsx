import { useState } from 'preact/hooks';
import { ProblemView } from '../../components/Problem.js';
import type { MessageKey } from '../../i18n/messages.js';
import { api } from '../../lib/api.js';
import { pick, useApp } from '../../lib/app-context.js';
import type { Delivery, Page, SavedReport, Schedule } from '../../lib/types.js';
import { useFetch } from '../../lib/use-fetch.js';
import { FieldError, useLoad } from './shared.js';

const WEEKDAYS = ['saturday', 'sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday'];

interface Draft {
  savedReportId: string;
  name: string;
  frequency: 'daily' | 'weekly' | 'monthly';
  time: string;
  weekday: string;
  dayOfMonth: string;
  format: 'csv' | 'xlsx';
  recipients: string;
  paused: boolean;
}

function draftOf(schedule: Schedule | null, firstReport: string): Draft {
  return {
    savedReportId: schedule?.savedReportId ?? firstReport,
    name: schedule?.name ?? '',
    frequency: schedule?.cadence.frequency ?? 'weekly',
    time: schedule?.cadence.time ?? '08:00',
    weekday: schedule?.cadence.weekday ?? 'monday',
    dayOfMonth: String(schedule?.cadence.dayOfMonth ?? 1),
    format: schedule?.format ?? 'csv',
    recipients: schedule?.destination.kind === 'email' ? schedule.destination.recipients.join(', ') : '',
    paused: schedule?.paused ?? false,
  };
}

/** Delivery schedules: their cadence, next run and last delivery; create, edit, pause; each one's deliveries. */
export function Schedules() {
  const { t, lang, fmt, can, canWrite, entitled } = useApp();
  const [version, setVersion] = useState(0);
  const schedules = useLoad<Page<Schedule>>('/admin/insights/schedules?limit=100', version);
  const saved = useFetch<Page<SavedReport>>('/admin/insights/saved-reports?limit=100');
  const [editing, setEditing] = useState<Schedule | 'new' | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const manage = canWrite && can('insights.reports.manage') && entitled('feature:schedules');
  const reportName = (id: string) => saved.data?.items.find((item) => item.id === id)?.name ?? '—';
  const cadence = (schedule: Schedule) => {
    const { frequency, time, weekday, dayOfMonth } = schedule.cadence;
    if (frequency === 'weekly') return t('ins.sched.everyWeek', { day: t(`ins.day.${weekday}` as MessageKey), time });
    if (frequency === 'monthly') return t('ins.sched.everyMonth', { day: fmt.number(dayOfMonth ?? 1), time });
    return t('ins.sched.everyDay', { time });
  };
  return (
    <section aria-labelledby="page-title" data-page="schedules">
      <h1 id="page-title">{t('ins.nav.schedules')}</h1>
      {schedules.error ? <ProblemView error={schedules.error} lang={lang} /> : null}
      {manage && editing === null ? (
        <button type="button" data-write onClick={() => setEditing('new')} disabled={!saved.data?.items.length}>
          {t('ins.sched.new')}
        </button>
      ) : null}
      {manage && !saved.data?.items.length && saved.data ? <p>{t('ins.sched.needSaved')}</p> : null}
      {editing !== null && saved.data ? (
        <ScheduleForm
          schedule={editing === 'new' ? null : editing}
          reports={saved.data.items}
          onDone={() => {
            setEditing(null);
            setVersion(version + 1);
          }}
        />
      ) : null}
      {!schedules.data && !schedules.error ? <p role="status">{t('app.loading')}</p> : null}
      {schedules.data && schedules.data.items.length === 0 ? <p>{t('ins.sched.empty')}</p> : null}
      {schedules.data && schedules.data.items.length > 0 ? (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('ins.nav.schedules')}>
          <table>
            <caption class="visually-hidden">{t('ins.nav.schedules')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('ins.saved.name')}</th>
                <th scope="col">{t('ins.sched.report')}</th>
                <th scope="col">{t('ins.sched.cadence')}</th>
                <th scope="col">{t('ins.sched.nextRun')}</th>
                <th scope="col">{t('ins.sched.lastDelivery')}</th>
                <th scope="col">{t('ins.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {schedules.data.items.map((schedule) => (
                <tr key={schedule.id} data-schedule={schedule.name}>
                  <td>
                    {schedule.name}
                    {schedule.paused ? ` (${t('ins.sched.paused')})` : ''}
                  </td>
                  <td>{reportName(schedule.savedReportId)}</td>
                  <td>
                    {cadence(schedule)} · {schedule.format.toUpperCase()}
                  </td>
                  <td>{schedule.nextRunAt ? fmt.dateTime(schedule.nextRunAt) : '—'}</td>
                  <td>
                    {schedule.lastDelivery
                      ? `${t(`ins.delivery.${schedule.lastDelivery.status}` as MessageKey)} · ${fmt.dateTime(schedule.lastDelivery.dueAt)}`
                      : '—'}
                  </td>
                  <td class="ins-actions">
                    <button
                      type="button"
                      aria-expanded={open === schedule.id}
                      onClick={() => setOpen(open === schedule.id ? null : schedule.id)}
                    >
                      {t('ins.sched.deliveries', { name: schedule.name })}
                    </button>
                    {manage ? (
                      <>
                        <button type="button" data-write onClick={() => setEditing(schedule)}>
                          {t('ins.edit')}
                        </button>
                        <button
                          type="button"
                          data-write
                          onClick={() =>
                            api('PATCH', `/admin/insights/schedules/${schedule.id}`, { paused: !schedule.paused }).then(() =>
                              setVersion(version + 1),
                            )
                          }
                        >
                          {schedule.paused ? t('ins.sched.resume') : t('ins.sched.pause')}
                        </button>
                        <button
                          type="button"
                          data-write
                          onClick={() => {
                            if (window.confirm(t('ins.saved.confirmDelete', { name: schedule.name })))
                              void api('DELETE', `/admin/insights/schedules/${schedule.id}`).then(() => setVersion(version + 1));
                          }}
                        >
                          {t('ins.delete')}
                        </button>
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {open ? <Deliveries id={open} key={open} /> : null}
    </section>
  );
}

function Deliveries({ id }: { id: string }) {
  const { t, lang, fmt } = useApp();
  const { data, error } = useFetch<Page<Delivery>>(`/admin/insights/schedules/${id}/deliveries?limit=50`);
  return (
    <section class="panel" aria-labelledby="deliveries-title" data-deliveries>
      <h2 id="deliveries-title">{t('ins.sched.deliveriesTitle')}</h2>
      {error ? <ProblemView error={error} lang={lang} /> : null}
      {data && data.items.length === 0 ? <p>{t('ins.sched.noDeliveries')}</p> : null}
      {data && data.items.length > 0 ? (
        <table>
          <caption class="visually-hidden">{t('ins.sched.deliveriesTitle')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('ins.sched.due')}</th>
              <th scope="col">{t('ins.exports.status')}</th>
              <th scope="col" class="num">
                {t('ins.sched.rows')}
              </th>
              <th scope="col" class="num">
                {t('ins.sched.bytes')}
              </th>
              <th scope="col">{t('ins.sched.error')}</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((delivery) => (
              <tr key={delivery.id}>
                <td>{fmt.dateTime(delivery.dueAt)}</td>
                <td>{t(`ins.delivery.${delivery.status}` as MessageKey)}</td>
                <td class="num">{delivery.rows == null ? '—' : fmt.number(delivery.rows)}</td>
                <td class="num">{delivery.bytes == null ? '—' : fmt.number(delivery.bytes)}</td>
                <td>{delivery.error ? pick(lang, delivery.error, 'message') : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function ScheduleForm({ schedule, reports, onDone }: { schedule: Schedule | null; reports: SavedReport[]; onDone: () => void }) {
  const { t, lang, fmt, entitled } = useApp();
  const [draft, setDraft] = useState<Draft>(() => draftOf(schedule, reports[0]?.id ?? ''));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const body = {
      savedReportId: draft.savedReportId,
      name: draft.name,
      cadence: {
        frequency: draft.frequency,
        time: draft.time,
        ...(draft.frequency === 'weekly' ? { weekday: draft.weekday } : {}),
        ...(draft.frequency === 'monthly' ? { dayOfMonth: Number(draft.dayOfMonth) } : {}),
      },
      format: draft.format,
      destination: {
        kind: 'email',
        recipients: draft.recipients
          .split(/[,\s]+/)
          .map((value) => value.trim())
          .filter(Boolean),
      },
      paused: draft.paused,
    };
    try {
      if (schedule) await api('PATCH', `/admin/insights/schedules/${schedule.id}`, body);
      else await api('POST', '/admin/insights/schedules', body);
      onDone();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="ins-form panel" onSubmit={submit} aria-labelledby="schedule-form-title" data-schedule-form>
      <h2 id="schedule-form-title">{schedule ? t('ins.sched.edit', { name: schedule.name }) : t('ins.sched.new')}</h2>
      <label>
        <span>{t('ins.sched.report')}</span>
        <select name="savedReportId" value={draft.savedReportId} onChange={(event) => set({ savedReportId: event.currentTarget.value })}>
          {reports.map((report) => (
            <option value={report.id} key={report.id}>
              {report.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>{t('ins.saved.name')}</span>
        <input
          name="name"
          required
          value={draft.name}
          onInput={(event) => set({ name: event.currentTarget.value })}
          aria-describedby="sched-name-error"
        />
      </label>
      <FieldError error={error} field="name" id="sched-name-error" />
      <fieldset>
        <legend>{t('ins.sched.cadence')}</legend>
        <label>
          <span>{t('ins.sched.frequency')}</span>
          <select
            name="frequency"
            value={draft.frequency}
            onChange={(event) => set({ frequency: event.currentTarget.value as Draft['frequency'] })}
          >
            {(['daily', 'weekly', 'monthly'] as const).map((frequency) => (
              <option value={frequency} key={frequency}>
                {t(`ins.sched.${frequency}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>{t('ins.sched.time')}</span>
          <input name="time" type="time" required value={draft.time} onInput={(event) => set({ time: event.currentTarget.value })} />
        </label>
        {draft.frequency === 'weekly' ? (
          <label>
            <span>{t('ins.sched.weekday')}</span>
            <select name="weekday" value={draft.weekday} onChange={(event) => set({ weekday: event.currentTarget.value })}>
              {WEEKDAYS.map((day) => (
                <option value={day} key={day}>
                  {t(`ins.day.${day}` as MessageKey)}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {draft.frequency === 'monthly' ? (
          <label>
            <span>{t('ins.sched.dayOfMonth')}</span>
            <select name="dayOfMonth" value={draft.dayOfMonth} onChange={(event) => set({ dayOfMonth: event.currentTarget.value })}>
              {Array.from({ length: 31 }, (_, index) => String(index + 1)).map((day) => (
                <option value={day} key={day}>
                  {fmt.number(Number(day))}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <FieldError error={error} field="cadence" id="sched-cadence-error" />
      </fieldset>
      <label>
        <span>{t('ins.export.format')}</span>
        <select name="format" value={draft.format} onChange={(event) => set({ format: event.currentTarget.value as Draft['format'] })}>
          <option value="csv">CSV</option>
          {entitled('feature:export_xlsx') ? <option value="xlsx">XLSX</option> : null}
        </select>
      </label>
      <label>
        <span>{t('ins.sched.recipients')}</span>
        <input
          name="recipients"
          required
          dir="ltr"
          value={draft.recipients}
          onInput={(event) => set({ recipients: event.currentTarget.value })}
          aria-describedby="sched-recipients-hint"
        />
      </label>
      <p class="hint" id="sched-recipients-hint">
        {t('ins.sched.recipientsHint')}
      </p>
      <FieldError error={error} field="destination" id="sched-destination-error" />
      <label class="check">
        <input type="checkbox" name="paused" checked={draft.paused} onChange={(event) => set({ paused: event.currentTarget.checked })} />
        <span>{t('ins.sched.paused')}</span>
      </label>
      {error ? <ProblemView error={error} lang={lang} /> : null}
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
