import { defineEntity, p } from '@mikro-orm/core';
import { StaffMember } from '../../auth/entities/staff-member.entity.js';
import { FORMULA_SAFETY } from '../../common/formula-safety.js';
import { createdAt, updatedAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';
import { DIRECTIONS } from '../structures/structures.js';
import { Connection } from './connection.entity.js';
import { Mapping } from './mapping.entity.js';
import { FILE_ENCODINGS, SOURCE_FORMATS } from '../../infra/tabular/formats.js';

export const FLOW_MODES = ['upsert', 'replace'] as const;
export type FlowMode = (typeof FLOW_MODES)[number];

/** A connection plus a mapping plus a direction, a file template and an optional schedule (contract section 9). */
const FlowSchema = defineEntity({
  name: 'Flow',
  tableName: 'data_hub_flows',
  indexes: [
    { properties: ['store', 'createdAt'] },
    {
      name: 'data_hub_flows_next_run_at_index',
      expression: 'create index data_hub_flows_next_run_at_index on data_hub_flows (next_run_at) where next_run_at is not null',
    },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    name: p.string().length(120),
    connection: () => p.manyToOne(Connection).mapToPk().updateRule('no action').deleteRule('no action').index(),
    mapping: () => p.manyToOne(Mapping).mapToPk().updateRule('no action').deleteRule('no action').index(),
    direction: p.enum(DIRECTIONS),
    format: p.enum(SOURCE_FORMATS),
    encoding: p.enum(FILE_ENCODINGS).default('utf-8'),
    fileTemplate: p.string().length(200),
    mode: p.enum(FLOW_MODES).default('upsert'),
    /** What an export's CSV or XLSX cells do with text a spreadsheet would run as a formula. */
    formulaSafety: p.enum(FORMULA_SAFETY).default('escape'),
    scheduleCron: p.string().length(120).nullable(),
    scheduleTimezone: p.string().length(64).nullable(),
    paused: p.boolean().default(false),
    muted: p.boolean().default(false),
    missingAfterMinutes: p.integer().default(60),
    alertRecipients: p.array<string>().columnType('text[]').defaultRaw(`'{}'`),
    maxDeactivatePercent: p.integer().default(10),
    maxDeactivateCount: p.integer().default(500),
    /** The next due time of the schedule; null without one, or while paused. */
    nextRunAt: p.datetime().nullable(),
    createdBy: () => p.manyToOne(StaffMember).mapToPk().fieldName('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export class Flow extends FlowSchema.class {}
FlowSchema.setClass(Flow);
