import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../database/timestamps.js';

/**
 * One use of an Idempotency-Key: who used it (`scope`, e.g. `checkout:<session id>`), a hash of what
 * the request asked for, and the record it produced. Written first in the producing transaction,
 * before that record exists; the caller's own tables hold the references.
 */
const IdempotencyClaimSchema = defineEntity({
  name: 'IdempotencyClaim',
  tableName: 'idempotency_claims',
  primaryKeys: ['storeId', 'scope', 'key'],
  properties: {
    storeId: p.uuid().primary(),
    scope: p.string().length(100).primary(),
    key: p.string().length(255).primary(),
    requestHash: p.string().length(64),
    resultId: p.uuid(),
    createdAt: createdAt(),
  },
});

export class IdempotencyClaim extends IdempotencyClaimSchema.class {}
IdempotencyClaimSchema.setClass(IdempotencyClaim);
