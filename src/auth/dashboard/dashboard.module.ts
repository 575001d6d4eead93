import { Module } from '@nestjs/common';
import { PasswordHasher } from '../../infra/crypto/password-hasher.js';
import { StoresModule } from '../../stores/stores.module.js';
import { SigningModule } from '../signing/signing.module.js';
import { StaffMembers } from '../staff/staff-members.service.js';
import { StaffSessions } from '../staff/staff-sessions.service.js';
import { StaffSignInLimiter } from '../staff/staff-sign-in-limiter.js';
import { SupportSessions } from '../support/support-sessions.service.js';
import { AdminTokenService } from './admin-token.service.js';
import { DashboardPrincipals } from './dashboard-principals.js';
import { StaffSignInRetentionScheduler } from '../staff/staff-sign-in-retention.scheduler.js';

/**
 * The dashboard's principals: staff members and their sessions, support sessions, their tokens and
 * the per-request principal cache. No HTTP here, so the command line and the demo use it too; the
 * routes are AuthModule's.
 */
@Module({
  imports: [StoresModule, SigningModule],
  providers: [
    PasswordHasher,
    AdminTokenService,
    DashboardPrincipals,
    StaffMembers,
    StaffSessions,
    StaffSignInLimiter,
    SupportSessions,
    StaffSignInRetentionScheduler,
  ],
  exports: [AdminTokenService, DashboardPrincipals, StaffMembers, StaffSessions, SupportSessions],
})
export class DashboardModule {}
