import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../infra/database/timestamps.js';

const SigningKeySchema = defineEntity({
  name: 'SigningKey',
  tableName: 'signing_keys',
  properties: {
    kid: p.string().length(64).primary(),
    algorithm: p.string().length(16),
    publicJwk: p.json<Record<string, unknown>>(),
    /** Private JWK sealed with the service's master key (AES-256-GCM). */
    privateJwkSealed: p.text(),
    createdAt: createdAt(),
    /** Set when a newer key takes over signing; the key still verifies until its last token expires. */
    retiredAt: p.datetime().nullable(),
  },
});

export class SigningKey extends SigningKeySchema.class {}
SigningKeySchema.setClass(SigningKey);
