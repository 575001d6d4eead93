import { defineEntity, p } from '@mikro-orm/core';
import { STAFF_ROLES } from '../../common/permissions.js';
import { createdAt, updatedAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';

/** A member of one store's staff, who signs in to the dashboard (contract section 7). */
const StaffMemberSchema = defineEntity({
  name: 'StaffMember',
  tableName: 'staff_members',
  uniques: [{ properties: ['store', 'emailNormalized'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    email: p.string().length(254),
    /** Lower-cased and trimmed: the member's identity within the store. */
    emailNormalized: p.string().length(254),
    name: p.string().length(200),
    role: p.enum(STAFF_ROLES),
    /** Role `custom` only: the permissions given; empty for every other role, whose permissions are the role's. */
    permissions: p.array().columnType('text[]'),
    /** argon2id PHC string. */
    passwordHash: p.text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** Set by `staff remove`: the member can no longer sign in and their sessions end. */
    removedAt: p.datetime().nullable(),
  },
});

export class StaffMember extends StaffMemberSchema.class {}
StaffMemberSchema.setClass(StaffMember);
