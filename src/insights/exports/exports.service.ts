import { EntityManager } from '@mikro-orm/postgresql';
import { Inject, Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { Readable } from 'node:stream';
import type { AdminPrincipal } from '../../auth/principal.js';
import { DashboardPrincipals } from '../../auth/dashboard/dashboard-principals.js';
import type { Locale } from '../../common/locale.js';
import { ApiError } from '../../common/errors/api-error.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../../common/pagination/list-query.dto.js';
import type { InsightsArea } from '../../common/permissions.js';
import { newestFirst, pageOf } from '../../infra/database/newest-first.js';
import { JobQueue } from '../../infra/jobs/job-queue.js';
import { Recurring } from '../../infra/jobs/recurring.decorator.js';
import type { JobAttempt, JobFailure, TrackedJob } from '../../infra/jobs/tracked-job.js';
import { FILE_STORAGE, type FileStorage } from '../../infra/storage/file-storage.js';
import { countInsightsExportRows } from '../../infra/telemetry/metrics.js';
import { reportDefinition, type ReportDefinition } from '../dto/report-source.dto.js';
import type { CreateExportDto, ExportDoc } from '../dto/exports.dto.js';
import type { ExportStatus } from '../entities/insights-export.entity.js';
import { requireViewPermissions, viewableAreas } from '../query/area-access.js';
import { notEntitled } from '../../auth/access/plan-refusal.js';
import { ReportDefinitions } from '../saved-reports/report-definitions.js';
import { SavedReportsService } from '../saved-reports/saved-reports.service.js';
import { CONTENT_TYPES } from './report-file.js';
import { type FileFormat } from '../entities/insights-export.entity.js';
import { ExportRecords } from './export-records.js';
import { attemptFailureOf, fileNameOf, writeReportFile } from './report-writer.js';

export const EXPORT_JOB = 'insights.export';
/** Runs of an export before it is failed: a crash or a database hiccup is tried again, twice. */
const MAX_ATTEMPTS = 3;

interface ExportRow {
  id: string;
  store_id: string;
  requested_by: string;
  definition: unknown;
  saved_report_id: string | null;
  areas: InsightsArea[];
  format: FileFormat;
  language: Locale;
  status: ExportStatus;
  attempts: number;
  rows: string;
  total_rows: string | null;
  file_name: string | null;
  file_key: string | null;
  bytes: string | null;
  error: JobFailure | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string | null;
  expired: boolean;
}

const COLUMNS = sql`e.id, e.store_id, e.requested_by, e.definition, e.saved_report_id, e.areas, e.format, e.language, e.status,
  e.attempts, e.rows, e.total_rows, e.file_name, e.file_key, e.bytes, e.error, iso_utc(e.created_at) as created_at,
  iso_utc(e.started_at) as started_at, iso_utc(e.finished_at) as finished_at, iso_utc(e.expires_at) as expires_at,
  (e.file_deleted_at is not null or e.expires_at <= now()) as expired`;

/**
 * Exports (contract section 8): a report's, builder query's or saved report's whole table as a CSV or
 * XLSX file, written in the background by a durable job, streamed from PostgreSQL to the file storage
 * a batch at a time, with its progress recorded as it goes. A run interrupted by a stopped or killed
 * instance is taken up again elsewhere and writes the file anew; only the latest run records the
 * outcome. Files are deleted 7 days after they were made.
 */
@Injectable()
export class ExportsService {
  private readonly job: TrackedJob;

  constructor(
    private readonly em: EntityManager,
    jobs: JobQueue,
    private readonly definitions: ReportDefinitions,
    private readonly savedReports: SavedReportsService,
    private readonly principals: DashboardPrincipals,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
  ) {
    this.job = jobs.track({
      name: EXPORT_JOB,
      maxAttempts: MAX_ATTEMPTS,
      expireInSeconds: 3 * 3600,
      record: {
        claim: (id) => ExportRecords.claim(this.db(), id),
        fail: (attempt, failure) => ExportRecords.fail(this.db(), attempt, failure),
        retryLater: (attempt, failure) => ExportRecords.retryLater(this.db(), attempt, failure),
      },
      perform: (attempt) => this.write(attempt),
      failureOf: attemptFailureOf,
    });
  }

  async create(admin: AdminPrincipal, body: CreateExportDto): Promise<ExportDoc> {
    const entitlement = body.format === 'xlsx' ? 'feature:export_xlsx' : 'feature:export_csv';
    if (!admin.entitlements.includes(entitlement)) throw notEntitled(entitlement);
    const savedReportId = body.source.savedReportId ?? null;
    const definition: ReportDefinition = savedReportId
      ? await this.savedReports.definition(admin, savedReportId)
      : reportDefinition(body.source);
    // A query the caller writes needs the builder's permission; a saved one runs as its report would.
    const areas = await this.definitions.check(definition, admin, savedReportId === null);
    const id = await this.em.fork().transactional(async (em) => {
      const exportId = await ExportRecords.create(this.db(em), {
        storeId: admin.storeId,
        requestedBy: admin.staff!.id,
        definition,
        savedReportId,
        areas,
        format: body.format,
        language: admin.locale,
      });
      await this.job.send(exportId, { within: em });
      return exportId;
    });
    return this.get(admin, id);
  }

  async get(admin: AdminPrincipal, id: string): Promise<ExportDoc> {
    return documentOf(await this.visible(admin, id));
  }

  /** The store's exports whose areas the caller may view, newest first. */
  async list(admin: AdminPrincipal, query: ListQueryDto): Promise<{ items: ExportDoc[]; nextCursor: string | null }> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const order = newestFirst('e', query.cursor);
    const { rows } = await sql<ExportRow & { sort_at: string }>`
      select ${COLUMNS}, ${order.sortAt} as sort_at from insights_exports e
      where e.store_id = ${admin.storeId} and e.areas <@ ${viewableAreas(admin)}::text[] and ${order.where}
      ${order.order} limit ${limit + 1}`.execute(this.db());
    const page = pageOf(rows, limit);
    return { items: page.rows.map(documentOf), nextCursor: page.nextCursor };
  }

  /** The finished file: 409 before it is written (or when the export failed), 410 once it has expired. */
  async file(admin: AdminPrincipal, id: string): Promise<{ name: string; contentType: string; bytes: number; content: Readable }> {
    const row = await this.visible(admin, id);
    if (row.status === 'failed') throw new ApiError('export_failed', { details: { error: row.error } });
    if (row.status !== 'succeeded') throw new ApiError('export_not_ready', { details: { exportStatus: row.status } });
    if (row.expired) throw new ApiError('export_expired', { details: { expiresAt: row.expires_at } });
    const stored = await this.storage.open(row.file_key!);
    if (!stored) throw new Error(`export ${row.id}: its file ${row.file_key} is missing from the file storage`);
    return { name: row.file_name!, contentType: CONTENT_TYPES[row.format], bytes: stored.bytes, content: stored.content };
  }

  /** Deletes the files of exports 7 days old; their records stay, saying the file has expired. */
  @Recurring('insights.exports-expiry', '*/15 * * * *')
  async deleteExpiredFiles(): Promise<number> {
    const expired = await ExportRecords.expiredFiles(this.db(), 1000);
    for (const row of expired) {
      await this.storage.delete(row.file_key);
      await ExportRecords.fileDeleted(this.db(), row.id);
    }
    return expired.length;
  }

  /** One attempt of the export's job: writes its file and records it as the export's, unless a later attempt took over. */
  private async write(attempt: JobAttempt): Promise<void> {
    const { rows } = await sql<ExportRow>`select ${COLUMNS} from insights_exports e where e.id = ${attempt.jobId}`.execute(this.db());
    const entry = rows[0];
    const identity = await this.principals.ofStaffMember(entry.requested_by);
    if (!identity) throw new ApiError('missing_permission', { details: { requiredPermission: 'insights.*.view' } });
    const admin: AdminPrincipal = { ...identity, locale: entry.language };
    const definition = await this.definitions.parse(entry.definition);
    const table = await this.definitions.rows(definition, admin);
    await ExportRecords.progress(this.db(), attempt, { totalRows: table.totalRows });
    const key = `exports/${entry.store_id}/${entry.id}.${entry.format}`;
    const written = await writeReportFile(this.storage, key, table, entry.format, entry.language, (rows) =>
      ExportRecords.progress(this.db(), attempt, { rows }),
    );
    const name = fileNameOf(await this.titleOf(entry, definition), table.range, entry.format);
    await ExportRecords.succeed(this.db(), attempt, { rows: written.rows, name, key, bytes: written.bytes });
    countInsightsExportRows(entry.format, written.rows);
  }

  /** What the file is named after: the saved report's name, else the report's title in the export's language. */
  private async titleOf(row: ExportRow, definition: ReportDefinition): Promise<string> {
    if (row.saved_report_id) {
      const { rows } = await sql<{ name: string }>`select name from insights_saved_reports where id = ${row.saved_report_id}`.execute(
        this.db(),
      );
      if (rows[0]) return rows[0].name;
    }
    return 'builder' in definition ? (row.language === 'ar' ? 'تقرير-مخصص' : 'custom-report') : definition.report;
  }

  /** An export of the caller's store whose areas the caller may view; 404 for any other id. */
  private async visible(admin: AdminPrincipal, id: string): Promise<ExportRow> {
    if (!UUID_PATTERN.test(id)) throw new ApiError('NOT_FOUND');
    const { rows } = await sql<ExportRow>`
      select ${COLUMNS} from insights_exports e where e.id = ${id} and e.store_id = ${admin.storeId}`.execute(this.db());
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    requireViewPermissions(admin, rows[0].areas);
    return rows[0];
  }

  private db(em: EntityManager = this.em): Kysely<unknown> {
    return em.getKysely() as Kysely<unknown>;
  }
}

function documentOf(row: ExportRow): ExportDoc {
  const rows = Number(row.rows);
  const totalRows = row.total_rows === null ? null : Number(row.total_rows);
  const percent =
    row.status === 'succeeded'
      ? 100
      : totalRows === null
        ? null
        : totalRows === 0
          ? 0
          : Math.min(100, Math.floor((rows * 100) / totalRows));
  return {
    id: row.id,
    status: row.status,
    format: row.format,
    definition: row.definition as Record<string, unknown>,
    savedReportId: row.saved_report_id,
    language: row.language,
    progress: { rows, totalRows, percent },
    file:
      row.status === 'succeeded'
        ? {
            name: row.file_name!,
            bytes: Number(row.bytes),
            contentType: CONTENT_TYPES[row.format],
            expiresAt: row.expires_at!,
            expired: row.expired,
          }
        : null,
    error: row.status === 'succeeded' ? null : row.error,
    attempts: row.attempts,
    requestedBy: row.requested_by,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
