import { defineEntity, p } from '@mikro-orm/core';
import { Session } from './session.entity.js';
import { createdAt } from '../../infra/database/timestamps.js';

const RefreshTokenSchema = defineEntity({
  name: 'RefreshToken',
  tableName: 'refresh_tokens',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    session: () => p.manyToOne(Session).mapToPk().index(),
    /** SHA-256 of the opaque token. */
    tokenHash: p.string().length(64).unique(),
    createdAt: createdAt(),
    expiresAt: p.datetime(),
    consumedAt: p.datetime().nullable(),
  },
});

export class RefreshToken extends RefreshTokenSchema.class {}
RefreshTokenSchema.setClass(RefreshToken);
