import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../../common/pagination/list-query.dto.js';
import type { InsightsArea } from '../../common/permissions.js';
import { newestFirst, pageOf } from '../../infra/database/newest-first.js';
import { ConnectionsService } from '../../data-hub/connections/connections.service.js';
import { ConnectorRegistry } from '../../data-hub/connectors/connector-registry.js';
import { formatOfName } from '../../data-hub/connectors/file-template.js';
import type { CreateScheduleDto, DeliveryDoc, ScheduleDoc, UpdateScheduleDto } from '../dto/schedules.dto.js';
import type { ScheduleDestination } from '../entities/insights-schedule.entity.js';
import type { FileFormat } from '../entities/insights-export.entity.js';
import { requireViewPermissions, viewableAreas } from '../query/area-access.js';
import { requireEntitlement } from '../../auth/access/plan-refusal.js';
import { ReportDefinitions } from '../saved-reports/report-definitions.js';
import { SavedReportsService } from '../saved-reports/saved-reports.service.js';
import { nextDueTime, type Cadence } from './cadence.js';
import { CADENCE, DELIVERY_DOC, DeliveriesService } from './deliveries.service.js';

interface ScheduleRow {
  id: string;
  saved_report_id: string;
  name: string;
  cadence: Cadence;
  timezone: string;
  format: FileFormat;
  destination: ScheduleDestination;
  skip_empty: boolean;
  paused: boolean;
  next_run_at: string | null;
  last_delivery: DeliveryDoc | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  areas: InsightsArea[];
}

const COLUMNS = sql`s.id, s.saved_report_id, s.name, st.timezone, s.format, s.destination, s.skip_empty, s.paused,
  iso_utc(s.next_run_at) as next_run_at, s.created_by, iso_utc(s.created_at) as created_at, iso_utc(s.updated_at) as updated_at,
  r.areas, last.doc as last_delivery, ${CADENCE} as cadence`;
const FROM = sql`insights_schedules s
  join stores st on st.id = s.store_id
  join insights_saved_reports r on r.id = s.saved_report_id
  left join lateral (
    select ${DELIVERY_DOC} as doc from insights_deliveries d where d.schedule_id = s.id order by d.created_at desc, d.id desc limit 1
  ) last on true`;

/**
 * Delivery schedules (contract section 8): a saved report delivered daily, weekly or monthly at a
 * local time in the store's time zone, by email with the file attached or, on the pro plan, as a file
 * written to one of the store's data hub file connections. A schedule is written with
 * `insights.reports.manage` on a plan with schedules, and read by whoever may view its report's areas.
 * Its `next_run_at` is the next due time of its cadence; the deliveries service delivers each once.
 */
@Injectable()
export class SchedulesService {
  constructor(
    private readonly em: EntityManager,
    private readonly delivering: DeliveriesService,
    private readonly definitions: ReportDefinitions,
    private readonly savedReports: SavedReportsService,
    private readonly connections: ConnectionsService,
    private readonly connectors: ConnectorRegistry,
  ) {}

  async list(admin: AdminPrincipal, query: ListQueryDto): Promise<{ items: ScheduleDoc[]; nextCursor: string | null }> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const order = newestFirst('s', query.cursor);
    const { rows } = await sql<ScheduleRow & { sort_at: string }>`
      select ${COLUMNS}, ${order.sortAt} as sort_at from ${FROM}
      where s.store_id = ${admin.storeId} and r.areas <@ ${viewableAreas(admin)}::text[] and ${order.where}
      ${order.order} limit ${limit + 1}`.execute(this.db());
    const page = pageOf(rows, limit);
    return { items: page.rows.map(documentOf), nextCursor: page.nextCursor };
  }

  async get(admin: AdminPrincipal, id: string): Promise<ScheduleDoc> {
    return documentOf(await this.visible(admin, id));
  }

  async create(admin: AdminPrincipal, body: CreateScheduleDto): Promise<ScheduleDoc> {
    await this.checkWrite(admin, body.savedReportId, body.format, body.destination);
    await this.checkDestination(admin, body.destination, body.format);
    const paused = body.paused ?? false;
    const nextRunAt = paused ? null : await this.nextRunAt(admin.storeId, body.cadence);
    const { rows } = await sql<{ id: string }>`
      insert into insights_schedules (store_id, saved_report_id, name, frequency, time_of_day, weekday, day_of_month, format,
                                      destination, connection_id, skip_empty, paused, next_run_at, created_by)
      values (${admin.storeId}, ${body.savedReportId}, ${body.name}, ${body.cadence.frequency}, ${body.cadence.time},
              ${body.cadence.weekday ?? null}, ${body.cadence.dayOfMonth ?? null}, ${body.format}, ${JSON.stringify(body.destination)}::jsonb,
              ${connectionOf(body.destination)}, ${body.skipEmpty ?? false}, ${paused}, ${nextRunAt}, ${admin.staff!.id})
      returning id`.execute(this.db());
    return this.get(admin, rows[0].id);
  }

  async update(admin: AdminPrincipal, id: string, body: UpdateScheduleDto): Promise<ScheduleDoc> {
    const current = await this.visible(admin, id);
    const savedReportId = body.savedReportId ?? current.saved_report_id;
    const cadence = body.cadence ?? current.cadence;
    const paused = body.paused ?? current.paused;
    const format = body.format ?? current.format;
    const destination = body.destination ?? current.destination;
    // Whatever has become of its report or the plan, a schedule can always be paused (or renamed while paused).
    if (!paused || body.savedReportId !== undefined || body.format !== undefined || body.destination !== undefined) {
      await this.checkWrite(admin, savedReportId, format, destination);
    }
    if (body.destination !== undefined || body.format !== undefined) await this.checkDestination(admin, destination, format);
    // Due times follow a new cadence or a resumption from now on; otherwise the one due stays due.
    const rescheduled = body.cadence !== undefined || (current.paused && !paused);
    const nextRunAt = paused ? null : rescheduled ? await this.nextRunAt(admin.storeId, cadence) : current.next_run_at;
    await sql`
      update insights_schedules set
        saved_report_id = ${savedReportId}, name = ${body.name ?? current.name}, frequency = ${cadence.frequency},
        time_of_day = ${cadence.time}, weekday = ${cadence.weekday ?? null}, day_of_month = ${cadence.dayOfMonth ?? null},
        format = ${format}, destination = ${JSON.stringify(destination)}::jsonb, connection_id = ${connectionOf(destination)},
        skip_empty = ${body.skipEmpty ?? current.skip_empty}, paused = ${paused}, next_run_at = ${nextRunAt}::timestamptz,
        updated_at = now()
      where id = ${id} and store_id = ${admin.storeId}`.execute(this.db());
    return this.get(admin, id);
  }

  async remove(admin: AdminPrincipal, id: string): Promise<void> {
    await this.visible(admin, id);
    await sql`delete from insights_schedules where id = ${id} and store_id = ${admin.storeId}`.execute(this.db());
  }

  /** Delivers the schedule now, as a due time of its own, whatever its cadence (a paused one too). */
  async deliverNow(admin: AdminPrincipal, id: string): Promise<DeliveryDoc> {
    const schedule = await this.visible(admin, id);
    await this.checkWrite(admin, schedule.saved_report_id, schedule.format, schedule.destination);
    requireConnectionWriter(admin, schedule.destination);
    const deliveryId = await this.em.fork().transactional((em) => this.delivering.fileNow(em, admin.storeId, id));
    const { rows } = await sql<{
      doc: DeliveryDoc;
    }>`select ${DELIVERY_DOC} as doc from insights_deliveries d where d.id = ${deliveryId}`.execute(this.db());
    return rows[0].doc;
  }

  /** What the schedule delivered, newest first. */
  async deliveries(admin: AdminPrincipal, id: string, query: ListQueryDto): Promise<{ items: DeliveryDoc[]; nextCursor: string | null }> {
    await this.visible(admin, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const order = newestFirst('d', query.cursor);
    const { rows } = await sql<{ doc: DeliveryDoc; id: string; sort_at: string }>`
      select ${DELIVERY_DOC} as doc, d.id, ${order.sortAt} as sort_at from insights_deliveries d
      where d.schedule_id = ${id} and d.store_id = ${admin.storeId} and ${order.where}
      ${order.order} limit ${limit + 1}`.execute(this.db());
    const page = pageOf(rows, limit);
    return { items: page.rows.map((row) => row.doc), nextCursor: page.nextCursor };
  }

  /**
   * After the store's time zone changed: every running schedule's next due time, read anew in the
   * new zone (in the transaction that changes it, when given one).
   */
  async reschedule(storeId: string, em: EntityManager = this.em): Promise<void> {
    const { rows } = await sql<{ id: string; cadence: Cadence; timezone: string }>`
      select s.id, st.timezone, ${CADENCE} as cadence
      from insights_schedules s join stores st on st.id = s.store_id
      where s.store_id = ${storeId} and not s.paused`.execute(this.db(em));
    const now = new Date();
    for (const row of rows) {
      await sql`update insights_schedules set next_run_at = ${nextDueTime(row.cadence, row.timezone, now)} where id = ${row.id}`.execute(
        this.db(em),
      );
    }
  }

  /**
   * Schedules are a plan's feature, delivering to a connection the pro plan's (asked first: it is the
   * plan that has both); the report must be one the caller may read and run as it stands.
   */
  private async checkWrite(
    admin: AdminPrincipal,
    savedReportId: string,
    format: FileFormat,
    destination: ScheduleDestination,
  ): Promise<void> {
    if (destination.kind === 'connection') requireEntitlement(admin, 'feature:schedule_to_connection');
    requireEntitlement(admin, 'feature:schedules');
    if (format === 'xlsx') requireEntitlement(admin, 'feature:export_xlsx');
    await this.definitions.check(await this.savedReports.definition(admin, savedReportId), admin, false);
  }

  /**
   * A connection destination names a file connection of the caller's store (another store's is as
   * unknown) and a file of the schedule's format. It need not be active yet: each delivery checks that.
   */
  private async checkDestination(admin: AdminPrincipal, destination: ScheduleDestination, format: FileFormat): Promise<void> {
    if (destination.kind !== 'connection') return;
    requireConnectionWriter(admin, destination);
    const connection = await this.connections.stored(admin, destination.connectionId).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'NOT_FOUND') {
        throw invalidField('destination.connectionId', 'connection', {
          en: 'No connection of this store has this id.',
          ar: 'لا يوجد في هذا المتجر اتصال بهذا المعرّف.',
        });
      }
      throw error;
    });
    if (!this.connectors.of(connection.kind).location) {
      throw invalidField('destination.connectionId', 'fileConnection', {
        en: `A report is delivered as a file: choose an sftp, object_storage or platform_drop connection, not ${connection.kind}.`,
        ar: `يُسلَّم التقرير ملفًا: اختر اتصال sftp أو object_storage أو platform_drop، لا ${connection.kind}.`,
      });
    }
    if (formatOfName(destination.pathTemplate) !== format) {
      throw invalidField('destination.pathTemplate', 'extension', {
        en: `Must end in .${format}, the schedule’s format.`,
        ar: `يجب أن ينتهي بالامتداد .${format}، صيغة الجدول.`,
      });
    }
  }

  private async nextRunAt(storeId: string, cadence: Cadence): Promise<Date> {
    const { rows } = await sql<{ timezone: string }>`select timezone from stores where id = ${storeId}`.execute(this.db());
    return nextDueTime(cadence, rows[0].timezone, new Date());
  }

  /** A schedule of the caller's store whose report's areas the caller may view; 404 for any other id. */
  private async visible(admin: AdminPrincipal, id: string): Promise<ScheduleRow> {
    if (!UUID_PATTERN.test(id)) throw new ApiError('NOT_FOUND');
    const { rows } = await sql<ScheduleRow>`select ${COLUMNS} from ${FROM} where s.id = ${id} and s.store_id = ${admin.storeId}`.execute(
      this.db(),
    );
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    requireViewPermissions(admin, rows[0].areas);
    return rows[0];
  }

  private db(em: EntityManager = this.em): Kysely<unknown> {
    return em.getKysely() as Kysely<unknown>;
  }
}

/** The connection a destination writes to, kept beside it as a foreign key. */
function connectionOf(destination: ScheduleDestination): string | null {
  return destination.kind === 'connection' ? destination.connectionId : null;
}

function documentOf(row: ScheduleRow): ScheduleDoc {
  return {
    id: row.id,
    savedReportId: row.saved_report_id,
    name: row.name,
    cadence: row.cadence,
    timezone: row.timezone,
    format: row.format,
    destination: row.destination,
    skipEmpty: row.skip_empty,
    paused: row.paused,
    nextRunAt: row.next_run_at,
    lastDelivery: row.last_delivery,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Writing files into a connection is the data hub's to grant: a connection destination needs `data.flows.manage` too. */
function requireConnectionWriter(admin: AdminPrincipal, destination: ScheduleDestination): void {
  if (destination.kind === 'connection' && !admin.permissions.includes('data.flows.manage')) {
    throw new ApiError('missing_permission', { details: { requiredPermission: 'data.flows.manage' } });
  }
}
