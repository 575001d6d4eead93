import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';
import { TRANSPORTS } from './session.entity.js';
import { StaffMember } from './staff-member.entity.js';

/** A staff member's dashboard session, from sign-in until sign-out, removal or reuse detection revokes it. */
const StaffSessionSchema = defineEntity({
  name: 'StaffSession',
  tableName: 'staff_sessions',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    staffMember: () => p.manyToOne(StaffMember).mapToPk().index(),
    transport: p.enum(TRANSPORTS),
    createdAt: createdAt(),
    revokedAt: p.datetime().nullable(),
    revokedReason: p.string().length(40).nullable(),
  },
});

export class StaffSession extends StaffSessionSchema.class {}
StaffSessionSchema.setClass(StaffSession);
