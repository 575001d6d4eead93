import { defineEntity, p } from '@mikro-orm/core';
import { ApiKey } from '../../stores/entities/api-key.entity.js';
import { Store } from '../../stores/entities/store.entity.js';

export const TRANSPORTS = ['bearer', 'cookie'] as const;
export type Transport = (typeof TRANSPORTS)[number];

const SessionSchema = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    /** The key that minted the session; only it can refresh the session. */
    apiKey: () => p.manyToOne(ApiKey).mapToPk().index(),
    scopes: p.array().columnType('text[]'),
    transport: p.enum(TRANSPORTS),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
    revokedReason: p.string().length(40).nullable(),
  },
});

export class Session extends SessionSchema.class {}
SessionSchema.setClass(Session);
