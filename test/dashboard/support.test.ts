import { describe, expect, it, vi } from 'vitest';
import { AdminTokenService } from '../../src/auth/dashboard/admin-token.service.js';
import { SupportSessions } from '../../src/auth/support/support-sessions.service.js';
import { entitlementsOf, SUPPORT_PERMISSIONS } from '../../src/common/permissions.js';
import { decodeJwt } from '../auth/support.js';
import { adminCall, supportSession } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';

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
});
