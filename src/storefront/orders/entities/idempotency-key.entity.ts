import { defineEntity, p } from '@mikro-orm/core';
import { Session } from '../../../auth/entities/session.entity.js';
import { Store } from '../../../stores/entities/store.entity.js';
import { Order } from './order.entity.js';
import { createdAt } from '../../../infra/database/timestamps.js';

/**
 * A placed order per (session, Idempotency-Key). The row is written first in the placing transaction,
 * before the order exists, so its foreign key to the order is checked at commit.
 */
const IdempotencyKeySchema = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  primaryKeys: ['store', 'session', 'key'],
  properties: {
    store: () => p.manyToOne(Store).mapToPk().primary(),
    session: () => p.manyToOne(Session).mapToPk().primary(),
    key: p.string().length(255).primary(),
    requestHash: p.string().length(64),
    order: () => p.manyToOne(Order).mapToPk().deferMode('deferred'),
    createdAt: createdAt(),
  },
});

export class IdempotencyKey extends IdempotencyKeySchema.class {}
IdempotencyKeySchema.setClass(IdempotencyKey);
