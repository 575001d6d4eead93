import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { ApiError } from '../../common/errors/api-error.js';
import { AppConfig } from '../../infra/config/app-config.js';
import { PasswordHasher } from '../../infra/crypto/password-hasher.js';
import { randomToken, sha256Hex } from '../../infra/crypto/secrets.js';
import { DashboardPrincipals } from '../dashboard/dashboard-principals.js';
import { AdminTokenService } from '../dashboard/admin-token.service.js';
import type { Transport } from '../entities/session.entity.js';
import {
  isWellFormedRefreshToken,
  newRefreshToken,
  replayRevokesSession,
  rotateRefreshToken,
  settleRefresh,
  type RefreshOutcome,
} from '../refresh-tokens.js';
import { csrfHash, type IssuedSession } from '../session.service.js';
import { REFRESH_TOKEN_TTL_SECONDS } from '../token-lifetimes.js';
import { normalizeStaffEmail } from './staff-members.service.js';
import { StaffSignInLimiter } from './staff-sign-in-limiter.js';

/** What a staff sign-in or refresh issues: a storefront session's pair, without scopes (permissions are read per request). */
export type IssuedStaffSession = Omit<IssuedSession, 'scopes'>;

export interface StaffSignIn {
  storeId: string;
  email: string;
  password: string;
  transport: Transport;
}

interface StaffSessionRow {
  session_id: string;
  transport: Transport;
}

interface RefreshLookupRow extends StaffSessionRow {
  token_id: string;
  over: boolean;
  consumed_seconds_ago: number | null;
}

type ConsumedToken = RefreshOutcome<StaffSessionRow, 'INVALID_REFRESH_TOKEN' | 'REFRESH_TOKEN_REUSED'>;

/** The storefront's wording names an API key, which the dashboard has none of. */
const INVALID_REFRESH_TOKEN_MESSAGE = {
  en: 'The refresh token is not valid: it is unknown, expired, or its session has ended. Sign in again.',
  ar: 'رمز التحديث غير صالح: فهو غير معروف أو منتهي الصلاحية أو انتهت جلسته. سجّل الدخول مرة أخرى.',
};

/**
 * Staff sessions of the dashboard: sign-in with email and password, refresh and sign-out. The same
 * rules as the storefront's sessions: refresh tokens are single use and consumed by one conditional
 * UPDATE (of any number of concurrent refreshes exactly one wins), a replay is refused, and past the
 * grace window a replay revokes the whole session.
 */
@Injectable()
export class StaffSessions {
  constructor(
    private readonly em: EntityManager,
    private readonly hasher: PasswordHasher,
    private readonly limiter: StaffSignInLimiter,
    private readonly tokens: AdminTokenService,
    private readonly principals: DashboardPrincipals,
    private readonly config: AppConfig,
  ) {}

  /**
   * An unknown store, an unknown or removed member and a wrong password all answer the same
   * invalid_credentials after the same argon2id work; failures count against the address and the client.
   */
  async signIn(input: StaffSignIn, clientAddress: string): Promise<IssuedStaffSession> {
    const email = normalizeStaffEmail(input.email);
    const attempt = await this.limiter.begin(input.storeId, email, clientAddress);
    const { rows } = await sql<{ id: string; password_hash: string }>`
      select id, password_hash from staff_members
      where store_id = ${input.storeId} and email_normalized = ${email} and removed_at is null`.execute(this.em.getKysely());
    const member = rows[0];
    const check = member
      ? await this.hasher.verify(input.password, member.password_hash)
      : await this.hasher.verifyAgainstNothing(input.password);
    if (!member || !check.valid) throw new ApiError('INVALID_CREDENTIALS');
    await this.limiter.release(attempt);
    if (check.needsRehash) {
      const rehashed = await this.hasher.hash(input.password);
      await sql`update staff_members set password_hash = ${rehashed}, updated_at = now() where id = ${member.id}`.execute(
        this.em.getKysely(),
      );
    }

    const refreshToken = newRefreshToken();
    // One statement. The member's row is share-locked, so a removal racing the sign-in either waits
    // for this session (and revokes it) or has committed first (and no session is made).
    const { rows: created } = await sql<StaffSessionRow & { refresh_expires_at: Date }>`
      with member as (
        select id, store_id from staff_members where id = ${member.id} and removed_at is null for share
      ), session as (
        insert into staff_sessions (store_id, staff_member_id, transport)
        select store_id, id, ${input.transport} from member
        returning id, transport
      ), token as (
        insert into staff_refresh_tokens (session_id, token_hash, expires_at)
        select id, ${sha256Hex(refreshToken)}, now() + make_interval(secs => ${REFRESH_TOKEN_TTL_SECONDS}) from session
        returning expires_at
      )
      select s.id as session_id, s.transport, t.expires_at as refresh_expires_at from session s, token t`.execute(this.em.getKysely());
    if (created.length === 0) throw new ApiError('INVALID_CREDENTIALS');
    return this.issue(created[0], refreshToken, new Date(created[0].refresh_expires_at));
  }

  async refresh(presentedToken: string | undefined): Promise<IssuedStaffSession> {
    if (!isWellFormedRefreshToken(presentedToken)) throw invalidRefreshToken();
    const outcome = await this.consume(sha256Hex(presentedToken));
    return settleRefresh(outcome, { issue: (...args) => this.issue(...args), revoke: (...args) => this.revoke(...args) }, (code) =>
      code === 'INVALID_REFRESH_TOKEN' ? invalidRefreshToken() : new ApiError(code),
    );
  }

  /** Ends the session: its access token stops working on the next request, on every instance. Idempotent. */
  async signOut(sessionId: string): Promise<void> {
    await this.revoke(sessionId, 'sign_out');
  }

  private async revoke(sessionId: string, reason: string): Promise<void> {
    await sql`
      update staff_sessions set revoked_at = now(), revoked_reason = ${reason}
      where id = ${sessionId} and revoked_at is null`.execute(this.em.getKysely());
    await this.principals.publish(`session:${sessionId}`);
  }

  private consume(tokenHash: string): Promise<ConsumedToken> {
    return this.em.fork().transactional(async (em): Promise<ConsumedToken> => {
      const db = em.getKysely();
      const {
        rows: [row],
      } = await sql<RefreshLookupRow>`
        select t.id as token_id, s.id as session_id, s.transport,
               s.revoked_at is not null or m.removed_at is not null or t.expires_at <= now() as over,
               extract(epoch from now() - t.consumed_at)::float8 as consumed_seconds_ago
        from staff_refresh_tokens t
        join staff_sessions s on s.id = t.session_id
        join staff_members m on m.id = s.staff_member_id
        where t.token_hash = ${tokenHash}`.execute(db);
      if (!row || row.over) return { kind: 'refused', code: 'INVALID_REFRESH_TOKEN' };
      if (row.consumed_seconds_ago !== null) {
        return replayRevokesSession(row.consumed_seconds_ago, this.config.REFRESH_REUSE_GRACE_SECONDS)
          ? { kind: 'reused', sessionId: row.session_id }
          : { kind: 'refused', code: 'REFRESH_TOKEN_REUSED' };
      }

      const next = await rotateRefreshToken(
        db,
        { tokens: 'staff_refresh_tokens', sessions: 'staff_sessions' },
        { tokenId: row.token_id, sessionId: row.session_id },
      );
      if (!next) return { kind: 'refused', code: 'REFRESH_TOKEN_REUSED' };
      return { kind: 'issued', session: row, ...next };
    });
  }

  private async issue(session: StaffSessionRow, refreshToken: string, refreshTokenExpiresAt: Date): Promise<IssuedStaffSession> {
    const csrfToken = session.transport === 'cookie' ? randomToken(24) : undefined;
    const access = await this.tokens.signStaff(session.session_id, session.transport, csrfToken ? csrfHash(csrfToken) : undefined);
    return {
      sessionId: session.session_id,
      transport: session.transport,
      accessToken: access.token,
      accessTokenExpiresAt: access.expiresAt,
      refreshToken,
      refreshTokenExpiresAt,
      csrfToken,
    };
  }
}

function invalidRefreshToken(): ApiError {
  return new ApiError('INVALID_REFRESH_TOKEN', { message: INVALID_REFRESH_TOKEN_MESSAGE });
}
