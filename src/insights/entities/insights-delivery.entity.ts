import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';
import { InsightsSchedule } from './insights-schedule.entity.js';

export const DELIVERY_STATUSES = ['queued', 'running', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const DELIVERY_TRIGGERS = ['schedule', 'manual'] as const;

/** One due time of one schedule: unique, so that it is delivered once however many instances see it due. */
const InsightsDeliverySchema = defineEntity({
  name: 'InsightsDelivery',
  tableName: 'insights_deliveries',
  uniques: [{ properties: ['schedule', 'dueAt'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    schedule: () => p.manyToOne(InsightsSchedule).mapToPk().deleteRule('cascade'),
    dueAt: p.datetime(),
    trigger: p.enum(DELIVERY_TRIGGERS),
    status: p.enum(DELIVERY_STATUSES).default('queued'),
    attempts: p.integer().default(0),
    rows: p.bigint().nullable(),
    bytes: p.bigint().nullable(),
    /** Recipients whose email has gone out: a delivery tried again mails only the others. */
    sentTo: p.array<string>().columnType('text[]').defaultRaw(`'{}'`),
    error: p.json<{ code: string; message_en: string; message_ar: string }>().nullable(),
    createdAt: createdAt(),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
  },
});

export class InsightsDelivery extends InsightsDeliverySchema.class {}
InsightsDeliverySchema.setClass(InsightsDelivery);
