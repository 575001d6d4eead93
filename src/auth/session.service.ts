import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { createHash } from 'node:crypto';
import { ApiError } from '../common/errors/api-error.js';
import { AppConfig } from '../infra/config/app-config.js';
import { StorefrontEventRecorder } from '../storefront/events/storefront-event-recorder.js';
import { randomToken, sha256Hex } from '../infra/crypto/secrets.js';
import {
  isWellFormedRefreshToken,
  newRefreshToken,
  replayRevokesSession,
  rotateRefreshToken,
  settleRefresh,
  type RefreshOutcome,
} from './refresh-tokens.js';
import type { ResolvedApiKey } from '../stores/api-key.service.js';
import { isScope, type Scope } from '../common/scopes.js';
import type { Transport } from './entities/session.entity.js';
import { SessionWriter } from './session-writer.js';
import { TokenService } from './token.service.js';

export interface IssuedSession {
  sessionId: string;
  scopes: Scope[];
  transport: Transport;
  accessToken: string;
  accessTokenExpiresAt: Date;
  refreshToken: string;
  refreshTokenExpiresAt: Date;
  /** Cookie transport only: the double-submit token the client echoes in `X-CSRF-Token`. */
  csrfToken?: string;
}

interface SessionRow {
  session_id: string;
  store_id: string;
  scopes: Scope[];
  transport: Transport;
}

interface RefreshLookupRow extends SessionRow {
  token_id: string;
  api_key_id: string;
  key_revoked: boolean;
  session_revoked: boolean;
  expired: boolean;
  consumed_seconds_ago: number | null;
}

type ConsumedToken = RefreshOutcome<SessionRow, 'INVALID_REFRESH_TOKEN' | 'INVALID_API_KEY' | 'REFRESH_TOKEN_REUSED'>;

export function csrfHash(csrfToken: string): string {
  return createHash('sha256').update(csrfToken).digest('base64url').slice(0, 22);
}

/**
 * Sessions and their refresh tokens. The hot paths are single SQL statements: mints are written by
 * the batching SessionWriter, and a refresh consumes its token with one conditional UPDATE, so of many concurrent
 * refreshes with one token exactly one can win.
 */
@Injectable()
export class SessionService {
  constructor(
    private readonly em: EntityManager,
    private readonly tokens: TokenService,
    private readonly writer: SessionWriter,
    private readonly config: AppConfig,
    private readonly events: StorefrontEventRecorder,
  ) {}

  async mint(key: ResolvedApiKey, transport: Transport, requestedScopes?: string[]): Promise<IssuedSession> {
    const scopes = narrowScopes(key.scopes, requestedScopes);
    const refreshToken = newRefreshToken();
    const row = await this.writer.create({ apiKeyId: key.id, scopes, transport, refreshTokenHash: sha256Hex(refreshToken) });
    if (!row) throw new ApiError('INVALID_API_KEY');
    this.events.record({ storeId: row.store_id, sessionId: row.session_id, kind: 'session_started', occurredAt: row.created_epoch });
    return this.issue(row, refreshToken, new Date(row.refresh_expires_at));
  }

  async refresh(key: ResolvedApiKey, presentedToken: string | undefined): Promise<IssuedSession> {
    if (!isWellFormedRefreshToken(presentedToken)) throw new ApiError('INVALID_REFRESH_TOKEN');
    const outcome = await this.consume(key, sha256Hex(presentedToken));
    return settleRefresh(
      outcome,
      { issue: (...args) => this.issue(...args), revoke: (...args) => this.revoke(...args) },
      (code) => new ApiError(code),
    );
  }

  async revoke(sessionId: string, reason: string): Promise<void> {
    await sql`update sessions set revoked_at = now(), revoked_reason = ${reason} where id = ${sessionId} and revoked_at is null`.execute(
      this.em.getKysely(),
    );
  }

  private consume(key: ResolvedApiKey, tokenHash: string): Promise<ConsumedToken> {
    return this.em.fork().transactional(async (em): Promise<ConsumedToken> => {
      const db = em.getKysely();
      const {
        rows: [row],
      } = await sql<RefreshLookupRow>`
        select t.id as token_id, s.id as session_id, s.store_id, s.scopes, s.transport, s.api_key_id,
               k.revoked_at is not null as key_revoked,
               s.revoked_at is not null as session_revoked,
               t.expires_at <= now() as expired,
               extract(epoch from now() - t.consumed_at)::float8 as consumed_seconds_ago
        from refresh_tokens t
        join sessions s on s.id = t.session_id
        join api_keys k on k.id = s.api_key_id
        where t.token_hash = ${tokenHash}`.execute(db);
      if (!row || row.api_key_id !== key.id) return { kind: 'refused', code: 'INVALID_REFRESH_TOKEN' };
      if (row.key_revoked) return { kind: 'refused', code: 'INVALID_API_KEY' };
      if (row.session_revoked || row.expired) return { kind: 'refused', code: 'INVALID_REFRESH_TOKEN' };
      if (row.consumed_seconds_ago !== null) return this.replay(row);

      const next = await rotateRefreshToken(
        db,
        { tokens: 'refresh_tokens', sessions: 'sessions' },
        { tokenId: row.token_id, sessionId: row.session_id },
      );
      if (!next) return { kind: 'refused', code: 'REFRESH_TOKEN_REUSED' };
      return { kind: 'issued', session: row, ...next };
    });
  }

  /** RFC 9700 reuse detection, softened for racing tabs: inside the grace window a replay only fails. */
  private replay(row: RefreshLookupRow): ConsumedToken {
    if (!replayRevokesSession(row.consumed_seconds_ago ?? 0, this.config.REFRESH_REUSE_GRACE_SECONDS)) {
      return { kind: 'refused', code: 'REFRESH_TOKEN_REUSED' };
    }
    return { kind: 'reused', sessionId: row.session_id };
  }

  private async issue(session: SessionRow, refreshToken: string, refreshTokenExpiresAt: Date): Promise<IssuedSession> {
    const csrfToken = session.transport === 'cookie' ? randomToken(24) : undefined;
    const access = await this.tokens.sign({
      sessionId: session.session_id,
      storeId: session.store_id,
      scopes: session.scopes,
      transport: session.transport,
      csrfHash: csrfToken ? csrfHash(csrfToken) : undefined,
    });
    return {
      sessionId: session.session_id,
      scopes: session.scopes,
      transport: session.transport,
      accessToken: access.token,
      accessTokenExpiresAt: access.expiresAt,
      refreshToken,
      refreshTokenExpiresAt,
      csrfToken,
    };
  }
}

/** Interface part 5.6: a mint may only narrow the key's scopes; unknown names and empty lists are refused. */
export function narrowScopes(keyScopes: readonly Scope[], requested: string[] | undefined): Scope[] {
  if (requested === undefined) return [...keyScopes];
  const invalid = requested.filter((scope) => !isScope(scope) || !keyScopes.includes(scope));
  if (requested.length === 0 || invalid.length > 0) {
    throw new ApiError('INVALID_SCOPE', { details: { invalidScopes: invalid, allowedScopes: keyScopes } });
  }
  return keyScopes.filter((scope) => requested.includes(scope));
}
