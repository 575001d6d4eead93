import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../infra/database/timestamps.js';
import { StaffSession } from './staff-session.entity.js';

/** The single-use refresh tokens of staff sessions, as `refresh_tokens` holds the storefront's. */
const StaffRefreshTokenSchema = defineEntity({
  name: 'StaffRefreshToken',
  tableName: 'staff_refresh_tokens',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    session: () => p.manyToOne(StaffSession).mapToPk().index(),
    /** SHA-256 of the opaque token. */
    tokenHash: p.string().length(64).unique(),
    createdAt: createdAt(),
    expiresAt: p.datetime(),
    consumedAt: p.datetime().nullable(),
  },
});

export class StaffRefreshToken extends StaffRefreshTokenSchema.class {}
StaffRefreshTokenSchema.setClass(StaffRefreshToken);
