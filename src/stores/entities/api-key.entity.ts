import { defineEntity, p } from '@mikro-orm/core';
import { Store } from './store.entity.js';
import { createdAt } from '../../infra/database/timestamps.js';

const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk().index(),
    /** SHA-256 of the whole key; the key itself is never stored. */
    keyHash: p.string().length(64).unique(),
    /** First characters of the key, so an operator can tell keys apart. */
    displayPrefix: p.string().length(16),
    scopes: p.array().columnType('text[]'),
    rateLimitPerMinute: p.integer(),
    createdAt: createdAt(),
    revokedAt: p.datetime().nullable(),
  },
});

export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);
