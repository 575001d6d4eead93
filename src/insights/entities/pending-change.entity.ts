import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../infra/database/timestamps.js';

/** Something that happened and is not in the rollups yet, recorded by a trigger whatever wrote it. */
const PendingChangeSchema = defineEntity({
  name: 'PendingChange',
  tableName: 'insights_pending',
  indexes: [{ properties: ['dueAt'] }, { properties: ['storeId', 'createdAt'] }],
  properties: {
    id: p.bigint().primary().autoincrement(),
    storeId: p.uuid(),
    kind: p.text(),
    /** The order, refund, payment or search it is about. */
    refId: p.uuid().nullable(),
    /** The storefront events it is about: those one statement wrote for the store. */
    eventIds: p.array().columnType('bigint[]').nullable(),
    dueAt: p.datetime().defaultRaw('now()'),
    createdAt: createdAt(),
  },
});

export class PendingChange extends PendingChangeSchema.class {}
PendingChangeSchema.setClass(PendingChange);
