import { defineEntity, p } from '@mikro-orm/core';
import { StaffMember } from '../../auth/entities/staff-member.entity.js';
import { FORMULA_SAFETY } from '../../common/formula-safety.js';
import { createdAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';
import { Flow } from './flow.entity.js';

export const RUN_TRIGGERS = ['manual', 'schedule', 'undo'] as const;
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'refused', 'missing'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_LISTS = ['rejected', 'created', 'deactivated', 'changed', 'conflicts'] as const;
export type RunList = (typeof RUN_LISTS)[number];

export interface RunCounts {
  read: number;
  changed: number;
  created: number;
  deactivated: number;
  rejected: number;
  unchanged: number;
  sent: number;
  /** An undo's fields left as they were, because someone changed them since the run it undoes. */
  conflicts?: number;
}

/** One execution of a flow (contract section 9), recorded whatever its outcome. */
const RunSchema = defineEntity({
  name: 'Run',
  tableName: 'data_hub_runs',
  uniques: [{ properties: ['flow', 'dueAt'] }],
  indexes: [
    { properties: ['flow', 'createdAt'] },
    {
      name: 'data_hub_runs_undone_once_index',
      expression:
        "create unique index data_hub_runs_undone_once_index on data_hub_runs (undo_of) where not preview and status in ('queued', 'running', 'succeeded')",
    },
    {
      name: 'data_hub_runs_lists_kept_index',
      expression: 'create index data_hub_runs_lists_kept_index on data_hub_runs (created_at) where lists_purged_at is null',
    },
    {
      name: 'data_hub_runs_one_at_a_time_index',
      expression:
        "create unique index data_hub_runs_one_at_a_time_index on data_hub_runs (flow_id) where status in ('queued', 'running') and not preview",
    },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    flow: () => p.manyToOne(Flow).mapToPk().deleteRule('cascade').updateRule('no action'),
    /** The run an undo takes back. */
    undoOf: () => p.manyToOne(Run).mapToPk().nullable().deleteRule('cascade').updateRule('no action').fieldName('undo_of'),
    trigger: p.enum(RUN_TRIGGERS),
    preview: p.boolean().default(false),
    status: p.enum(RUN_STATUSES),
    /** A scheduled run's due time: each is run once. */
    dueAt: p.datetime().nullable(),
    requestedFile: p.string().length(200).nullable(),
    /** A preview of the file's first rows only. */
    firstRows: p.integer().nullable(),
    mappingVersion: p.integer(),
    /** The flow's formula safety an export's attempt wrote its file with; null for an import, or before an attempt. */
    formulaSafety: p.enum(FORMULA_SAFETY).nullable(),
    counts: p
      .json<RunCounts>()
      .defaultRaw(`'{"read": 0, "changed": 0, "created": 0, "deactivated": 0, "rejected": 0, "unchanged": 0, "sent": 0}'`),
    file: p.json<{ name: string; bytes: number; sha256: string }>().nullable(),
    refusal: p.json<Record<string, unknown>>().nullable(),
    /** A one-time lift of the shrink guard: its threshold, why, and who. */
    override: p.json<Record<string, unknown>>().nullable(),
    error: p.json<{ code: string; message_en: string; message_ar: string }>().nullable(),
    attempts: p.integer().default(0),
    requestedBy: () => p.manyToOne(StaffMember).mapToPk().nullable().fieldName('requested_by'),
    createdAt: createdAt(),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
    /** When the flow's recipients were told of this run's outcome (once). */
    alertedAt: p.datetime().nullable(),
    /** When its lists were purged (90 days on): it can no longer be undone. */
    listsPurgedAt: p.datetime().nullable(),
    /** Its lists keep each change's values before (false for runs made before undo existed: those cannot be undone). */
    changesListed: p.boolean().default(true),
  },
});

export class Run extends RunSchema.class {}
RunSchema.setClass(Run);

/** A row a run rejected (with its values and reasons), created or deactivated (its key and record), in order. */
const RunRowSchema = defineEntity({
  name: 'RunRow',
  tableName: 'data_hub_run_rows',
  properties: {
    run: () => p.manyToOne(Run).mapToPk().primary().deleteRule('cascade').updateRule('no action'),
    list: p.enum(RUN_LISTS).primary(),
    position: p.integer().primary(),
    line: p.integer().nullable(),
    key: p.text().nullable(),
    recordId: p.uuid().nullable(),
    values: p.json<Record<string, unknown>>().nullable(),
    errors: p.json<Record<string, unknown>[]>().nullable(),
  },
});

export class RunRow extends RunRowSchema.class {}
RunRowSchema.setClass(RunRow);
