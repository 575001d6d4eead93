import { sql, type Kysely } from 'kysely';
import { ApiError } from '../common/errors/api-error.js';
import { randomToken, sha256Hex } from '../infra/crypto/secrets.js';
import { REFRESH_TOKEN_TTL_SECONDS } from './token-lifetimes.js';

/**
 * Refresh tokens of every kind of session (storefront and dashboard): opaque, 256 bits from the
 * CSPRNG, stored as their SHA-256, single use.
 */
const REFRESH_TOKEN_PREFIX = 'rt_';
const REFRESH_TOKEN_PATTERN = /^rt_[A-Za-z0-9_-]{43}$/;

export function newRefreshToken(): string {
  return REFRESH_TOKEN_PREFIX + randomToken(32);
}

/** Checked before any lookup: anything else is a malformed token. */
export function isWellFormedRefreshToken(value: unknown): value is string {
  return typeof value === 'string' && REFRESH_TOKEN_PATTERN.test(value);
}

/**
 * RFC 9700 reuse detection, softened for racing tabs: a replay inside the grace window only fails;
 * past it, the replay revokes the whole session.
 */
export function replayRevokesSession(consumedSecondsAgo: number, graceSeconds: number): boolean {
  return consumedSecondsAgo > graceSeconds;
}

/** Where a kind of session keeps its sessions and their refresh tokens. */
export interface RefreshTables {
  tokens: 'refresh_tokens' | 'staff_refresh_tokens';
  sessions: 'sessions' | 'staff_sessions';
}

/**
 * Consumes an unused refresh token and issues the session's next one, in the caller's transaction:
 * one conditional UPDATE, so of any number of concurrent refreshes with one token exactly one wins.
 * Null when it lost: another refresh consumed the token, or the session ended meanwhile.
 */
export async function rotateRefreshToken(
  db: Kysely<any>,
  tables: RefreshTables,
  consumed: { tokenId: string; sessionId: string },
): Promise<{ refreshToken: string; refreshTokenExpiresAt: Date } | null> {
  const { rows } = await sql`
    update ${sql.table(tables.tokens)} t set consumed_at = now()
    from ${sql.table(tables.sessions)} s
    where t.id = ${consumed.tokenId} and t.consumed_at is null and s.id = t.session_id and s.revoked_at is null
    returning t.id`.execute(db);
  if (rows.length === 0) return null;
  const refreshToken = newRefreshToken();
  const {
    rows: [inserted],
  } = await sql<{ expires_at: Date }>`
    insert into ${sql.table(tables.tokens)} (session_id, token_hash, expires_at)
    values (${consumed.sessionId}, ${sha256Hex(refreshToken)}, now() + make_interval(secs => ${REFRESH_TOKEN_TTL_SECONDS}))
    returning expires_at`.execute(db);
  return { refreshToken, refreshTokenExpiresAt: new Date(inserted.expires_at) };
}

/** What presenting a refresh token came to: the session's next tokens, a replay of a spent one, or a refusal. */
export type RefreshOutcome<Session, Refusal extends string> =
  | { kind: 'issued'; session: Session; refreshToken: string; refreshTokenExpiresAt: Date }
  | { kind: 'refused'; code: Refusal }
  | { kind: 'reused'; sessionId: string };

/**
 * Settles a refresh of any kind of session: the next tokens issued; a replay past the grace ends the
 * session and is refused as reuse; anything else refused with its code (as `refusal` words it).
 */
export async function settleRefresh<Session, Issued, Refusal extends string>(
  outcome: RefreshOutcome<Session, Refusal>,
  session: {
    issue(session: Session, refreshToken: string, refreshTokenExpiresAt: Date): Promise<Issued>;
    revoke(sessionId: string, reason: string): Promise<void>;
  },
  refusal: (code: Refusal) => Error,
): Promise<Issued> {
  switch (outcome.kind) {
    case 'issued':
      return session.issue(outcome.session, outcome.refreshToken, outcome.refreshTokenExpiresAt);
    case 'reused':
      await session.revoke(outcome.sessionId, 'refresh_token_reuse');
      throw new ApiError('REFRESH_TOKEN_REUSED');
    case 'refused':
      throw refusal(outcome.code);
  }
}
