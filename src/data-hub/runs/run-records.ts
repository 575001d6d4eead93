import { CompiledQuery, type Kysely } from 'kysely';
import { IMPORT_OUTCOME, UNDO_STAGING } from '../../infra/database/record-import.js';
import { requireCurrent, type JobAttempt, type JobFailure } from '../../infra/jobs/tracked-job.js';
import type { RunList } from '../entities/run.entity.js';
import type { Queryable } from './queryable.js';

/**
 * The one writer of `data_hub_runs` and `data_hub_run_rows`. A run is worked in attempts: claiming one
 * counts it, and every write of what an attempt found names it, so that an attempt that is no longer
 * the current one (its worker was taken for dead and the job given to another) writes nothing: not its
 * outcome, not its lists, and not the changes it would apply, whose transaction it rolls back.
 */

export interface RunOutcomeRecord {
  status: string;
  counts?: unknown;
  file?: unknown;
  refusal?: unknown;
  error?: unknown;
}

export interface RunRowInput {
  line?: number | null;
  key?: string | null;
  recordId?: string | null;
  values?: Record<string, unknown> | null;
  errors?: Record<string, unknown>[] | null;
}

/** Kysely (the ORM's connection, or one of its transactions) as a Queryable. */
export function queryableOf(db: Kysely<unknown>): Queryable {
  return {
    async query<R extends object>(text: string, values: unknown[] = []) {
      const result = await db.executeQuery<R>(CompiledQuery.raw(text, values));
      return { rows: result.rows, rowCount: result.numAffectedRows === undefined ? result.rows.length : Number(result.numAffectedRows) };
    },
  };
}

const CURRENT = `id = $1 and attempts = $2`;

export const RunRecords = {
  /** A run asked for by a member: queued for its job, or running at once (a preview). */
  async create(
    db: Queryable,
    run: {
      storeId: string;
      flowId: string;
      preview: boolean;
      status: 'queued' | 'running';
      requestedFile: string | null;
      firstRows: number | null;
      mappingVersion: number;
      override: unknown;
      requestedBy: string;
    },
  ): Promise<string> {
    const { rows } = await db.query<{ id: string }>(
      `insert into data_hub_runs (store_id, flow_id, trigger, preview, status, requested_file, first_rows, mapping_version, override, requested_by, started_at)
       values ($1, $2, 'manual', $3, $4::text, $5, $6, $7, $8::jsonb, $9, case when $4::text = 'running' then now() end)
       returning id`,
      [
        run.storeId,
        run.flowId,
        run.preview,
        run.status,
        run.requestedFile,
        run.firstRows,
        run.mappingVersion,
        run.override === null ? null : JSON.stringify(run.override),
        run.requestedBy,
      ],
    );
    return rows[0].id;
  },

  /**
   * A flow's run at its due time: queued, or recorded missing with its error when the due time passed long
   * ago. None when one is filed already, or a run of the flow is still going (the one-at-a-time index).
   */
  async fileScheduled(
    db: Queryable,
    run: { storeId: string; flowId: string; dueAt: Date; mappingVersion: number; missed: unknown | null },
  ): Promise<string | null> {
    const { rows } = await db.query<{ id: string }>(
      `insert into data_hub_runs (store_id, flow_id, trigger, status, due_at, mapping_version, error, finished_at)
       values ($1, $2, 'schedule', case when $5::jsonb is null then 'queued' else 'missing' end, $3, $4, $5::jsonb,
               case when $5::jsonb is null then null else now() end)
       on conflict do nothing returning id`,
      [run.storeId, run.flowId, run.dueAt, run.mappingVersion, run.missed === null ? null : JSON.stringify(run.missed)],
    );
    return rows[0]?.id ?? null;
  },

  /** An undo of a run, asked for by a member: a run of the same flow and mapping version, queued or running at once (a preview). */
  async createUndo(
    db: Queryable,
    undo: { runId: string; preview: boolean; status: 'queued' | 'running'; override: unknown; requestedBy: string },
  ): Promise<string> {
    const { rows } = await db.query<{ id: string }>(
      `insert into data_hub_runs (store_id, flow_id, trigger, undo_of, preview, status, mapping_version, override, requested_by, started_at)
       select store_id, flow_id, 'undo', id, $2, $3::text, mapping_version, $4::jsonb, $5, case when $3::text = 'running' then now() end
       from data_hub_runs where id = $1
       returning id`,
      [undo.runId, undo.preview, undo.status, undo.override === null ? null : JSON.stringify(undo.override), undo.requestedBy],
    );
    return rows[0].id;
  },

  /**
   * What a run did, staged for its undo: one row per record and field it changed or deactivated (the
   * value it left and the one before), and per field a record it created was created with (or one row
   * without a field, where its table has no deactivation).
   */
  async stageUndo(db: Queryable, runId: string): Promise<'staged' | 'purged'> {
    // Held to the end of the undo's transaction: the retention cannot remove the lists meanwhile.
    const { rows } = await db.query<{ purged: boolean }>(
      `select lists_purged_at is not null as purged from data_hub_runs where id = $1 for share`,
      [runId],
    );
    if (rows[0].purged) return 'purged';
    await db.query(
      `insert into ${UNDO_STAGING} (list, key, record_id, field, column_name, run_after, restore, shown_run_after, shown_restore)
       select r.list, r.key, r.record_id, c->>'field', c->>'column', c->'after', c->'before', c->'shownAfter', c->'shownBefore'
       from data_hub_run_rows r left join lateral jsonb_array_elements(r."values"->'changes') c on true
       where r.run_id = $1 and r.list in ('changed', 'deactivated', 'created') and r.record_id is not null`,
      [runId],
    );
    return 'staged';
  },

  /** The queued (or interrupted) run's next attempt, counted; none when the run has its outcome already. */
  async claim(db: Queryable, runId: string): Promise<{ attempt: JobAttempt; lastFailure: JobFailure | null } | null> {
    const { rows } = await db.query<{ attempts: number; error: JobFailure | null }>(
      `update data_hub_runs set status = 'running', attempts = attempts + 1, started_at = coalesce(started_at, now())
       where id = $1 and status in ('queued', 'running') returning attempts, error`,
      [runId],
    );
    return rows[0] ? { attempt: { jobId: runId, number: rows[0].attempts }, lastFailure: rows[0].error } : null;
  },

  /** A preview's one attempt: it runs as it is asked for, never queued. */
  async previewAttempt(db: Queryable, runId: string): Promise<JobAttempt> {
    const { rows } = await db.query<{ attempts: number }>(`select attempts from data_hub_runs where id = $1`, [runId]);
    return { jobId: runId, number: rows[0].attempts };
  },

  /** An attempt starts its lists afresh: what an interrupted one wrote does not count. */
  async clearLists(db: Queryable, attempt: JobAttempt): Promise<void> {
    await db.query(`delete from data_hub_run_rows where run_id = $1 and exists (select 1 from data_hub_runs where ${CURRENT})`, [
      attempt.jobId,
      attempt.number,
    ]);
  },

  /**
   * What an attempt created, changed, deactivated and (an undo) left as conflicts, or would, from the
   * outcome table: in the file's order, else by key. A change keeps each field before and after.
   */
  async keepImportOutcome(db: Queryable, attempt: JobAttempt): Promise<void> {
    await db.query(
      `insert into data_hub_run_rows (run_id, list, position, line, key, record_id, "values")
       select $1, list, row_number() over (partition by list order by line, key), line, key, record_id,
         case when list = 'conflicts' then changes when changes is not null then jsonb_build_object('changes', changes) end
       from ${IMPORT_OUTCOME}
       where exists (select 1 from data_hub_runs where ${CURRENT})`,
      [attempt.jobId, attempt.number],
    );
  },

  /** An outcome: the attempt's if it is still the current one (StaleAttempt otherwise; in a transaction, roll it back). */
  async record(db: Queryable, attempt: JobAttempt, outcome: RunOutcomeRecord): Promise<void> {
    const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));
    const { rowCount } = await db.query(
      `update data_hub_runs set status = $3, counts = coalesce($4::jsonb, counts), file = coalesce($5::jsonb, file),
         refusal = $6::jsonb, error = $7::jsonb, finished_at = clock_timestamp()
       where ${CURRENT}`,
      [attempt.jobId, attempt.number, outcome.status, json(outcome.counts), json(outcome.file), json(outcome.refusal), json(outcome.error)],
    );
    requireCurrent(attempt, rowCount);
  },

  /**
   * A run that succeeded, committed with its changes: its lists and outcome recorded in its transaction, as
   * this attempt's (one a later attempt replaced rolls everything back here), then the commit, which runs
   * the deferred triggers (search refreshes the products that changed): the run ends after it.
   */
  async commitSucceeded(client: Queryable, attempt: JobAttempt, outcome: RunOutcomeRecord): Promise<void> {
    await RunRecords.keepImportOutcome(client, attempt);
    await RunRecords.record(client, attempt, outcome);
    await client.query('commit');
    await client.query(`update data_hub_runs set finished_at = clock_timestamp() where ${CURRENT}`, [attempt.jobId, attempt.number]);
  },

  /** Back in the queue after a failed attempt, to be tried again, the failure shown meanwhile. */
  async retryLater(db: Queryable, attempt: JobAttempt, failure: JobFailure): Promise<void> {
    const { rowCount } = await db.query(`update data_hub_runs set status = 'queued', error = $3::jsonb where ${CURRENT}`, [
      attempt.jobId,
      attempt.number,
      JSON.stringify(failure),
    ]);
    requireCurrent(attempt, rowCount);
  },

  /** Back in the queue, its attempts counted afresh, to look again later for a file not there yet. */
  async waitForFile(db: Queryable, attempt: JobAttempt): Promise<void> {
    const { rowCount } = await db.query(`update data_hub_runs set status = 'queued', attempts = 0 where ${CURRENT}`, [
      attempt.jobId,
      attempt.number,
    ]);
    requireCurrent(attempt, rowCount);
  },

  /** The formula safety an export attempt writes its cells with. */
  async formulaSafety(db: Queryable, attempt: JobAttempt, formulaSafety: string): Promise<void> {
    const { rowCount } = await db.query(`update data_hub_runs set formula_safety = $3 where ${CURRENT}`, [
      attempt.jobId,
      attempt.number,
      formulaSafety,
    ]);
    requireCurrent(attempt, rowCount);
  },

  /**
   * One batch of the retention: the lists of the oldest runs past `olderThanDays` removed and each run
   * marked `lists_purged_at` in the caller's transaction: up to `runs` runs, fewer once they hold `rows`
   * rows (a run is never split). Runs another purge holds are skipped.
   */
  async purgeLists(db: Queryable, batch: { olderThanDays: number; runs: number; rows: number }): Promise<{ runs: number; rows: number }> {
    const { rows: due } = await db.query<{ id: string; rows: number }>(
      `select r.id, (select count(*) from data_hub_run_rows l where l.run_id = r.id)::int as rows
       from data_hub_runs r
       where r.lists_purged_at is null and r.created_at < now() - make_interval(days => $1)
       order by r.created_at limit $2
       for update of r skip locked`,
      [batch.olderThanDays, batch.runs],
    );
    const ids: string[] = [];
    let rows = 0;
    for (const run of due) {
      if (ids.length > 0 && rows + run.rows > batch.rows) break;
      ids.push(run.id);
      rows += run.rows;
    }
    if (ids.length === 0) return { runs: 0, rows: 0 };
    const deleted = await db.query(`delete from data_hub_run_rows where run_id = any($1::uuid[])`, [ids]);
    await db.query(`update data_hub_runs set lists_purged_at = now() where id = any($1::uuid[])`, [ids]);
    return { runs: ids.length, rows: deleted.rowCount ?? 0 };
  },

  /**
   * Marks a scheduled run that went missing, was refused or failed as alerted, once, and answers what the
   * alert says and to whom (none when it needs none: a manual run, a muted flow, no recipients).
   */
  async alertOnce<T extends object>(db: Queryable, runId: string): Promise<T | undefined> {
    const { rows } = await db.query<T>(
      `update data_hub_runs r set alerted_at = now()
       from data_hub_flows f
       where r.id = $1 and f.id = r.flow_id and r.trigger = 'schedule' and not r.preview and r.alerted_at is null
         and r.status in ('missing', 'refused', 'failed') and not f.muted and cardinality(f.alert_recipients) > 0
       returning r.store_id, r.status, r.due_at, f.name as flow_name, f.alert_recipients as recipients,
         coalesce(r.refusal, r.error) as reason`,
      [runId],
    );
    return rows[0];
  },
};

const BATCH = 1000;

/** An attempt's lists (rejected, created, deactivated), written a thousand rows at a time, numbered in order; nothing once it is stale. */
export class RunRowsWriter {
  private readonly positions: Record<RunList, number> = { rejected: 0, created: 0, deactivated: 0, changed: 0, conflicts: 0 };
  private pending: (RunRowInput & { list: RunList; position: number })[] = [];

  constructor(
    private readonly db: Queryable,
    private readonly attempt: JobAttempt,
  ) {}

  async add(list: RunList, row: RunRowInput): Promise<void> {
    this.pending.push({ ...row, list, position: ++this.positions[list] });
    if (this.pending.length >= BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    const { rowCount } = await this.db.query(
      `insert into data_hub_run_rows (run_id, list, position, line, key, record_id, "values", errors)
       select $1, r.list, r.position, r.line, r.key, r.record_id, r.values, r.errors
       from jsonb_to_recordset($3::jsonb) as r(list text, position int, line int, key text, record_id uuid, "values" jsonb, errors jsonb)
       where exists (select 1 from data_hub_runs where ${CURRENT})`,
      [
        this.attempt.jobId,
        this.attempt.number,
        JSON.stringify(
          rows.map((row) => ({
            list: row.list,
            position: row.position,
            line: row.line ?? null,
            key: row.key ?? null,
            record_id: row.recordId ?? null,
            values: row.values ?? null,
            errors: row.errors ?? null,
          })),
        ),
      ],
    );
    requireCurrent(this.attempt, rowCount);
  }
}
