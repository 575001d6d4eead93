import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { get, issueKey, mint, refresh, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { startTestApp } from '../support/test-app.js';
import { expectProblem } from '../support/problem.js';
import { parse } from '../support/responses.js';
import { clockAt, expectAllowed, expectLimited } from './support.js';

/**
 * Contract section 3: each key has its own per-minute limit, in fixed windows aligned to the clock.
 * The clock (Date only) is frozen at chosen seconds of a minute well ahead of real time, so window
 * boundaries are exact and never crossed by accident.
 */
describe('per-key rate limit (in-memory counters)', () => {
  const t = useTestApp();
  let store: TestStore;

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 2 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('allows the key’s limit per minute with decreasing X-RateLimit-Remaining, then 429 with Retry-After until the next minute', async () => {
    const key = await issueKey(t.app, store.storeId, { rateLimitPerMinute: 5 });
    clockAt(1, 10);
    for (let remaining = 4; remaining >= 0; remaining--) {
      const response = await mint(t.app, key.key);
      expectAllowed(response, 201, 5, remaining);
      expect(response.headers['x-ratelimit-reset']).toBe('50');
    }
    expectLimited(await mint(t.app, key.key), 50, 5);
    clockAt(1, 40);
    expectLimited(await mint(t.app, key.key), 20, 5);

    // The next minute starts a new count.
    clockAt(2, 0);
    expectAllowed(await mint(t.app, key.key), 201, 5, 4);
  });

  it('counts per key: another key of the same store is unaffected', async () => {
    const busy = await issueKey(t.app, store.storeId, { rateLimitPerMinute: 2 });
    const quiet = await issueKey(t.app, store.storeId, { rateLimitPerMinute: 2 });
    clockAt(3, 5);
    await mint(t.app, busy.key);
    await mint(t.app, busy.key);
    expectLimited(await mint(t.app, busy.key), 55, 2);
    expectAllowed(await mint(t.app, quiet.key), 201, 2, 1);
    expectAllowed(await mint(t.app, store.key), 201, 600, 599);
  });

  it('Retry-After is the seconds left in the minute, between 1 and 60', async () => {
    const key = await issueKey(t.app, store.storeId, { rateLimitPerMinute: 1 });
    clockAt(4, 59.5);
    expectAllowed(await mint(t.app, key.key), 201, 1, 0);
    expectLimited(await mint(t.app, key.key), 1, 1);
    clockAt(5, 0);
    expectAllowed(await mint(t.app, key.key), 201, 1, 0);
    expectLimited(await mint(t.app, key.key), 60, 1);
  });

  it('refreshes count against the same key; a refused refresh does not consume its token', async () => {
    const key = await issueKey(t.app, store.storeId, { rateLimitPerMinute: 3 });
    clockAt(6, 30);
    const first = await mint(t.app, key.key);
    expectAllowed(first, 201, 3, 2);
    const second = await refresh(t.app, key.key, parse(first).refreshToken);
    expectAllowed(second, 200, 3, 1);
    const third = await refresh(t.app, key.key, parse(second).refreshToken);
    expectAllowed(third, 200, 3, 0);
    const token = parse(third).refreshToken;
    expectLimited(await refresh(t.app, key.key, token), 30, 3);

    clockAt(7, 0);
    expectAllowed(await refresh(t.app, key.key, token), 200, 3, 2);
  });

  it('every request carrying the key counts, refused ones and other endpoints included', async () => {
    const key = await issueKey(t.app, store.storeId, { rateLimitPerMinute: 4 });
    clockAt(8, 1);
    const session = parse(await mint(t.app, key.key));
    // A mint refused for its body still used a request.
    expectProblem(await mint(t.app, key.key, { scope: ['nonsense'] }), 400, 'INVALID_SCOPE');
    // A catalogue read authenticated by the token but carrying the key counts too.
    const read = await t.app.inject({
      method: 'GET',
      url: '/v1/catalogue/products',
      headers: { authorization: `Bearer ${session.accessToken}`, 'x-api-key': key.key },
    });
    expectAllowed(read, 200, 4, 1);
    // Without the key the read is not counted against it.
    const plain = await get(t.app, '/v1/catalogue/products', session.accessToken);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['x-ratelimit-limit']).toBeUndefined();
    expectAllowed(await mint(t.app, key.key), 201, 4, 0);
    expectLimited(await mint(t.app, key.key), 59, 4);
  });

  it('a bad key is refused as INVALID_API_KEY, not counted or rate limited', async () => {
    clockAt(9, 0);
    for (let i = 0; i < 3; i++) {
      const response = await mint(t.app, `sk_live_${'Q'.repeat(40)}`);
      expectProblem(response, 401, 'INVALID_API_KEY');
      expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('without REDIS_URL the counters are per instance: two instances each allow the full limit', async () => {
    const other = await startTestApp();
    try {
      const key = await issueKey(t.app, store.storeId, { rateLimitPerMinute: 2 });
      clockAt(10, 20);
      expectAllowed(await mint(t.app, key.key), 201, 2, 1);
      expectAllowed(await mint(t.app, key.key), 201, 2, 0);
      expectAllowed(await mint(other.app, key.key), 201, 2, 1);
      expectAllowed(await mint(other.app, key.key), 201, 2, 0);
      expectLimited(await mint(t.app, key.key), 40, 2);
      expectLimited(await mint(other.app, key.key), 40, 2);
    } finally {
      vi.useRealTimers();
      await other.close();
    }
  });
});
