import { randomToken } from '../infra/crypto/secrets.js';

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
