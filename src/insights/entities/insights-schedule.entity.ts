import { defineEntity, p } from '@mikro-orm/core';
import { StaffMember } from '../../auth/entities/staff-member.entity.js';
import { Connection } from '../../data-hub/entities/connection.entity.js';
import { createdAt, updatedAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';
import { FILE_FORMATS } from './insights-export.entity.js';
import { SavedReport } from './saved-report.entity.js';

export const FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** In ISO order: Monday is 1, as luxon numbers them. */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface EmailDestination {
  kind: 'email';
  recipients: string[];
}

/** A data hub file connection of the store, written to under `pathTemplate` filled in with the due time (pro plan). */
export interface ConnectionDestination {
  kind: 'connection';
  connectionId: string;
  pathTemplate: string;
}

export type ScheduleDestination = EmailDestination | ConnectionDestination;

/** A saved report delivered on a cadence in the store's time zone (contract section 8). */
const InsightsScheduleSchema = defineEntity({
  name: 'InsightsSchedule',
  tableName: 'insights_schedules',
  indexes: [
    { properties: ['store', 'createdAt'] },
    {
      name: 'insights_schedules_next_run_at_index',
      expression: 'create index insights_schedules_next_run_at_index on insights_schedules (next_run_at) where not paused',
    },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    savedReport: () => p.manyToOne(SavedReport).mapToPk().deleteRule('cascade'),
    name: p.string().length(120),
    frequency: p.enum(FREQUENCIES),
    /** `HH:MM`, local time in the store's time zone. */
    timeOfDay: p.string().length(5),
    weekday: p.enum(WEEKDAYS).nullable(),
    dayOfMonth: p.integer().nullable(),
    format: p.enum(FILE_FORMATS),
    destination: p.json<ScheduleDestination>(),
    /** A connection destination's connection, held as a relation so that it cannot be deleted while the schedule delivers to it. */
    connection: () => p.manyToOne(Connection).mapToPk().nullable().updateRule('no action').deleteRule('no action').index(),
    /** Record a delivery whose report has no rows as skipped rather than send an empty file. */
    skipEmpty: p.boolean().default(false),
    paused: p.boolean().default(false),
    /** The next due time of the cadence; null while paused. */
    nextRunAt: p.datetime().nullable(),
    createdBy: () => p.manyToOne(StaffMember).mapToPk().fieldName('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export class InsightsSchedule extends InsightsScheduleSchema.class {}
InsightsScheduleSchema.setClass(InsightsSchedule);
