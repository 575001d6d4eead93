import { EntityManager } from '@mikro-orm/postgresql';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../../common/pagination/list-query.dto.js';
import type { FormulaSafety } from '../../common/formula-safety.js';
import { MERCHANT_LANGUAGE, type MerchantLanguage } from '../../common/merchant-language.js';
import { newestFirst, pageOf } from '../../infra/database/newest-first.js';
import { JobQueue } from '../../infra/jobs/job-queue.js';
import type { JobAttempt, JobFailure, TrackedJob } from '../../infra/jobs/tracked-job.js';
import { NotificationsService } from '../../notifications/notifications.service.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { ConnectorRegistry } from '../connectors/connector-registry.js';
import type { ShrinkGuardOverrideDto, StartRunDto, UndoRunDto } from '../dto/run.dto.js';
import type { FieldChange } from '../../infra/database/record-import.js';
import type { MappingField } from '../entities/mapping.entity.js';
import type { RunList } from '../entities/run.entity.js';
import { FlowsService } from '../flows/flows.service.js';
import { structureNamed } from '../structures/structures.js';
import { ExportRunner } from './export-runner.js';
import { ImportRunner } from './import-runner.js';
import { UndoRunner } from './undo-runner.js';
import { RUN_LISTS_KEPT_DAYS } from './run-retention.js';
import { queryableOf, RunRecords, type RunOutcomeRecord } from './run-records.js';
import type { RunRequest } from './run-request.js';

export const RUN_JOB = 'data-hub.run';
/** How long a scheduled import that found no new file waits before it looks again. */
const WAIT_FOR_FILE_SECONDS = 300;
const MAX_ATTEMPTS = 3;
const PREVIEW_ROWS = 20;
const RUN_FAILED: JobFailure = {
  code: 'run_failed',
  message_en: 'The run failed; nothing was changed.',
  message_ar: 'فشل التشغيل؛ لم يتغير شيء.',
};

/** The undo of a run that took it back, or is doing so (a run is undone once). */
const UNDONE_BY = sql`(select u.id from data_hub_runs u where u.undo_of = r.id and not u.preview and u.status in ('queued', 'running', 'succeeded'))`;

/** Whether a run's lists still hold what undoing it needs: kept (90 days, not purged), with each change's values before. */
const LISTS_KEPT = sql`(r.changes_listed and r.lists_purged_at is null and r.created_at > now() - make_interval(days => ${RUN_LISTS_KEPT_DAYS}))`;

const DOC = sql`json_build_object(
  'id', r.id, 'flowId', r.flow_id, 'trigger', r.trigger, 'preview', r.preview, 'status', r.status, 'counts', r.counts,
  'file', r.file, 'firstRows', r.first_rows, 'mappingVersion', r.mapping_version, 'formulaSafety', r.formula_safety,
  'refusal', r.refusal, 'override', r.override, 'error', r.error, 'undoOf', r.undo_of, 'undoneBy', ${UNDONE_BY},
  'undoableUntil', case when r.trigger <> 'undo' and r.status = 'succeeded' and not r.preview and ${LISTS_KEPT}
    and exists (select 1 from data_hub_flows f where f.id = r.flow_id and f.direction = 'import')
    then iso_utc(r.created_at + make_interval(days => ${RUN_LISTS_KEPT_DAYS})) end,
  'listsPurgedAt', iso_utc(r.lists_purged_at),
  'createdAt', iso_utc(r.created_at), 'startedAt', iso_utc(r.started_at), 'finishedAt', iso_utc(r.finished_at))`;

export type RunDocument = Record<string, unknown> & { id: string; status: string };

/** A row of a run's lists as stored. */
interface StoredRunRow {
  line: number | null;
  key: string | null;
  record_id: string | null;
  values: unknown;
  errors: unknown;
}

/** A list's row as the API answers it: a rejected row with its values and reasons, a change with each field before and after, a conflict, else a record's key and id. */
function listItem(list: RunList, row: StoredRunRow) {
  switch (list) {
    case 'rejected':
      return { line: row.line, key: row.key, values: row.values, errors: row.errors };
    case 'changed': {
      const { changes } = row.values as { changes: FieldChange[] };
      return {
        key: row.key,
        recordId: row.record_id,
        changes: changes.map((change) => ({
          field: change.field,
          before: 'shownBefore' in change ? change.shownBefore : change.before,
          after: 'shownAfter' in change ? change.shownAfter : change.after,
        })),
      };
    }
    case 'conflicts':
      return { key: row.key, recordId: row.record_id, ...(row.values as object) };
    default:
      return { key: row.key, recordId: row.record_id };
  }
}

/** A one-time lift of the shrink guard as a run records it: the threshold, why, and who asked. */
function overrideOf(admin: AdminPrincipal, override: ShrinkGuardOverrideDto | undefined) {
  return override ? { maxDeactivatePercent: override.maxDeactivatePercent, reason: override.reason, by: admin.staff!.email } : null;
}

interface ClaimedRun {
  id: string;
  store_id: string;
  flow_id: string;
  trigger: 'manual' | 'schedule' | 'undo';
  undo_of: string | null;
  due_at: string | null;
  preview: boolean;
  requested_file: string | null;
  first_rows: number | null;
  mapping_version: number;
  override: { maxDeactivatePercent: number } | null;
}

/**
 * Runs of flows (contract section 9): a preview is computed at once and answered, nothing written; a
 * run now is queued as a durable job (pg-boss), one per flow at a time (a unique index refuses a second
 * with 409 run_in_progress). Every run is recorded with its outcome, its counts and its lists.
 */
@Injectable()
export class RunsService {
  private readonly logger = new Logger(RunsService.name);
  private readonly job: TrackedJob;

  constructor(
    private readonly em: EntityManager,
    jobs: JobQueue,
    private readonly flows: FlowsService,
    private readonly connections: ConnectionsService,
    private readonly connectors: ConnectorRegistry,
    private readonly importer: ImportRunner,
    private readonly exporter: ExportRunner,
    private readonly undoer: UndoRunner,
    private readonly notifications: NotificationsService,
    @Inject(MERCHANT_LANGUAGE) private readonly language: MerchantLanguage,
  ) {
    this.job = jobs.track({
      name: RUN_JOB,
      maxAttempts: MAX_ATTEMPTS,
      expireInSeconds: 6 * 3600,
      record: {
        claim: (id) => RunRecords.claim(this.records(), id),
        fail: async (attempt, failure) => {
          await this.record(attempt, { status: 'failed', error: failure });
          await this.alert(attempt.jobId);
        },
        retryLater: (attempt, failure) => RunRecords.retryLater(this.records(), attempt, failure),
      },
      perform: (attempt) => this.perform(attempt),
      // A run's own refusals are its outcome, recorded by `perform`; what is left is a fault, tried again.
      failureOf: () => ({ permanent: false, error: RUN_FAILED }),
    });
  }

  /** Queues the run (within the transaction of `em`, when given). */
  queue(runId: string, em?: EntityManager): Promise<string | null> {
    return this.job.send(runId, { within: em });
  }

  async start(admin: AdminPrincipal, flowId: string, body: StartRunDto): Promise<{ run: RunDocument; queued: boolean }> {
    const flow = await this.flows.settings(admin, flowId);
    const connection = await this.connections.stored(admin, flow.connectionId);
    if (connection.status !== 'active') throw new ApiError('connection_not_active');
    if (body.file !== undefined && !this.connectors.of(connection.kind).location) {
      throw invalidField('file', 'not_a_file_source', {
        en: 'This flow reads a query, not files: run it without a file.',
        ar: 'يقرأ هذا المسار استعلامًا لا ملفات: شغّله دون تحديد ملف.',
      });
    }
    const { rows: mappings } = await sql<{ version: number }>`
      select version from data_hub_mappings where id = ${flow.mappingId}`.execute(this.db());
    const insert = (em: EntityManager, status: 'queued' | 'running') =>
      RunRecords.create(this.records(em), {
        storeId: admin.storeId,
        flowId,
        preview: body.preview ?? false,
        status,
        requestedFile: body.file ?? null,
        firstRows: body.firstRows ?? null,
        mappingVersion: mappings[0].version,
        override: overrideOf(admin, body.overrideShrinkGuard),
        requestedBy: admin.staff!.id,
      });
    return this.begin(insert, body.preview ?? false);
  }

  /**
   * Undoes a succeeded import run (contract section 11): a preview is computed and answered at once,
   * writing nothing; otherwise the undo is queued as a run of the flow. Refused for anything but a
   * succeeded import run, for an undo, for a run undone already and for one whose lists are gone.
   */
  async undo(admin: AdminPrincipal, runId: string, body: UndoRunDto): Promise<{ run: RunDocument; queued: boolean }> {
    await this.visible(admin, runId);
    const { rows } = await sql<{
      trigger: string;
      status: string;
      preview: boolean;
      direction: string;
      undone_by: string | null;
      expired: boolean;
    }>`
      select r.trigger, r.status, r.preview, f.direction, ${UNDONE_BY} as undone_by,
        not ${LISTS_KEPT} as expired
      from data_hub_runs r join data_hub_flows f on f.id = r.flow_id where r.id = ${runId}`.execute(this.db());
    const run = rows[0];
    if (run.trigger === 'undo') throw new ApiError('undo_of_undo');
    if (run.direction !== 'import' || run.preview || run.status !== 'succeeded')
      throw new ApiError('run_not_undoable', { details: { runStatus: run.status } });
    if (run.undone_by) throw new ApiError('already_undone', { details: { undoneBy: run.undone_by } });
    if (run.expired) throw new ApiError('undo_expired');
    const insert = (em: EntityManager, status: 'queued' | 'running') =>
      RunRecords.createUndo(this.records(em), {
        runId,
        preview: body.preview ?? false,
        status,
        override: overrideOf(admin, body.overrideShrinkGuard),
        requestedBy: admin.staff!.id,
      });
    return this.begin(insert, body.preview ?? false);
  }

  /**
   * A run asked for by a member: a preview is recorded running and its one attempt made at once (not
   * retried, its failure recorded as it happens); otherwise it is recorded queued with its job, in one
   * transaction, or refused when the flow has a run going or (an undo) the run is being undone.
   */
  private async begin(
    insert: (em: EntityManager, status: 'queued' | 'running') => Promise<string>,
    preview: boolean,
  ): Promise<{ run: RunDocument; queued: boolean }> {
    if (preview) {
      const runId = await insert(this.em, 'running');
      await this.job.attempt(await RunRecords.previewAttempt(this.records(), runId), { retry: false });
      return { run: await this.withFirstRows(runId), queued: false };
    }
    try {
      const runId = await this.em.fork().transactional(async (em) => {
        const id = await insert(em, 'queued');
        await this.queue(id, em);
        return id;
      });
      return { run: await this.document(runId), queued: true };
    } catch (error) {
      const constraint = (error as { constraint?: string }).constraint;
      if (constraint === 'data_hub_runs_one_at_a_time_index') throw new ApiError('run_in_progress');
      if (constraint === 'data_hub_runs_undone_once_index') throw new ApiError('already_undone');
      throw error;
    }
  }

  /** An attempt of the queued run's job, as the job queue runs it. */
  execute(runId: string): Promise<void> {
    return this.job.run(runId);
  }

  async list(admin: AdminPrincipal, flowId: string, query: ListQueryDto): Promise<{ items: RunDocument[]; nextCursor: string | null }> {
    await this.flows.settings(admin, flowId);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const order = newestFirst('r', query.cursor);
    const { rows } = await sql<{ doc: RunDocument; id: string; sort_at: string }>`
      select ${DOC} as doc, r.id, ${order.sortAt} as sort_at from data_hub_runs r
      where r.flow_id = ${flowId} and ${order.where} ${order.order} limit ${limit + 1}`.execute(this.db());
    const page = pageOf(rows, limit);
    return { items: page.rows.map((row) => row.doc), nextCursor: page.nextCursor };
  }

  async get(admin: AdminPrincipal, runId: string): Promise<RunDocument> {
    await this.visible(admin, runId);
    return this.document(runId);
  }

  /** A run's list, in the order of the file's lines, a page at a time (`cursor` is the position after which to go on). */
  async rows(admin: AdminPrincipal, runId: string, list: RunList, query: ListQueryDto) {
    await this.visible(admin, runId);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor && /^\d{1,9}$/.test(query.cursor) ? Number(query.cursor) : 0;
    const { rows } = await sql<StoredRunRow & { position: number }>`
      select position, line, key, record_id, "values", errors from data_hub_run_rows
      where run_id = ${runId} and list = ${list} and position > ${after} order by position limit ${limit + 1}`.execute(this.db());
    const page = rows.slice(0, limit);
    const items = page.map((row) => listItem(list, row));
    return { items, nextCursor: rows.length > limit ? String(page[page.length - 1].position) : null };
  }

  /** One attempt at a run, claimed: its work and its outcome, settled as every job's attempt is. */
  runAttempt(attempt: JobAttempt): Promise<void> {
    return this.job.attempt(attempt, { retry: true });
  }

  private async perform(attempt: JobAttempt): Promise<void> {
    const runId = attempt.jobId;
    const { rows } = await sql<ClaimedRun>`
      select id, store_id, flow_id, trigger, undo_of, due_at, preview, requested_file, first_rows, mapping_version, override
      from data_hub_runs where id = ${runId}`.execute(this.db());
    const run = rows[0];
    await RunRecords.clearLists(this.records(), attempt);
    const { rows: flows } = await sql<{
      connection_id: string;
      format: 'csv';
      encoding: 'utf-8';
      file_template: string;
      mode: string;
      formula_safety: FormulaSafety;
      max_deactivate_percent: number;
      max_deactivate_count: number;
      mapping_id: string;
      direction: string;
      missing_after_minutes: number;
    }>`select * from data_hub_flows where id = ${run.flow_id}`.execute(this.db());
    const flow = flows[0];
    const { rows: versions } = await sql<{ structure: string; fields: MappingField[] }>`
      select m.structure, v.fields from data_hub_mappings m join data_hub_mapping_versions v on v.mapping_id = m.id and v.version = ${run.mapping_version}
      where m.id = ${flow.mapping_id}`.execute(this.db());
    const shrinkGuard = { maxDeactivatePercent: flow.max_deactivate_percent, maxDeactivateCount: flow.max_deactivate_count };
    if (run.undo_of) {
      // An undo reads no source: its outcome is recorded with its changes when it succeeds, here otherwise.
      const outcome = await this.undoer.run({
        attempt,
        storeId: run.store_id,
        undoOf: run.undo_of,
        structure: versions[0].structure,
        preview: run.preview,
        shrinkGuard,
        overridePercent: run.override?.maxDeactivatePercent,
      });
      if (outcome.status !== 'succeeded' || run.preview) await this.record(attempt, outcome);
      return;
    }
    const scheduled = run.trigger === 'schedule' && !run.requested_file;
    const connection = await this.connections.storedIn(run.store_id, flow.connection_id);
    const request: RunRequest = {
      attempt,
      storeId: run.store_id,
      structure: structureNamed(versions[0].structure)!,
      fields: versions[0].fields,
      format: flow.format,
      encoding: flow.encoding,
      fileTemplate: flow.file_template,
      file: run.requested_file ?? undefined,
      connector: this.connectors.of(connection.kind),
      target: this.connections.target(connection),
      preview: run.preview,
      firstRows: run.first_rows ?? undefined,
    };
    if (flow.direction === 'export') {
      // An export reads the store, not a file: no file to wait for, and its outcome is recorded here.
      await RunRecords.formulaSafety(this.records(), attempt, flow.formula_safety);
      await this.record(attempt, await this.exporter.run({ ...request, formulaSafety: flow.formula_safety }));
      return this.alert(runId);
    }
    const outcome = await this.importer.run({
      ...request,
      replace: flow.mode === 'replace',
      shrinkGuard,
      overridePercent: run.override?.maxDeactivatePercent,
      imported: scheduled ? await this.importedFiles(run.flow_id) : undefined,
    });
    const waitUntil = run.due_at ? new Date(run.due_at).getTime() + flow.missing_after_minutes * 60_000 : 0;
    if (outcome.status === 'missing' && Date.now() < waitUntil) {
      // No new file yet: look again a little later, until the flow's missing-file delay has passed.
      const wait = Math.min(WAIT_FOR_FILE_SECONDS, Math.ceil((waitUntil - Date.now()) / 1000));
      await RunRecords.waitForFile(this.records(), attempt);
      await this.job.send(runId, { startAfter: Math.max(1, wait) });
      return;
    }
    // A run that applied its changes recorded its outcome in the same transaction.
    if (outcome.status !== 'succeeded' || run.preview) await this.record(attempt, outcome);
    await this.alert(runId);
  }

  /** Files this flow imported before, by name and SHA-256 (the latest hundred runs that did). */
  private async importedFiles(flowId: string): Promise<{ name: string; sha256: string }[]> {
    const { rows } = await sql<{ name: string; sha256: string }>`
      select file->>'name' as name, file->>'sha256' as sha256 from data_hub_runs
      where flow_id = ${flowId} and status = 'succeeded' and not preview and file is not null
      order by created_at desc limit 100`.execute(this.db());
    return rows;
  }

  /**
   * Tells the flow's alert recipients, once, that a scheduled run went missing, was refused or failed
   * (unless the flow is muted). In the store's Insights language.
   */
  async alert(runId: string): Promise<void> {
    const run = await RunRecords.alertOnce<{
      store_id: string;
      status: 'missing' | 'refused' | 'failed';
      due_at: Date;
      flow_name: string;
      recipients: string[];
      reason: { message_en: string; message_ar: string };
    }>(this.records(), runId);
    if (!run) return;
    const locale = await this.language.of(run.store_id);
    for (const to of run.recipients) {
      await this.notifications
        .send({
          storeId: run.store_id,
          to,
          locale,
          template: 'data_hub_run_alert',
          vars: {
            flowName: run.flow_name,
            dueAt: new Date(run.due_at).toISOString().slice(0, 16).replace('T', ' '),
            status: run.status,
            reason: locale === 'ar' ? run.reason.message_ar : run.reason.message_en,
          },
        })
        .catch((error: Error) => this.logger.warn(`data hub run ${runId}: an alert was not delivered: ${error.message}`));
    }
  }

  private async record(attempt: JobAttempt, outcome: RunOutcomeRecord): Promise<void> {
    await RunRecords.record(this.records(), attempt, outcome);
  }

  private async visible(admin: AdminPrincipal, runId: string): Promise<void> {
    if (!UUID_PATTERN.test(runId)) throw new ApiError('NOT_FOUND');
    const { rows } = await sql`select 1 from data_hub_runs where id = ${runId} and store_id = ${admin.storeId}`.execute(this.db());
    if (!rows[0]) throw new ApiError('NOT_FOUND');
  }

  /** A preview's answer: the run and the first rows of each of its lists. */
  private async withFirstRows(runId: string): Promise<RunDocument> {
    const run = await this.document(runId);
    const { rows } = await sql<StoredRunRow & { list: RunList }>`
      select list, line, key, record_id, "values", errors from (
        select *, row_number() over (partition by list order by position) as n from data_hub_run_rows where run_id = ${runId}) r
      where n <= ${PREVIEW_ROWS} order by list, position`.execute(this.db());
    const of = (list: RunList) => rows.filter((row) => row.list === list).map((row) => listItem(list, row));
    return {
      ...run,
      rows: {
        rejected: of('rejected'),
        created: of('created'),
        changed: of('changed'),
        deactivated: of('deactivated'),
        conflicts: of('conflicts'),
      },
    };
  }

  private async document(runId: string): Promise<RunDocument> {
    const { rows } = await sql<{ doc: RunDocument }>`select ${DOC} as doc from data_hub_runs r where r.id = ${runId}`.execute(this.db());
    return rows[0].doc;
  }

  private db(em: EntityManager = this.em): Kysely<unknown> {
    return em.getKysely() as Kysely<unknown>;
  }

  private records(em: EntityManager = this.em) {
    return queryableOf(this.db(em));
  }
}
