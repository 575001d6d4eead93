import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../infra/database/timestamps.js';

/**
 * One failed dashboard sign-in. Counted per (store, address) and per client address. The store is
 * not a foreign key: a sign-in naming a store that does not exist fails, and counts, like any other.
 */
const StaffSignInFailureSchema = defineEntity({
  name: 'StaffSignInFailure',
  tableName: 'staff_sign_in_failures',
  indexes: [
    { name: 'staff_sign_in_failures_account_index', properties: ['storeId', 'emailNormalized', 'createdAt'] },
    { name: 'staff_sign_in_failures_client_index', properties: ['clientAddress', 'createdAt'] },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    storeId: p.uuid(),
    emailNormalized: p.string().length(254),
    /** The client's IP address as the service sees it (X-Forwarded-For only with TRUST_PROXY). */
    clientAddress: p.string().length(64),
    createdAt: createdAt(),
  },
});

export class StaffSignInFailure extends StaffSignInFailureSchema.class {}
StaffSignInFailureSchema.setClass(StaffSignInFailure);
