import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { ApiError } from '../../common/errors/api-error.js';
import { randomToken } from '../../infra/crypto/secrets.js';
import { AdminTokenService } from '../dashboard/admin-token.service.js';
import { DashboardPrincipals } from '../dashboard/dashboard-principals.js';
import { csrfHash } from '../session.service.js';
import { SUPPORT_DEFAULT_MINUTES, SUPPORT_MAX_MINUTES } from './support-limits.js';

export interface OpenedSupportSession {
  supportSession: { id: string; storeId: string; agent: string; expiresAt: string };
  /** Shown once: a dashboard access token that expires with the session. Only the session is recorded. */
  accessToken: string;
}

/** A support session moved into a browser's cookies: a token bound to `csrfToken`, expiring with the session. */
export interface BrowserSupportSession {
  storeId: string;
  accessToken: string;
  csrfToken: string;
  expiresAt: Date;
}

export interface RecordedSupportSession {
  id: string;
  storeId: string;
  agent: string;
  reason: string;
  openedAt: string;
  expiresAt: string;
  closedAt: string | null;
  status: 'open' | 'expired' | 'closed';
}

interface SupportRow {
  id: string;
  store_id: string;
  agent_email: string;
  reason: string;
  opened_at: Date;
  expires_at: Date;
  closed_at: Date | null;
  expired: boolean;
}

export class SupportSessionError extends Error {
  constructor(
    readonly code: 'STORE_NOT_FOUND' | 'SUPPORT_SESSION_NOT_FOUND',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Support sessions: an operator lets a support agent read one store's dashboard for a while, for a
 * stated reason. The session reads what the store's plan is entitled to and writes nothing. Every
 * one is recorded; closing one ends it on the next request, on every instance.
 */
@Injectable()
export class SupportSessions {
  constructor(
    private readonly em: EntityManager,
    private readonly tokens: AdminTokenService,
    private readonly principals: DashboardPrincipals,
  ) {}

  async open(storeId: string, agent: string, reason: string, minutes = SUPPORT_DEFAULT_MINUTES): Promise<OpenedSupportSession> {
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > SUPPORT_MAX_MINUTES) {
      throw new RangeError(`minutes must be a whole number from 1 to ${SUPPORT_MAX_MINUTES}`);
    }
    // Whole seconds, so the token's exp (seconds) is exactly the recorded expiry.
    const { rows } = await sql<SupportRow>`
      insert into support_sessions (store_id, agent_email, reason, expires_at)
      select id, ${agent.trim().toLowerCase()}, ${reason.trim()}, date_trunc('second', now()) + make_interval(mins => ${minutes})
      from stores where id = ${storeId}
      returning *`.execute(this.em.getKysely());
    if (rows.length === 0) throw new SupportSessionError('STORE_NOT_FOUND', `no store with id ${storeId}`);
    const session = rows[0];
    const expiresAt = new Date(session.expires_at);
    const { token } = await this.tokens.signSupport(session.id, expiresAt);
    return {
      supportSession: { id: session.id, storeId: session.store_id, agent: session.agent_email, expiresAt: expiresAt.toISOString() },
      accessToken: token,
    };
  }

  /**
   * The agent's browser entry: the access token the command line printed, checked (a support session's,
   * still open) and signed again with a CSRF binding, so that the dashboard can carry it in HttpOnly
   * cookies. Refused as `unauthenticated` or `token_expired`, like the token itself would be.
   */
  async forBrowser(accessToken: string): Promise<BrowserSupportSession> {
    const claims = await this.tokens.verify(accessToken);
    const identity = claims.kind === 'support' ? await this.principals.resolve(claims) : null;
    if (!identity?.support) throw new ApiError('UNAUTHENTICATED');
    const csrfToken = randomToken(24);
    const expiresAt = new Date(identity.support.expiresAt);
    const { token } = await this.tokens.signSupport(claims.sessionId, expiresAt, csrfHash(csrfToken));
    return { storeId: identity.storeId, accessToken: token, csrfToken, expiresAt };
  }

  /** Every support session of the store, newest first. */
  async list(storeId: string): Promise<RecordedSupportSession[]> {
    const { rows } = await sql<SupportRow>`
      select *, expires_at <= now() as expired from support_sessions
      where store_id = ${storeId} order by opened_at desc, id`.execute(this.em.getKysely());
    return rows.map((row) => ({
      id: row.id,
      storeId: row.store_id,
      agent: row.agent_email,
      reason: row.reason,
      openedAt: new Date(row.opened_at).toISOString(),
      expiresAt: new Date(row.expires_at).toISOString(),
      closedAt: row.closed_at ? new Date(row.closed_at).toISOString() : null,
      status: row.closed_at ? 'closed' : row.expired ? 'expired' : 'open',
    }));
  }

  /** Ends the session now (a second close keeps the first time). */
  async close(sessionId: string): Promise<{ id: string; closedAt: string }> {
    const { rows } = await sql<{ id: string; closed_at: Date }>`
      update support_sessions set closed_at = coalesce(closed_at, now())
      where id = ${sessionId}
      returning id, closed_at`.execute(this.em.getKysely());
    if (rows.length === 0) throw new SupportSessionError('SUPPORT_SESSION_NOT_FOUND', `no support session with id ${sessionId}`);
    await this.principals.publish(`session:${sessionId}`);
    return { id: rows[0].id, closedAt: new Date(rows[0].closed_at).toISOString() };
  }
}
