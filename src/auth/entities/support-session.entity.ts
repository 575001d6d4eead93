import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../stores/entities/store.entity.js';

/**
 * A support agent's read-only look at one store's dashboard, opened by an operator. Every one is
 * kept: who, why, which store, when it opened, when it expires or was closed.
 */
const SupportSessionSchema = defineEntity({
  name: 'SupportSession',
  tableName: 'support_sessions',
  indexes: [{ properties: ['store', 'openedAt'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    agentEmail: p.string().length(254),
    reason: p.string().length(500),
    openedAt: p.datetime().defaultRaw('now()'),
    expiresAt: p.datetime(),
    closedAt: p.datetime().nullable(),
  },
});

export class SupportSession extends SupportSessionSchema.class {}
SupportSessionSchema.setClass(SupportSession);
