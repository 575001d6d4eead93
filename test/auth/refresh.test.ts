import { beforeAll, describe, expect, it } from 'vitest';
import { issueKey, mint, refresh, type TestStore } from '../support/fixtures.js';
import { useTestApp, type Harness } from '../support/harness.js';
import { startTestApp } from '../support/test-app.js';
import { expectProblem } from '../support/problem.js';
import { parse } from '../support/responses.js';
import { decodeJwt, REFRESH_TOKEN, sha256Hex, sleep } from './support.js';

async function minted(t: Pick<Harness, 'app'>, key: string, body: Record<string, unknown> = {}) {
  const response = await mint(t.app, key, body);
  expect(response.statusCode, response.body).toBe(201);
  return parse(response);
}

async function sessionState(t: Harness, sessionId: string) {
  const [state] = await t.db.rows<{ revoked_at: Date | null; revoked_reason: string | null }>(
    'select revoked_at, revoked_reason from sessions where id = $1',
    [sessionId],
  );
  return state;
}

/** Moves the moment a refresh token was consumed into the past, as if the replay came that much later. */
async function consumedSecondsAgo(t: Harness, refreshToken: string, seconds: number): Promise<void> {
  const result = await t.db.query(
    `update refresh_tokens set consumed_at = now() - make_interval(secs => $2) where token_hash = $1 and consumed_at is not null`,
    [sha256Hex(refreshToken), seconds],
  );
  expect(result.rowCount).toBe(1);
}

describe('POST /v1/auth/refresh', () => {
  const t = useTestApp();
  let store: TestStore;

  beforeAll(async () => {
    store = await t.store();
  });

  it('answers 200 with a new pair for the same session and consumes the presented token', async () => {
    const first = await minted(t, store.key);
    const response = await refresh(t.app, store.key, first.refreshToken);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = parse(response);
    expect(Object.keys(body).sort()).toEqual(Object.keys(first).sort());
    expect(body).toMatchObject({
      tokenType: 'Bearer',
      transport: 'bearer',
      expiresIn: 900,
      sessionId: first.sessionId,
      scope: first.scope,
    });
    expect(body.refreshToken).toMatch(REFRESH_TOKEN);
    expect(body.refreshToken).not.toBe(first.refreshToken);
    expect(body.accessToken).not.toBe(first.accessToken);
    expect(decodeJwt(body.accessToken).payload.sid).toBe(first.sessionId);

    const stored = await t.db.rows('select consumed_at from refresh_tokens where token_hash = $1', [sha256Hex(first.refreshToken)]);
    expect(stored).toHaveLength(1);
    expect(stored[0].consumed_at).toBeInstanceOf(Date);
  });

  it('keeps a narrowed scope across refreshes', async () => {
    const first = await minted(t, store.key, { scope: ['search:read'] });
    const body = parse(await refresh(t.app, store.key, first.refreshToken));
    expect(body.scope).toEqual(['search:read']);
    expect(decodeJwt(body.accessToken).payload.scope).toBe('search:read');
  });

  it('chains: each new refresh token refreshes once', async () => {
    let current = (await minted(t, store.key)).refreshToken as string;
    for (let i = 0; i < 3; i++) {
      const response = await refresh(t.app, store.key, current);
      expect(response.statusCode).toBe(200);
      current = parse(response).refreshToken;
    }
  });

  describe('replay (REFRESH_TOKEN_REUSED)', () => {
    it('refuses a consumed token; inside the grace window the session survives', async () => {
      const first = await minted(t, store.key);
      const second = parse(await refresh(t.app, store.key, first.refreshToken));

      expectProblem(await refresh(t.app, store.key, first.refreshToken), 401, 'REFRESH_TOKEN_REUSED');
      expectProblem(await refresh(t.app, store.key, first.refreshToken), 401, 'REFRESH_TOKEN_REUSED');

      expect((await sessionState(t, first.sessionId)).revoked_at).toBeNull();
      const third = await refresh(t.app, store.key, second.refreshToken);
      expect(third.statusCode).toBe(200);
    });

    it('a replay just inside the window (3 s after consumption, default 5 s) does not revoke', async () => {
      const first = await minted(t, store.key);
      const second = parse(await refresh(t.app, store.key, first.refreshToken));
      await consumedSecondsAgo(t, first.refreshToken, 3);

      expectProblem(await refresh(t.app, store.key, first.refreshToken), 401, 'REFRESH_TOKEN_REUSED');
      expect((await sessionState(t, first.sessionId)).revoked_at).toBeNull();
      expect((await refresh(t.app, store.key, second.refreshToken)).statusCode).toBe(200);
    });

    it('a replay past the window (6 s after consumption) revokes the whole session', async () => {
      const first = await minted(t, store.key);
      const second = parse(await refresh(t.app, store.key, first.refreshToken));
      const bystander = await minted(t, store.key);
      await consumedSecondsAgo(t, first.refreshToken, 6);

      expectProblem(await refresh(t.app, store.key, first.refreshToken), 401, 'REFRESH_TOKEN_REUSED');
      const state = await sessionState(t, first.sessionId);
      expect(state.revoked_at).toBeInstanceOf(Date);
      expect(state.revoked_reason).toBe('refresh_token_reuse');

      // The newest token of the session (held by whoever stole or raced it) is dead too.
      expectProblem(await refresh(t.app, store.key, second.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
      // Other sessions of the same key are not touched.
      expect((await refresh(t.app, store.key, bystander.refreshToken)).statusCode).toBe(200);
    });

    it('REFRESH_REUSE_GRACE_SECONDS=0: a replay a second later revokes the session', async () => {
      const strict = await startTestApp({ REFRESH_REUSE_GRACE_SECONDS: '0' });
      try {
        const first = await minted(strict, store.key);
        const second = parse(await refresh(strict.app, store.key, first.refreshToken));
        await sleep(1100);

        expectProblem(await refresh(strict.app, store.key, first.refreshToken), 401, 'REFRESH_TOKEN_REUSED');
        expectProblem(await refresh(strict.app, store.key, second.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
        expect((await sessionState(t, first.sessionId)).revoked_reason).toBe('refresh_token_reuse');
      } finally {
        await strict.close();
      }
    });
  });

  describe('INVALID_REFRESH_TOKEN', () => {
    it.each([
      ['no token at all', undefined],
      ['an empty string', ''],
      ['a short string', 'abc'],
      ['the right length without the prefix', 'x'.repeat(46)],
      ['a character outside base64url', `rt_${'A'.repeat(42)}=`],
      ['a very long string', `rt_${'A'.repeat(5000)}`],
    ])('refuses %s', async (_name, token) => {
      expectProblem(await refresh(t.app, store.key, token), 401, 'INVALID_REFRESH_TOKEN');
    });

    it('refuses a well-formed token that was never issued', async () => {
      expectProblem(await refresh(t.app, store.key, `rt_${'A'.repeat(43)}`), 401, 'INVALID_REFRESH_TOKEN');
    });

    it('refuses an access token presented as a refresh token', async () => {
      const first = await minted(t, store.key);
      expectProblem(await refresh(t.app, store.key, first.accessToken), 401, 'INVALID_REFRESH_TOKEN');
    });

    it('refuses an expired refresh token', async () => {
      const first = await minted(t, store.key);
      await t.db.query(`update refresh_tokens set expires_at = now() - interval '1 second' where token_hash = $1`, [
        sha256Hex(first.refreshToken),
      ]);
      expectProblem(await refresh(t.app, store.key, first.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
    });

    it('binds the session to its key: another key of the same store is refused and does not consume the token', async () => {
      const sibling = await issueKey(t.app, store.storeId);
      const first = await minted(t, store.key);

      expectProblem(await refresh(t.app, sibling.key, first.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
      expectProblem(await refresh(t.app, sibling.key, first.refreshToken), 401, 'INVALID_REFRESH_TOKEN');

      const right = await refresh(t.app, store.key, first.refreshToken);
      expect(right.statusCode).toBe(200);
    });

    it('another store’s key is refused and does not consume the token', async () => {
      const other = await t.store();
      const first = await minted(t, store.key);

      expectProblem(await refresh(t.app, other.key, first.refreshToken), 401, 'INVALID_REFRESH_TOKEN');

      expect((await refresh(t.app, store.key, first.refreshToken)).statusCode).toBe(200);
    });

    it('a foreign key replaying a consumed token gets INVALID_REFRESH_TOKEN and cannot revoke the owner’s session', async () => {
      const other = await t.store();
      const first = await minted(t, store.key);
      const second = parse(await refresh(t.app, store.key, first.refreshToken));
      await consumedSecondsAgo(t, first.refreshToken, 60);

      expectProblem(await refresh(t.app, other.key, first.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
      expect((await sessionState(t, first.sessionId)).revoked_at).toBeNull();
      expect((await refresh(t.app, store.key, second.refreshToken)).statusCode).toBe(200);
    });
  });

  describe('request shape', () => {
    it('needs the key: without X-Api-Key the refresh is refused and the token survives', async () => {
      const first = await minted(t, store.key);
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/refresh',
        headers: { 'content-type': 'application/json' },
        payload: { refreshToken: first.refreshToken },
      });
      expectProblem(response, 401, 'INVALID_API_KEY');
      expect((await refresh(t.app, store.key, first.refreshToken)).statusCode).toBe(200);
    });

    it('refuses a non-string token and unknown fields with VALIDATION_FAILED', async () => {
      const typed = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/refresh',
        headers: { 'x-api-key': store.key, 'content-type': 'application/json' },
        payload: { refreshToken: 12345 },
      });
      const body = expectProblem(typed, 400, 'VALIDATION_FAILED');
      expect(body.errors).toContainEqual(expect.objectContaining({ field: 'refreshToken', code: 'isString' }));

      const unknown = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/refresh',
        headers: { 'x-api-key': store.key, 'content-type': 'application/json' },
        payload: { refreshToken: `rt_${'A'.repeat(43)}`, sessionId: 'x' },
      });
      expect(expectProblem(unknown, 400, 'VALIDATION_FAILED').errors).toContainEqual(
        expect.objectContaining({ field: 'sessionId', code: 'whitelistValidation' }),
      );
    });
  });
});
