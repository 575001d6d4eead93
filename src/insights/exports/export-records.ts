import { sql, type Kysely } from 'kysely';
import type { Locale } from '../../common/locale.js';
import type { InsightsArea } from '../../common/permissions.js';
import { isCurrent, requireCurrent, type JobAttempt, type JobFailure } from '../../infra/jobs/tracked-job.js';
import type { ReportDefinition } from '../dto/report-source.dto.js';
import type { FileFormat } from '../entities/insights-export.entity.js';

/** Days an export's file is kept. */
const FILE_DAYS = 7;

/**
 * The one writer of `insights_exports`: an export asked for, and its job's record (the attempts of
 * `TrackedJob`, every write after the claim fenced by the attempt).
 */
export const ExportRecords = {
  async create(
    db: Kysely<unknown>,
    entry: {
      storeId: string;
      requestedBy: string;
      definition: ReportDefinition;
      savedReportId: string | null;
      areas: InsightsArea[];
      format: FileFormat;
      language: Locale;
    },
  ): Promise<string> {
    const { rows } = await sql<{ id: string }>`
      insert into insights_exports (store_id, requested_by, definition, saved_report_id, areas, format, language)
      values (${entry.storeId}, ${entry.requestedBy}, ${JSON.stringify(entry.definition)}::jsonb, ${entry.savedReportId},
              ${entry.areas}::text[], ${entry.format}, ${entry.language})
      returning id`.execute(db);
    return rows[0].id;
  },

  /** The next attempt of a queued or interrupted export, its progress started afresh; null once it has its outcome. */
  async claim(db: Kysely<unknown>, id: string): Promise<{ attempt: JobAttempt; lastFailure: JobFailure | null } | null> {
    const { rows } = await sql<{ attempts: number; error: JobFailure | null }>`
      update insights_exports set status = 'running', attempts = attempts + 1, started_at = now(), rows = 0
      where id = ${id} and status in ('queued', 'running') returning attempts, error`.execute(db);
    return rows[0] ? { attempt: { jobId: id, number: rows[0].attempts }, lastFailure: rows[0].error } : null;
  },

  async progress(db: Kysely<unknown>, attempt: JobAttempt, progress: { rows: number } | { totalRows: number }): Promise<void> {
    const set = 'rows' in progress ? sql`rows = ${progress.rows}` : sql`total_rows = ${progress.totalRows}`;
    requireCurrent(attempt, (await sql`update insights_exports set ${set} where ${isCurrent(attempt)}`.execute(db)).numAffectedRows);
  },

  async succeed(db: Kysely<unknown>, attempt: JobAttempt, file: { rows: number; name: string; key: string; bytes: number }): Promise<void> {
    const { numAffectedRows } = await sql`
      update insights_exports set status = 'succeeded', rows = ${file.rows}, total_rows = ${file.rows},
        file_name = ${file.name}, file_key = ${file.key}, bytes = ${file.bytes}, error = null, finished_at = now(),
        expires_at = now() + make_interval(days => ${FILE_DAYS})
      where ${isCurrent(attempt)}`.execute(db);
    requireCurrent(attempt, numAffectedRows);
  },

  async fail(db: Kysely<unknown>, attempt: JobAttempt, failure: JobFailure): Promise<void> {
    const { numAffectedRows } = await sql`
      update insights_exports set status = 'failed', error = ${JSON.stringify(failure)}::jsonb, finished_at = now()
      where ${isCurrent(attempt)}`.execute(db);
    requireCurrent(attempt, numAffectedRows);
  },

  async retryLater(db: Kysely<unknown>, attempt: JobAttempt, failure: JobFailure): Promise<void> {
    const { numAffectedRows } = await sql`
      update insights_exports set status = 'queued', error = ${JSON.stringify(failure)}::jsonb where ${isCurrent(attempt)}`.execute(db);
    requireCurrent(attempt, numAffectedRows);
  },

  /** Exports whose files are due to be deleted, oldest first. */
  async expiredFiles(db: Kysely<unknown>, limit: number): Promise<{ id: string; file_key: string }[]> {
    const { rows } = await sql<{ id: string; file_key: string }>`
      select id, file_key from insights_exports
      where file_deleted_at is null and expires_at <= now() order by expires_at limit ${limit}`.execute(db);
    return rows;
  },

  async fileDeleted(db: Kysely<unknown>, id: string): Promise<void> {
    await sql`update insights_exports set file_deleted_at = now() where id = ${id}`.execute(db);
  },
};
