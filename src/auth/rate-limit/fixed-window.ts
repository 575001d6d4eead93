import type { ThrottlerStorage } from '@nestjs/throttler';

export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** Fixed windows aligned to the clock: a per-minute limit resets at the start of every minute. */
export function windowOf(ttlMs: number, now = Date.now()): { index: number; endsAt: number } {
  const index = Math.floor(now / ttlMs);
  return { index, endsAt: (index + 1) * ttlMs };
}

export function recordFor(hits: number, limit: number, endsAt: number, now = Date.now()): ThrottlerStorageRecord {
  const secondsLeft = Math.max(1, Math.ceil((endsAt - now) / 1000));
  const isBlocked = hits > limit;
  return { totalHits: hits, timeToExpire: secondsLeft, isBlocked, timeToBlockExpire: isBlocked ? secondsLeft : 0 };
}

/** The counter behind the per-key limit; memory by default, Redis when instances must share counts. */
export type RateLimitStore = ThrottlerStorage;
