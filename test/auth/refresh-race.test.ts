import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type TestStore } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { expectProblem, fromFetch, parse, withDb, type ResponseLike } from './support.js';

const CONCURRENCY = 50;

describe('concurrency over real HTTP', () => {
  let t: TestApp;
  let base: string;
  let store: TestStore;

  beforeAll(async () => {
    t = await startTestApp();
    base = await t.listen();
    store = await createStore(t.app);
  });
  afterAll(() => t.close());

  const post = async (path: string, key: string, body: Record<string, unknown>): Promise<ResponseLike> =>
    fromFetch(
      await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );

  it(`of ${CONCURRENCY} concurrent refreshes with one token exactly one wins; the others are REFRESH_TOKEN_REUSED and the session lives`, async () => {
    const minted = await post('/v1/auth/anonymous', store.key, {});
    expect(minted.statusCode).toBe(201);
    const { refreshToken, sessionId } = parse(minted);

    const responses = await Promise.all(Array.from({ length: CONCURRENCY }, () => post('/v1/auth/refresh', store.key, { refreshToken })));

    const winners = responses.filter((response) => response.statusCode === 200);
    const losers = responses.filter((response) => response.statusCode !== 200);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(CONCURRENCY - 1);
    for (const loser of losers) expectProblem(loser, 401, 'REFRESH_TOKEN_REUSED');

    const winner = parse(winners[0]);
    expect(winner.sessionId).toBe(sessionId);

    // Exactly one successor token was created, and the session was not revoked by the losers.
    const tokens = await withDb(t.databaseUrl, async (db) => {
      const rows = await db.query('select consumed_at from refresh_tokens where session_id = $1', [sessionId]);
      const session = await db.query('select revoked_at from sessions where id = $1', [sessionId]);
      return { rows: rows.rows, revokedAt: session.rows[0].revoked_at };
    });
    expect(tokens.rows).toHaveLength(2);
    expect(tokens.revokedAt).toBeNull();

    const next = await post('/v1/auth/refresh', store.key, { refreshToken: winner.refreshToken });
    expect(next.statusCode).toBe(200);
    expect(parse(next).sessionId).toBe(sessionId);
  });

  it(`${CONCURRENCY} concurrent mints all succeed with distinct sessions and tokens`, async () => {
    const own = await createStore(t.app);
    const responses = await Promise.all(Array.from({ length: CONCURRENCY }, () => post('/v1/auth/anonymous', own.key, {})));

    expect(responses.map((response) => response.statusCode)).toEqual(Array(CONCURRENCY).fill(201));
    const bodies = responses.map(parse);
    expect(new Set(bodies.map((body) => body.sessionId)).size).toBe(CONCURRENCY);
    expect(new Set(bodies.map((body) => body.refreshToken)).size).toBe(CONCURRENCY);
    expect(new Set(bodies.map((body) => body.accessToken)).size).toBe(CONCURRENCY);

    const stored = await withDb(
      t.databaseUrl,
      async (db) => (await db.query('select count(*)::int as n from sessions where api_key_id = $1', [own.keyId])).rows[0].n,
    );
    expect(stored).toBe(CONCURRENCY);
  });
});
