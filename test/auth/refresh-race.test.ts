import { beforeAll, describe, expect, it } from 'vitest';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { fromFetch, parse, type ResponseLike } from '../support/responses.js';

const CONCURRENCY = 50;

describe('concurrency over real HTTP', () => {
  const t = useTestApp();
  let base: string;
  let store: TestStore;

  beforeAll(async () => {
    base = await t.listen();
    store = await t.store();
  });

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
    const tokens = await t.db.rows('select consumed_at from refresh_tokens where session_id = $1', [sessionId]);
    const [session] = await t.db.rows('select revoked_at from sessions where id = $1', [sessionId]);
    expect(tokens).toHaveLength(2);
    expect(session.revoked_at).toBeNull();

    const next = await post('/v1/auth/refresh', store.key, { refreshToken: winner.refreshToken });
    expect(next.statusCode).toBe(200);
    expect(parse(next).sessionId).toBe(sessionId);
  });

  it(`${CONCURRENCY} concurrent mints all succeed with distinct sessions and tokens`, async () => {
    const own = await t.store();
    const responses = await Promise.all(Array.from({ length: CONCURRENCY }, () => post('/v1/auth/anonymous', own.key, {})));

    expect(responses.map((response) => response.statusCode)).toEqual(Array(CONCURRENCY).fill(201));
    const bodies = responses.map(parse);
    expect(new Set(bodies.map((body) => body.sessionId)).size).toBe(CONCURRENCY);
    expect(new Set(bodies.map((body) => body.refreshToken)).size).toBe(CONCURRENCY);
    expect(new Set(bodies.map((body) => body.accessToken)).size).toBe(CONCURRENCY);

    const [stored] = await t.db.rows('select count(*)::int as n from sessions where api_key_id = $1', [own.keyId]);
    expect(stored.n).toBe(CONCURRENCY);
  });
});
