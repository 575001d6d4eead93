import { sql, type Kysely } from 'kysely';
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
