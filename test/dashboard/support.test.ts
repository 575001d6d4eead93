import { describe, expect, it, vi } from 'vitest';
import { AdminTokenService } from '../../src/auth/dashboard/admin-token.service.js';
import { SupportSessions } from '../../src/auth/support/support-sessions.service.js';
import { entitlementsOf, SUPPORT_PERMISSIONS } from '../../src/common/permissions.js';
import { decodeJwt } from '../auth/support.js';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok, setCookies } from '../support/responses.js';

describe('support sessions (contract section 7)', () => {
  const t = useTestApp();

  it('GET /admin/auth/me answers the agent, the reason and the expiry, read-only', async () => {
    const store = await t.store({ name: 'Support Me Store' });
    const support = await supportSession(t.app, store.storeId, 45);
    const me = ok(await adminCall(t.app, 'GET', '/admin/auth/me', support.token));
    expect(me).toEqual({
      staff: null,
      support: { agent: 'agent@support.example', reason: 'customer asked for help with a report', expiresAt: support.expiresAt },
      store: { id: store.storeId, name: 'Support Me Store', plan: 'basic', timezone: 'Asia/Riyadh', currency: 'SAR' },
      permissions: [...SUPPORT_PERMISSIONS],
      entitlements: entitlementsOf('basic'),
      readOnly: true,
    });
    const minutes = (Date.parse(support.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(43);
    expect(minutes).toBeLessThanOrEqual(45);
  });

  it('its token carries only the session id, and expires exactly when the session does', async () => {
    const store = await t.store();
    const support = await supportSession(t.app, store.storeId);
    const { payload } = decodeJwt(support.token);
    expect(Object.keys(payload).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'knd', 'sid', 'sub']);
    expect(payload).toMatchObject({ sid: support.id, knd: 'support', aud: 'storefront-admin' });
    expect(payload.exp * 1000).toBe(Date.parse(support.expiresAt));
    const [row] = await t.db.rows('select expires_at from support_sessions where id = $1', [support.id]);
    expect(row.expires_at.getTime()).toBe(payload.exp * 1000);
  });

  it('defaults to 60 minutes and refuses more than 480', async () => {
    const store = await t.store();
    const support = await supportSession(t.app, store.storeId);
    expect(Math.round((Date.parse(support.expiresAt) - Date.now()) / 60_000)).toBe(60);
    await expect(t.app.get(SupportSessions).open(store.storeId, 'a@b.example', 'a reason', 481)).rejects.toThrow(RangeError);
    await expect(t.app.get(SupportSessions).open(store.storeId, 'a@b.example', 'a reason', 0)).rejects.toThrow(RangeError);
  });

  it('an expired session is refused, though its token has not expired yet; a token past its time is token_expired', async () => {
    const store = await t.store();
    const support = await supportSession(t.app, store.storeId);
    await t.db.query(`update support_sessions set expires_at = now() - interval '1 second' where id = $1`, [support.id]);
    expectProblem(await adminCall(t.app, 'GET', '/admin/auth/me', support.token), 401, 'unauthenticated');

    const [row] = await t.db.rows('select expires_at from support_sessions where id = $1', [support.id]);
    const { token } = await t.app.get(AdminTokenService).signSupport(support.id, row.expires_at);
    expectProblem(await adminCall(t.app, 'GET', '/admin/auth/me', token), 401, 'token_expired');
  });

  it('a session in use is refused from its expiry on, on its own: the token expires with it', async () => {
    const store = await t.store();
    const opened = await t.app.get(SupportSessions).open(store.storeId, 'agent@support.example', 'a short look', 1);
    const expiresAt = Date.parse(opened.supportSession.expiresAt);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(expiresAt - 5_000);
      expect((await adminCall(t.app, 'GET', '/admin/auth/me', opened.accessToken)).statusCode).toBe(200);
      vi.setSystemTime(expiresAt + 1_000);
      expectProblem(await adminCall(t.app, 'GET', '/admin/auth/me', opened.accessToken), 401, 'token_expired');
    } finally {
      vi.useRealTimers();
    }
  });

  it('every session is recorded and listed with agent, reason, store, opened, expires and closed', async () => {
    const store = await t.store();
    const sessions = t.app.get(SupportSessions);
    const first = await supportSession(t.app, store.storeId);
    const second = await sessions.open(store.storeId, ' Agent.Two@Support.Example ', '  checking a late export  ', 30);
    const closed = await sessions.close(second.supportSession.id);
    const expired = await supportSession(t.app, store.storeId);
    await t.db.query(`update support_sessions set expires_at = now() - interval '1 minute' where id = $1`, [expired.id]);
    const listed = await sessions.list(store.storeId);
    expect(listed.map((session) => session.id).sort()).toEqual([first.id, second.supportSession.id, expired.id].sort());
    const byId = Object.fromEntries(listed.map((session) => [session.id, session]));
    expect(byId[second.supportSession.id]).toEqual({
      id: second.supportSession.id,
      storeId: store.storeId,
      agent: 'agent.two@support.example',
      reason: 'checking a late export',
      openedAt: expect.any(String),
      expiresAt: second.supportSession.expiresAt,
      closedAt: closed.closedAt,
      status: 'closed',
    });
    expect(byId[first.id]).toMatchObject({ status: 'open', closedAt: null });
    expect(byId[expired.id]).toMatchObject({ status: 'expired', closedAt: null });
    // Closing again keeps the first time; the closed session is refused.
    expect((await sessions.close(second.supportSession.id)).closedAt).toBe(closed.closedAt);
    expectProblem(await adminCall(t.app, 'GET', '/admin/auth/me', second.accessToken), 401, 'unauthenticated');
    // Another store's list holds none of them.
    expect(await sessions.list((await t.store()).storeId)).toEqual([]);
  });

  describe("in the agent's browser: POST /admin/auth/support-session, a native form post", () => {
    const enter = (accessToken: string, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: '/admin/auth/support-session',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', ...headers },
        payload: new URLSearchParams({ accessToken }).toString(),
      });
    const withCookies = (method: 'GET' | 'POST', url: string, cookies: Record<string, string>, headers: Record<string, string> = {}) =>
      t.app.inject({
        method,
        url,
        cookies,
        headers: method === 'POST' ? { 'content-type': 'application/json', ...headers } : headers,
        ...(method === 'POST' ? { payload: JSON.stringify({ measures: ['net_sales'], last: 7 }) } : {}),
      });

    it('turns the printed token into HttpOnly cookies that live as long as the session, and redirects to the dashboard', async () => {
      const store = await t.store();
      await t.db.query(`update stores set plan = 'growth' where id = $1`, [store.storeId]);
      const support = await supportSession(t.app, store.storeId, 30);
      const entered = await enter(support.token);
      expect(entered.statusCode).toBe(303);
      expect(entered.headers.location).toBe(`/admin/?store=${store.storeId}`);
      expect(entered.headers['cache-control']).toBe('no-store');
      expect(entered.body).toBe('');
      const cookies = setCookies(entered);
      expect(Object.keys(cookies).sort()).toEqual(['adm_access', 'adm_csrf', 'adm_refresh']);
      const maxAge = Number(cookies.adm_access.attributes['max-age']);
      expect(maxAge).toBeGreaterThan(29 * 60);
      expect(maxAge).toBeLessThanOrEqual(30 * 60);
      expect(cookies.adm_access.attributes).toEqual({
        path: '/admin',
        'max-age': String(maxAge),
        httponly: true,
        samesite: 'Strict',
        secure: true,
      });
      expect(cookies.adm_csrf.attributes).toEqual({ path: '/admin', 'max-age': String(maxAge), samesite: 'Strict', secure: true });
      // No refresh for a support session: a staff member's refresh cookie in the same browser is dropped.
      expect(cookies.adm_refresh.value).toBe('');
      expect(cookies.adm_refresh.attributes).toMatchObject({ path: '/admin/auth', expires: expect.any(String) });
      // A new token: the same session and expiry, bound to the CSRF cookie; the printed one still works too.
      const { payload } = decodeJwt(cookies.adm_access.value);
      expect(payload).toMatchObject({ sid: support.id, knd: 'support', csrf: expect.any(String) });
      expect(payload.exp * 1000).toBe(Date.parse(support.expiresAt));
      expect(cookies.adm_access.value).not.toBe(support.token);

      const jar = { adm_access: cookies.adm_access.value };
      const me = ok(await withCookies('GET', '/admin/auth/me', jar));
      expect(me).toMatchObject({ staff: null, readOnly: true, support: { agent: 'agent@support.example' } });
      // The builder's run is a read, but a cookie-borne POST: it needs the double submit.
      expectProblem(await withCookies('POST', '/admin/insights/builder/run', jar), 403, 'csrf_token_invalid');
      expectProblem(await withCookies('POST', '/admin/insights/builder/run', jar, { 'x-csrf-token': 'not-it' }), 403, 'csrf_token_invalid');
      ok(await withCookies('POST', '/admin/insights/builder/run', jar, { 'x-csrf-token': cookies.adm_csrf.value }));
      // Writes stay refused, CSRF or not.
      expectProblem(
        await withCookies('POST', '/admin/insights/saved-reports', jar, { 'x-csrf-token': cookies.adm_csrf.value }),
        403,
        'support_read_only',
      );
    });

    it('a closed, expired or foreign token goes back to the sign-in page with the reason, and sets no cookie', async () => {
      const store = await t.store();
      const sessions = t.app.get(SupportSessions);
      const closed = await supportSession(t.app, store.storeId);
      await sessions.close(closed.id);
      const expired = await supportSession(t.app, store.storeId);
      const [row] = await t.db.rows(
        `update support_sessions set expires_at = now() - interval '1 second' where id = $1 returning expires_at`,
        [expired.id],
      );
      const { token: pastItsTime } = await t.app.get(AdminTokenService).signSupport(expired.id, row.expires_at);
      const staff = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
      const cases: [string, string][] = [
        [closed.token, 'unauthenticated'],
        [expired.token, 'unauthenticated'],
        [pastItsTime, 'token_expired'],
        [staff, 'unauthenticated'],
        ['not a token', 'unauthenticated'],
      ];
      for (const [token, reason] of cases) {
        const answer = await enter(token);
        expect(answer.statusCode, reason).toBe(303);
        expect(answer.headers.location, reason).toBe(`/admin/?support_error=${reason}`);
        expect(answer.headers['set-cookie'], reason).toBeUndefined();
      }
    });

    it('refuses a post from another site, a missing token, and form bodies on every other route', async () => {
      const store = await t.store();
      const support = await supportSession(t.app, store.storeId);
      for (const site of ['cross-site', 'same-site']) {
        const refused = await enter(support.token, { 'sec-fetch-site': site });
        expectProblem(refused, 403, 'csrf_token_invalid');
        expect(refused.headers['set-cookie']).toBeUndefined();
      }
      expectProblem(await enter(''), 400, 'validation_failed');
      const formSignIn = await t.app.inject({
        method: 'POST',
        url: '/admin/auth/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'storeId=x&email=a@b.example&password=p',
      });
      expectProblem(formSignIn, 415, 'unsupported_media_type');
      // A client without Sec-Fetch-Site (curl, a script) may use it, with JSON too.
      const scripted = await t.app.inject({
        method: 'POST',
        url: '/admin/auth/support-session',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ accessToken: support.token }),
      });
      expect(scripted.statusCode).toBe(303);
      expect(setCookies(scripted).adm_access.value).toBeTruthy();
    });
  });
});
