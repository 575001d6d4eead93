import { defineEntity, p } from '@mikro-orm/core';
import { ApiKey } from '../../stores/entities/api-key.entity.js';
import { Shopper } from '../../account/entities/shopper.entity.js';
import { Store } from '../../stores/entities/store.entity.js';
import { createdAt } from '../../infra/database/timestamps.js';

export const TRANSPORTS = ['bearer', 'cookie'] as const;
export type Transport = (typeof TRANSPORTS)[number];

const SessionSchema = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  checks: [{ name: 'sessions_api_key_or_history', expression: "api_key_id is not null or revoked_reason = 'history'" }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    /** The key that minted the session; only it can refresh the session. Null only for a history session (historySessionInserts). */
    apiKey: () => p.manyToOne(ApiKey).mapToPk().nullable().deleteRule('no action').index(),
    scopes: p.array().columnType('text[]'),
    transport: p.enum(TRANSPORTS),
    createdAt: createdAt(),
    revokedAt: p.datetime().nullable(),
    /** The shopper signed in on this session; null while anonymous. */
    shopper: () => p.manyToOne(Shopper).mapToPk().nullable().index(),
    shopperAttachedAt: p.datetime().nullable(),
    revokedReason: p.string().length(40).nullable(),
  },
});

export class Session extends SessionSchema.class {}
SessionSchema.setClass(Session);
