import { useState } from 'preact/hooks';
import { DataTable } from '../../components/DataTable.js';
import { ProblemView } from '../../components/Problem.js';
import type { MessageKey } from '../../i18n/messages.js';
import { answer, client, get } from '../../lib/api.js';
import { pick, useApp } from '../../lib/app-context.js';
import { getAll, useLoad, usePaged, useReloadWhile } from '../../lib/load.js';
import type { Delivery, Schedule } from '../../lib/types.js';
import { ScheduleForm } from './ScheduleForm.js';

const isUnderWay = (delivery: Delivery) => delivery.status === 'queued' || delivery.status === 'running';

/**
 * Delivery schedules, page by page: their cadence, destination, next run and last delivery; create, edit,
 * pause, deliver now; each one's deliveries.
 */
export function Schedules() {
  const { t, lang, fmt, can, canWrite, entitled } = useApp();
  const list = usePaged((page) => get('/admin/insights/schedules', { query: page }));
  // A last delivery under way (Deliver now) is read again until it ends.
  useReloadWhile(list, Boolean(list.data?.items.some(({ lastDelivery }) => lastDelivery && isUnderWay(lastDelivery))));
  const reports = useLoad(() => getAll((page) => get('/admin/insights/saved-reports', { query: page })));
  // Writing a report into a data hub connection is the pro plan's, and the data hub's to grant.
  const toConnections = entitled('feature:schedule_to_connection') && can('data.flows.manage');
  const connections = useLoad(
    toConnections
      ? async () => {
          const [all, kinds] = await Promise.all([
            getAll((page) => get('/admin/data-hub/connections', { query: page })),
            get('/admin/data-hub/connectors'),
          ]);
          // A report is written to a connection as a file: not to a kind that is read by a query.
          const files = new Set(kinds.items.filter((kind) => kind.files).map((kind) => kind.kind));
          return all.filter((connection) => files.has(connection.kind));
        }
      : null,
  );
  const fileConnections = connections.data ?? [];
  const [editing, setEditing] = useState<Schedule | 'new' | null>(null);
  // The schedule whose deliveries are shown, and how many times Deliver now was pressed (to read them again).
  const [open, setOpen] = useState<{ id: string; delivered: number } | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const manage = canWrite && can('insights.reports.manage') && entitled('feature:schedules');
  // The form offers the saved reports and connections as they are when it opens.
  const edit = (schedule: Schedule | 'new') => {
    reports.reload();
    connections.reload();
    setEditing(schedule);
  };
  const act = (promise: Promise<unknown>) =>
    promise.then(() => {
      setActionError(null);
      list.reload();
    }, setActionError);
  const reportName = (id: string) => reports.data?.find((report) => report.id === id)?.name ?? '—';
  const cadence = ({ cadence: { frequency, time: hhmm, weekday, dayOfMonth } }: Schedule) => {
    const time = fmt.clock(hhmm);
    if (frequency === 'weekly') return t('ins.sched.everyWeek', { day: t(`ins.day.${weekday}` as MessageKey), time });
    if (frequency === 'monthly') return t('ins.sched.everyMonth', { day: fmt.number(dayOfMonth ?? 1), time });
    return t('ins.sched.everyDay', { time });
  };
  const destination = ({ destination }: Schedule) =>
    destination.kind === 'email'
      ? destination.recipients.join(', ')
      : `${connections.data?.find((connection) => connection.id === destination.connectionId)?.name ?? t('ins.sched.to.connection')}: ${destination.pathTemplate}`;
  return (
    <section aria-labelledby="page-title" data-page="schedules">
      <h1 id="page-title">{t('ins.nav.schedules')}</h1>
      {manage && editing === null ? (
        <button type="button" data-write onClick={() => edit('new')} disabled={!reports.data?.length}>
          {t('ins.sched.new')}
        </button>
      ) : null}
      {manage && reports.data?.length === 0 ? <p>{t('ins.sched.needSaved')}</p> : null}
      {reports.error ? <ProblemView error={reports.error} lang={lang} /> : null}
      {connections.error ? <ProblemView error={connections.error} lang={lang} /> : null}
      {editing !== null && reports.data ? (
        <ScheduleForm
          schedule={editing === 'new' ? null : editing}
          reports={reports.data}
          connections={toConnections ? fileConnections : null}
          onDone={() => {
            setEditing(null);
            list.reload();
          }}
        />
      ) : null}
      {actionError ? <ProblemView error={actionError} lang={lang} /> : null}
      <DataTable<Schedule>
        label={t('ins.nav.schedules')}
        empty={t('ins.sched.empty')}
        rows={list.data?.items}
        error={list.error}
        paging={list}
        rowKey={(schedule) => schedule.id}
        rowData={(schedule) => ({ 'data-schedule': schedule.name })}
        columns={[
          {
            header: t('ins.saved.name'),
            cell: (schedule) => `${schedule.name}${schedule.paused ? ` (${t('ins.sched.paused')})` : ''}`,
          },
          { header: t('ins.sched.report'), cell: (schedule) => reportName(schedule.savedReportId) },
          {
            header: t('ins.sched.cadence'),
            cell: (schedule) =>
              [cadence(schedule), schedule.format.toUpperCase(), schedule.skipEmpty ? t('ins.sched.skipsEmpty') : null]
                .filter(Boolean)
                .join(' · '),
          },
          { header: t('ins.sched.destination'), cell: destination },
          { header: t('ins.sched.nextRun'), cell: (schedule) => (schedule.nextRunAt ? fmt.dateTime(schedule.nextRunAt) : '—') },
          {
            header: t('ins.sched.lastDelivery'),
            cell: ({ lastDelivery }) =>
              lastDelivery ? `${t(`ins.delivery.${lastDelivery.status}` as MessageKey)} · ${fmt.dateTime(lastDelivery.dueAt)}` : '—',
          },
          {
            header: t('ins.actions'),
            cell: (schedule) => (
              <div class="ins-actions">
                <button
                  type="button"
                  aria-expanded={open?.id === schedule.id}
                  onClick={() => setOpen(open?.id === schedule.id ? null : { id: schedule.id, delivered: 0 })}
                >
                  {t('ins.sched.deliveries', { name: schedule.name })}
                </button>
                {manage ? (
                  <>
                    {schedule.destination.kind !== 'connection' || can('data.flows.manage') ? (
                      <button
                        type="button"
                        data-write
                        onClick={() =>
                          act(
                            answer(
                              client.POST('/admin/insights/schedules/{id}/deliveries', { params: { path: { id: schedule.id } } }),
                            ).then(() => setOpen({ id: schedule.id, delivered: (open?.id === schedule.id ? open.delivered : 0) + 1 })),
                          )
                        }
                      >
                        {t('ins.sched.deliverNow', { name: schedule.name })}
                      </button>
                    ) : null}
                    <button type="button" data-write onClick={() => edit(schedule)}>
                      {t('ins.edit')}
                    </button>
                    <button
                      type="button"
                      data-write
                      onClick={() =>
                        act(
                          answer(
                            client.PATCH('/admin/insights/schedules/{id}', {
                              params: { path: { id: schedule.id } },
                              body: { paused: !schedule.paused },
                            }),
                          ),
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
                          act(answer(client.DELETE('/admin/insights/schedules/{id}', { params: { path: { id: schedule.id } } })));
                      }}
                    >
                      {t('ins.delete')}
                    </button>
                  </>
                ) : null}
              </div>
            ),
          },
        ]}
      />
      {open ? <Deliveries id={open.id} key={`${open.id}:${open.delivered}`} /> : null}
    </section>
  );
}

/** A schedule's deliveries, newest first and page by page, read again while one is queued or running. */
function Deliveries({ id }: { id: string }) {
  const { t, lang, fmt } = useApp();
  const list = usePaged((page) => get('/admin/insights/schedules/{id}/deliveries', { path: { id }, query: page }), [id], 10);
  useReloadWhile(list, Boolean(list.data?.items.some(isUnderWay)));
  const figure = (value: number | null) => (value === null ? '—' : fmt.number(value));
  return (
    <section class="panel" aria-labelledby="deliveries-title" data-deliveries>
      <h2 id="deliveries-title">{t('ins.sched.deliveriesTitle')}</h2>
      <DataTable<Delivery>
        label={t('ins.sched.deliveriesTitle')}
        empty={t('ins.sched.noDeliveries')}
        rows={list.data?.items}
        error={list.error}
        paging={list}
        rowKey={(delivery) => delivery.id}
        rowData={(delivery) => ({ 'data-delivery': delivery.id, 'data-status': delivery.status, 'data-trigger': delivery.trigger })}
        columns={[
          { header: t('ins.sched.due'), cell: (delivery) => fmt.dateTime(delivery.dueAt) },
          { header: t('ins.sched.trigger'), cell: (delivery) => t(`ins.delivery.trigger.${delivery.trigger}` as MessageKey) },
          { header: t('ins.exports.status'), cell: (delivery) => t(`ins.delivery.${delivery.status}` as MessageKey) },
          { header: t('ins.sched.rows'), numeric: true, cell: (delivery) => figure(delivery.rows) },
          { header: t('ins.sched.bytes'), numeric: true, cell: (delivery) => figure(delivery.bytes) },
          { header: t('ins.sched.sentTo'), cell: (delivery) => <span dir="ltr">{delivery.sentTo.join(', ')}</span> },
          { header: t('ins.sched.error'), cell: (delivery) => (delivery.error ? pick(lang, delivery.error, 'message') : '') },
        ]}
      />
    </section>
  );
}
