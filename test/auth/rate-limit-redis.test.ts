import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { RATE_LIMIT_STORE } from '../../src/auth/rate-limit/rate-limit-store.module.js';
import { RedisRateLimitStore } from '../../src/auth/rate-limit/redis-rate-limit.store.js';
import { issueKey, mint, refresh, type TestStore } from '../support/fixtures.js';
import { useTestApp, useTestApps } from '../support/harness.js';
import { parse } from '../support/responses.js';
import { clockAt, expectAllowed, expectLimited, MINUTE } from './support.js';

describe('per-key rate limit shared through Redis (REDIS_URL)', () => {
  const redisUrl = inject('redisUrl');
  const [a, b] = useTestApps(2, { REDIS_URL: redisUrl });
  let store: TestStore;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    expect(await redis.ping()).toBe('PONG');
    store = await a.store();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await redis?.quit();
  });

  it('uses the Redis store when REDIS_URL is set', () => {
    expect(a.app.get(RATE_LIMIT_STORE)).toBeInstanceOf(RedisRateLimitStore);
    expect(b.app.get(RATE_LIMIT_STORE)).toBeInstanceOf(RedisRateLimitStore);
  });

  it('two instances share one count: 2 mints on A and 2 on B use a limit of 4, the 5th is refused on either', async () => {
    const key = await issueKey(a.app, store.storeId, { rateLimitPerMinute: 4 });
    clockAt(1, 15);
    expectAllowed(await mint(a.app, key.key), 201, 4, 3);
    expectAllowed(await mint(b.app, key.key), 201, 4, 2);
    expectAllowed(await mint(a.app, key.key), 201, 4, 1);
    expectAllowed(await mint(b.app, key.key), 201, 4, 0);
    expectLimited(await mint(a.app, key.key), 45);
    expectLimited(await mint(b.app, key.key), 45);

    // The counter lives in Redis under the key's id and this minute's window, expiring with it.
    const window = Math.floor(Date.now() / MINUTE);
    const counterKey = `ratelimit:api-key:${key.id}:${window}`;
    expect(await redis.get(counterKey)).toBe('6');
    expect(await redis.pexpiretime(counterKey)).toBe((window + 1) * MINUTE + 1000);

    clockAt(2, 0);
    expectAllowed(await mint(b.app, key.key), 201, 4, 3);
  });

  it('refreshes on either instance count against the same shared limit', async () => {
    const key = await issueKey(a.app, store.storeId, { rateLimitPerMinute: 3 });
    clockAt(3, 30);
    const minted = await mint(a.app, key.key);
    expectAllowed(minted, 201, 3, 2);
    const refreshed = await refresh(b.app, key.key, parse(minted).refreshToken);
    expectAllowed(refreshed, 200, 3, 1);
    expectAllowed(await mint(a.app, key.key), 201, 3, 0);
    expectLimited(await refresh(b.app, key.key, parse(refreshed).refreshToken), 30);
  });

  it('other keys keep their own shared count', async () => {
    const busy = await issueKey(a.app, store.storeId, { rateLimitPerMinute: 1 });
    const quiet = await issueKey(a.app, store.storeId, { rateLimitPerMinute: 1 });
    clockAt(4, 0);
    expectAllowed(await mint(a.app, busy.key), 201, 1, 0);
    expectLimited(await mint(b.app, busy.key), 60);
    expectAllowed(await mint(b.app, quiet.key), 201, 1, 0);
  });
});

describe('per-key rate limit when Redis is unreachable', () => {
  // A real fault: nothing listens on port 1, so every connection is refused.
  const t = useTestApp({ REDIS_URL: 'redis://127.0.0.1:1' });
  let store: TestStore;

  beforeAll(async () => {
    store = await t.store();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps serving and still enforces the limit, counting in the instance (no 500)', async () => {
    const key = await issueKey(t.app, store.storeId, { rateLimitPerMinute: 2 });
    clockAt(20, 10);
    expectAllowed(await mint(t.app, key.key), 201, 2, 1);
    expectAllowed(await mint(t.app, key.key), 201, 2, 0);
    expectLimited(await mint(t.app, key.key), 50);
  });
});
