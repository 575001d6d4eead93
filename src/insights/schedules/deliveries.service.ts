import { EntityManager } from '@mikro-orm/postgresql';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { buffer } from 'node:stream/consumers';
import type { AdminPrincipal } from '../../auth/principal.js';
import { DashboardPrincipals } from '../../auth/dashboard/dashboard-principals.js';
import { ApiError } from '../../common/errors/api-error.js';
import type { Locale } from '../../common/locale.js';
import { JobQueue } from '../../infra/jobs/job-queue.js';
import { Recurring } from '../../infra/jobs/recurring.decorator.js';
import { PermanentFailure, type AttemptFailure, type JobAttempt, type JobFailure, type TrackedJob } from '../../infra/jobs/tracked-job.js';
import { FILE_STORAGE, type FileStorage } from '../../infra/storage/file-storage.js';
import { NotificationsService } from '../../notifications/notifications.service.js';
import { ConnectionsService } from '../../data-hub/connections/connections.service.js';
import { ConnectionFailure } from '../../data-hub/connectors/connection-failure.js';
import { usingLocation } from '../../data-hub/connectors/connector.js';
import { ConnectorRegistry } from '../../data-hub/connectors/connector-registry.js';
import { renderTemplate } from '../../data-hub/connectors/file-template.js';
import type { ConnectionDestination, EmailDestination, ScheduleDestination } from '../entities/insights-schedule.entity.js';
import { CONTENT_TYPES } from '../exports/report-file.js';
import { type FileFormat } from '../entities/insights-export.entity.js';
import { attemptFailureOf, fileNameOf, writeReportFile } from '../exports/report-writer.js';
import type { ReportRows } from '../query/report-rows.js';
import { requireEntitlement } from '../../auth/access/plan-refusal.js';
import { ReportDefinitions } from '../saved-reports/report-definitions.js';
import { nextDueTime, type Cadence } from './cadence.js';
import { DeliveryRecords } from './delivery-records.js';

export const DELIVERY_JOB = 'insights.delivery';
/** Attempts of a delivery before it is failed and its schedule's owner told. */
const MAX_ATTEMPTS = 3;
/** The largest file mailed: most mail servers refuse messages over 10 to 25 MB. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** Due schedules taken per pass of the dispatcher (it runs every minute, and again at once if it took this many). */
const DISPATCH_BATCH = 200;

/** A delivery as the API shows it, built in SQL over `insights_deliveries d`. */
export const DELIVERY_DOC = sql`(jsonb_build_object(
    'id', d.id, 'scheduleId', d.schedule_id, 'dueAt', iso_utc(d.due_at), 'trigger', d.trigger, 'status', d.status,
    'attempts', d.attempts, 'rows', d.rows, 'bytes', d.bytes, 'sentTo', to_jsonb(d.sent_to),
    'startedAt', iso_utc(d.started_at), 'finishedAt', iso_utc(d.finished_at))
  || case when d.error is null then '{}'::jsonb else jsonb_build_object('error', d.error) end)`;

/** The schedule's cadence as `Cadence`, over `insights_schedules s`. */
export const CADENCE = sql`jsonb_strip_nulls(jsonb_build_object('frequency', s.frequency, 'time', s.time_of_day,
  'weekday', s.weekday, 'dayOfMonth', s.day_of_month))`;

interface DeliveryWork {
  id: string;
  store_id: string;
  attempts: number;
  sent_to: string[];
  due_at: string;
  error: JobFailure | null;
  schedule_name: string;
  format: FileFormat;
  destination: ScheduleDestination;
  skip_empty: boolean;
  timezone: string;
  created_by: string;
  report_name: string;
  definition: unknown;
  language: Locale;
  owner_email: string;
  owner_removed: boolean;
}

/** A report file written for a delivery, waiting in the file storage under `key`. */
interface WrittenFile {
  key: string;
  rows: number;
  bytes: number;
}

/**
 * A delivery's destination that could not take the file now for a reason the merchant can mend before
 * the next attempt (a connection that is not active): recorded, and tried again like any other failure.
 */
class DestinationUnavailable extends Error {
  constructor(readonly failure: JobFailure) {
    super(failure.message_en);
  }
}

/**
 * Delivers schedules (contract sections 8 and 10). Every minute one instance's dispatcher turns each
 * due schedule into a delivery (unique per schedule and due time) and a durable job, in one
 * transaction, and moves the schedule to its next due time; any instance then delivers it: the saved
 * report as its owner may run it today, written as a file and mailed to each recipient once, or written
 * to the schedule's data hub connection (streamed, so without the size limit of an email). A failure
 * is tried again with a growing wait, three attempts in all; then the delivery is recorded as failed
 * (never as delivered) and the schedule's owner is told by email.
 */
@Injectable()
export class DeliveriesService {
  private readonly logger = new Logger(DeliveriesService.name);
  private readonly job: TrackedJob;

  constructor(
    private readonly em: EntityManager,
    jobs: JobQueue,
    private readonly definitions: ReportDefinitions,
    private readonly principals: DashboardPrincipals,
    private readonly notifications: NotificationsService,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    private readonly connections: ConnectionsService,
    private readonly connectors: ConnectorRegistry,
  ) {
    this.job = jobs.track({
      name: DELIVERY_JOB,
      maxAttempts: MAX_ATTEMPTS,
      expireInSeconds: 3600,
      concurrency: 2,
      record: {
        claim: (id) => DeliveryRecords.claim(this.db(), id),
        fail: (attempt, failure) => this.fail(attempt, failure),
        retryLater: (attempt, failure) => DeliveryRecords.retryLater(this.db(), attempt, failure),
      },
      perform: (attempt) => this.deliver(attempt),
      failureOf: deliveryFailureOf,
    });
  }

  /** Files a delivery of the schedule now, as a due time of its own, queued within the transaction of `em`. */
  async fileNow(em: EntityManager, storeId: string, scheduleId: string): Promise<string> {
    const id = (await DeliveryRecords.file(this.db(em), { storeId, scheduleId, dueAt: 'now', trigger: 'manual' }))!;
    await this.job.send(id, { within: em });
    return id;
  }

  /**
   * Files a delivery for every schedule whose due time has come and moves it to its next one. Due
   * schedules are locked (others skipped) and each due time is unique, so however many instances
   * dispatch at once, each due time is delivered once. A schedule that missed several due times (the
   * service was down) is delivered once, late, and then keeps its cadence from now.
   */
  @Recurring('insights.schedules-dispatch', '* * * * *')
  async dispatchDue(): Promise<number> {
    let dispatched = 0;
    for (;;) {
      const taken = await this.em.fork().transactional(async (em) => {
        const { rows } = await sql<{ id: string; store_id: string; next_run_at: Date; timezone: string; cadence: Cadence }>`
          select s.id, s.store_id, s.next_run_at, st.timezone, ${CADENCE} as cadence
          from insights_schedules s join stores st on st.id = s.store_id
          where not s.paused and s.next_run_at <= now()
          order by s.next_run_at limit ${DISPATCH_BATCH}
          for update of s skip locked`.execute(this.db(em));
        for (const row of rows) {
          const filed = await DeliveryRecords.file(this.db(em), {
            storeId: row.store_id,
            scheduleId: row.id,
            dueAt: row.next_run_at,
            trigger: 'schedule',
          });
          const after = new Date(Math.max(Date.now(), new Date(row.next_run_at).getTime()));
          await sql`update insights_schedules set next_run_at = ${nextDueTime(row.cadence, row.timezone, after)} where id = ${row.id}`.execute(
            this.db(em),
          );
          if (filed) await this.job.send(filed, { within: em });
        }
        return rows.length;
      });
      dispatched += taken;
      if (taken < DISPATCH_BATCH) return dispatched;
    }
  }

  /** One attempt at a delivery: the saved report as its owner may run it now, written as a file and sent. */
  private async deliver(attempt: JobAttempt): Promise<void> {
    const work = await this.work(attempt.jobId);
    const admin = await this.owner(work);
    const definition = await this.definitions.parse(work.definition);
    await this.definitions.check(definition, admin, false);
    const table = await this.definitions.rows(definition, admin);
    if (table.totalRows === 0 && work.skip_empty) return DeliveryRecords.finished(this.db(), attempt, 'skipped');
    const key = `deliveries/${work.store_id}/${work.id}.${work.format}`;
    try {
      const file = { key, ...(await writeReportFile(this.storage, key, table, work.format, work.language, async () => undefined)) };
      if (work.destination.kind === 'email') await this.mail(work, work.destination, file, table, attempt);
      else await this.upload(work, work.destination, file, attempt);
      await DeliveryRecords.finished(this.db(), attempt, { rows: file.rows, bytes: file.bytes });
    } finally {
      await this.storage.delete(key);
    }
  }

  /** Mails the file to each recipient not mailed yet by an earlier attempt. */
  private async mail(
    work: DeliveryWork,
    destination: EmailDestination,
    file: WrittenFile,
    table: ReportRows,
    attempt: JobAttempt,
  ): Promise<void> {
    if (file.bytes > MAX_ATTACHMENT_BYTES) throw new PermanentFailure(tooLarge(file.bytes));
    const stored = await this.storage.open(file.key);
    const content = await buffer(stored!.content);
    const fileName = fileNameOf(work.report_name, table.range, work.format);
    for (const recipient of destination.recipients.filter((to) => !work.sent_to.includes(to))) {
      await this.notifications.send({
        storeId: work.store_id,
        to: recipient,
        locale: work.language,
        template: 'report_delivery',
        vars: { scheduleName: work.schedule_name, reportName: work.report_name, ...table.range, rows: file.rows, fileName },
        attachments: [{ filename: fileName, contentType: CONTENT_TYPES[work.format], content }],
      });
      await DeliveryRecords.sentTo(this.db(), attempt, { mailed: recipient });
    }
  }

  /**
   * Writes the file to the connection, streamed from the file storage, named by the template filled in
   * with the due time in the store's time zone: a delivery tried again replaces what an earlier attempt wrote.
   */
  private async upload(work: DeliveryWork, destination: ConnectionDestination, file: WrittenFile, attempt: JobAttempt): Promise<void> {
    const connection = await this.connections.storedIn(work.store_id, destination.connectionId);
    if (connection.status !== 'active') throw new DestinationUnavailable(notActive(connection.name, connection.status));
    const fileName = renderTemplate(destination.pathTemplate, new Date(work.due_at), work.timezone);
    const controller = new AbortController();
    try {
      const location = await this.connectors.of(connection.kind).location!(this.connections.target(connection), controller.signal);
      await usingLocation(location, async (opened) => opened.write(fileName, (await this.storage.open(file.key))!.content));
    } finally {
      controller.abort();
    }
    await DeliveryRecords.sentTo(this.db(), attempt, { written: `${connection.name}/${fileName}` });
  }

  /** The schedule's owner as they stand today, on a plan with schedules: a delivery runs as its owner. */
  private async owner(work: DeliveryWork): Promise<AdminPrincipal> {
    const identity = await this.principals.ofStaffMember(work.created_by);
    if (!identity) {
      throw new ApiError('missing_permission', {
        message: {
          en: 'The staff member who made this schedule was removed from the store, and a schedule delivers as its owner. Make it anew.',
          ar: 'أُزيل من المتجر عضو الفريق الذي أنشأ هذا الجدول، والجدول يُرسل بصلاحيات منشئه. أنشئه من جديد.',
        },
      });
    }
    requireEntitlement(identity, 'feature:schedules');
    if (work.destination.kind === 'connection') requireEntitlement(identity, 'feature:schedule_to_connection');
    return { ...identity, locale: work.language };
  }

  /** Records the delivery as failed, for good, and tells the schedule's owner (unless removed) in the store's language. */
  private async fail(attempt: JobAttempt, failure: JobFailure): Promise<void> {
    await DeliveryRecords.fail(this.db(), attempt, failure);
    const work = await this.work(attempt.jobId);
    if (work.owner_removed) return;
    try {
      await this.notifications.send({
        storeId: work.store_id,
        to: work.owner_email,
        locale: work.language,
        template: 'report_delivery_failed',
        vars: {
          scheduleName: work.schedule_name,
          reportName: work.report_name,
          dueAt: work.due_at,
          reason: work.language === 'ar' ? failure.message_ar : failure.message_en,
          attempts: Math.min(attempt.number, MAX_ATTEMPTS),
        },
      });
    } catch (error) {
      // The failure is recorded and shown with the schedule's deliveries whether or not this email goes out.
      this.logger.warn(`delivery ${work.id}: its owner could not be told of its failure: ${(error as Error).message}`);
    }
  }

  private async work(deliveryId: string): Promise<DeliveryWork> {
    const { rows } = await sql<DeliveryWork>`
      select d.id, d.store_id, d.attempts, d.sent_to, iso_utc(d.due_at) as due_at, d.error,
             s.name as schedule_name, s.format, s.destination, s.skip_empty, s.created_by, st.timezone,
             r.name as report_name, r.definition, coalesce(i.language, 'en') as language,
             m.email as owner_email, m.removed_at is not null as owner_removed
      from insights_deliveries d
      join insights_schedules s on s.id = d.schedule_id
      join stores st on st.id = d.store_id
      join insights_saved_reports r on r.id = s.saved_report_id
      join staff_members m on m.id = s.created_by
      left join insights_settings i on i.store_id = d.store_id
      where d.id = ${deliveryId}`.execute(this.db());
    return rows[0];
  }

  private db(em: EntityManager = this.em): Kysely<unknown> {
    return em.getKysely() as Kysely<unknown>;
  }
}

/**
 * Why an attempt failed: `attemptFailureOf`'s reasons, and a connection that failed or is not active, tried
 * again (the merchant may mend it meanwhile), with the reason the merchant can act on.
 */
function deliveryFailureOf(error: unknown): AttemptFailure {
  if (error instanceof ConnectionFailure) return { permanent: false, error: error.describe() };
  if (error instanceof DestinationUnavailable) return { permanent: false, error: error.failure };
  return attemptFailureOf(error);
}

function notActive(connectionName: string, status: string): JobFailure {
  return {
    code: 'connection_not_active',
    message_en: `The connection “${connectionName}” is not active (it is ${status}), so the file could not be written to it. Test and activate it in the data hub.`,
    message_ar: `الاتصال «${connectionName}» غير مفعّل (حالته ${status})، فتعذّرت كتابة الملف فيه. اختبره وفعّله في مركز البيانات.`,
  };
}

function tooLarge(bytes: number): JobFailure {
  const megabytes = (bytes / 1024 / 1024).toFixed(1);
  return {
    code: 'attachment_too_large',
    message_en: `The file is ${megabytes} MB, more than the 10 MB an email can carry. Narrow the saved report, or export it instead.`,
    message_ar: `حجم الملف ${megabytes} ميغابايت، أكبر من 10 ميغابايت التي يحملها البريد. ضيّق التقرير المحفوظ، أو صدّره بدلًا من ذلك.`,
  };
}
