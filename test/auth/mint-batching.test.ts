import { describe, expect, it } from 'vitest';
import { issueKey, mint } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';

describe('concurrent mints share a write', () => {
  const t = useTestApp();

  it('gives each mint of a mixed batch its own outcome: a key revoked behind the cache gets no session', async () => {
    const store = await t.store();
    const live = await issueKey(t.app, store.storeId);
    const revoked = await issueKey(t.app, store.storeId);
    expect((await mint(t.app, revoked.key)).statusCode).toBe(201); // now cached as live in this instance
    await t.db.query('update api_keys set revoked_at = now() where id = $1', [revoked.id]); // no notice sent

    const responses = await Promise.all([
      ...Array.from({ length: 20 }, () => mint(t.app, live.key, { scope: ['catalogue:read'] })),
      ...Array.from({ length: 5 }, () => mint(t.app, revoked.key)),
    ]);
    const liveAnswers = responses.slice(0, 20);
    const revokedAnswers = responses.slice(20);
    expect(liveAnswers.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(revokedAnswers.map((r) => [r.statusCode, r.json().code])).toEqual(Array(5).fill([401, 'INVALID_API_KEY']));
    expect(new Set(liveAnswers.map((r) => r.json().sessionId)).size).toBe(20);
    expect(liveAnswers.every((r) => r.json().scope.join() === 'catalogue:read')).toBe(true);

    const counts = await t.db.rows<{ api_key_id: string; sessions: number; tokens: number }>(
      `select s.api_key_id, count(distinct s.id)::int as sessions, count(t.id)::int as tokens
       from sessions s join refresh_tokens t on t.session_id = s.id where s.api_key_id = any($1) group by s.api_key_id`,
      [[live.id, revoked.id]],
    );
    const byKey = Object.fromEntries(counts.map((row) => [row.api_key_id, row]));
    expect(byKey[live.id]).toMatchObject({ sessions: 20, tokens: 20 });
    expect(byKey[revoked.id]).toMatchObject({ sessions: 1, tokens: 1 });
  });
});
