import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../stores/entities/store.entity.js';
import { createdAt } from '../../infra/database/timestamps.js';

/** One failed password sign-in for an address (registered or not); the sign-in rate limit counts them. */
const SignInFailureSchema = defineEntity({
  name: 'SignInFailure',
  tableName: 'sign_in_failures',
  indexes: [{ properties: ['store', 'emailNormalized', 'createdAt'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    emailNormalized: p.string().length(254),
    createdAt: createdAt(),
  },
});

export class SignInFailure extends SignInFailureSchema.class {}
SignInFailureSchema.setClass(SignInFailure);
