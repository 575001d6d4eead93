import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../stores/entities/store.entity.js';
import type { Locale } from '../../common/locale.js';
import { createdAt } from '../../infra/database/timestamps.js';

export const ONE_TIME_CODE_PURPOSES = ['sign_in', 'register'] as const;
export type OneTimeCodePurpose = (typeof ONE_TIME_CODE_PURPOSES)[number];

/** The shopper a verified code creates when the address has none yet. */
export interface PendingRegistration {
  /** As the shopper typed it (trimmed); the code row holds the normalised form. */
  email: string;
  /** argon2id PHC string; null for a shopper who signs in with codes only. */
  passwordHash: string | null;
  firstName: string;
  lastName: string;
  locale: Locale;
  marketingOptIn: boolean;
}

const OneTimeCodeSchema = defineEntity({
  name: 'OneTimeCode',
  tableName: 'one_time_codes',
  indexes: [{ properties: ['store', 'emailNormalized', 'createdAt'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    emailNormalized: p.string().length(254),
    /** HMAC-SHA256 (hex) of store, address and code under a key derived from the master key. */
    codeHash: p.string().length(64),
    purpose: p.enum(ONE_TIME_CODE_PURPOSES),
    registration: p.json<PendingRegistration>().nullable(),
    attempts: p.integer().default(0),
    createdAt: createdAt(),
    expiresAt: p.datetime(),
    consumedAt: p.datetime().nullable(),
  },
});

export class OneTimeCode extends OneTimeCodeSchema.class {}
OneTimeCodeSchema.setClass(OneTimeCode);
