import { beforeAll, describe, expect, it } from 'vitest';
import { addStaff, staffSession, type TestStaff } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { fromFetch, parse, type ResponseLike } from '../support/responses.js';

const CONCURRENCY = 30;

describe('dashboard refresh over real HTTP', () => {
  const t = useTestApp();
  let base: string;
  let owner: TestStaff;

  beforeAll(async () => {
    base = await t.listen();
    const store = await t.store();
    owner = await addStaff(t.app, store.storeId);
  });

  const refresh = async (body: Record<string, unknown>): Promise<ResponseLike> =>
    fromFetch(
      await fetch(`${base}/admin/auth/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );

  it(`of ${CONCURRENCY} concurrent refreshes with one token exactly one wins; the others are refresh_token_reused and the session lives`, async () => {
    const { refreshToken, sessionId } = await staffSession(t.app, owner);

    const responses = await Promise.all(Array.from({ length: CONCURRENCY }, () => refresh({ refreshToken })));

    const winners = responses.filter((response) => response.statusCode === 200);
    const losers = responses.filter((response) => response.statusCode !== 200);
    expect(winners).toHaveLength(1);
    for (const loser of losers) expectProblem(loser, 401, 'refresh_token_reused');
    const winner = parse(winners[0]);
    expect(winner.sessionId).toBe(sessionId);

    const tokens = await t.db.rows('select consumed_at from staff_refresh_tokens where session_id = $1', [sessionId]);
    expect(tokens).toHaveLength(2);
    const [session] = await t.db.rows('select revoked_at from staff_sessions where id = $1', [sessionId]);
    expect(session.revoked_at).toBeNull();
    expect((await refresh({ refreshToken: winner.refreshToken })).statusCode).toBe(200);
  });
});
