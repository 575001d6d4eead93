import { Controller, HttpCode, Post } from '@nestjs/common';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CurrentAdmin, RequirePermission } from '../../src/auth/access/decorators.js';
import type { AdminPrincipal } from '../../src/auth/principal.js';
import { AdminTokenService } from '../../src/auth/dashboard/admin-token.service.js';
import { StaffMembers } from '../../src/auth/staff/staff-members.service.js';
import { STAFF_FAILURES_PER_ACCOUNT, STAFF_FAILURES_PER_CLIENT } from '../../src/auth/staff/staff-sign-in-limiter.js';
import { PERMISSIONS, entitlementsOf } from '../../src/common/permissions.js';
import { PasswordHasher } from '../../src/infra/crypto/password-hasher.js';
import { decodeJwt, ISO_UTC, REFRESH_TOKEN, sha256Hex, sleep } from '../auth/support.js';
import { addStaff, adminCall, clientAddress, staffSession, staffSignIn, staffToken, type TestStaff } from '../support/dashboard.js';
import { accessToken, get, type TestStore } from '../support/fixtures.js';
import { UUID } from '../support/formats.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok, parse, setCookies } from '../support/responses.js';

/** A dashboard write that any signed-in owner may make: the CSRF defence is exercised on it. */
@Controller('admin/test-only/sign-in-probe')
class SignInProbeController {
  @Post()
  @HttpCode(200)
  @RequirePermission('insights.settings.manage')
  write(@CurrentAdmin() admin: AdminPrincipal) {
    return { sessionId: admin.sessionId, staffId: admin.staff?.id };
  }
}

const BEARER_FIELDS = [
  'accessToken',
  'accessTokenExpiresAt',
  'expiresIn',
  'refreshToken',
  'refreshTokenExpiresAt',
  'sessionId',
  'tokenType',
  'transport',
];
const COOKIE_FIELDS = ['accessTokenExpiresAt', 'expiresIn', 'refreshTokenExpiresAt', 'sessionId', 'tokenType', 'transport'];

function refreshWith(app: TestApp, refreshToken: string | undefined) {
  return app.inject({
    method: 'POST',
    url: '/admin/auth/refresh',
    headers: { 'content-type': 'application/json' },
    payload: refreshToken === undefined ? {} : { refreshToken },
  });
}
type TestApp = ReturnType<typeof useTestApp>['app'];

const credentials = (staff: TestStaff) => ({ storeId: staff.storeId, email: staff.email, password: staff.password });

describe('dashboard sign-in (contract section 7)', () => {
  const t = useTestApp({}, { controllers: [SignInProbeController] });
  let store: TestStore;
  let owner: TestStaff;

  beforeAll(async () => {
    store = await t.store();
    owner = await addStaff(t.app, store.storeId, 'owner', { name: 'Noura Owner' });
  });

  describe('bearer transport', () => {
    it('answers 201 with a token pair shaped like the storefront’s, without scope', async () => {
      const response = await staffSignIn(t.app, credentials(owner));
      const body = ok(response, 201);
      expect(Object.keys(body).sort()).toEqual(BEARER_FIELDS);
      expect(body).toMatchObject({ tokenType: 'Bearer', transport: 'bearer', expiresIn: 900, sessionId: expect.stringMatching(UUID) });
      expect(body.refreshToken).toMatch(REFRESH_TOKEN);
      expect(body.accessTokenExpiresAt).toMatch(ISO_UTC);
      expect(body.refreshTokenExpiresAt).toMatch(ISO_UTC);
      expect(Date.parse(body.refreshTokenExpiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
      expect(response.headers['set-cookie']).toBeUndefined();
      expect(response.headers['cache-control']).toBe('no-store');

      const { header, payload } = decodeJwt(body.accessToken);
      expect(header).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt', kid: expect.any(String) });
      // Only whose session it is: permissions, role and plan are read at request time.
      expect(payload).toMatchObject({ aud: 'storefront-admin', iss: 'storefront', sid: body.sessionId, knd: 'staff' });
      expect(payload).not.toHaveProperty('scope');
      expect(payload).not.toHaveProperty('store');
      expect(payload.exp - payload.iat).toBe(900);
      expect(payload.exp * 1000).toBe(Date.parse(body.accessTokenExpiresAt));
    });

    it('keeps only hashes: the password as argon2id, the refresh token as SHA-256', async () => {
      const body = ok(await staffSignIn(t.app, credentials(owner)), 201);
      const [member] = await t.db.rows('select password_hash, row_to_json(m)::text as whole from staff_members m where id = $1', [
        owner.id,
      ]);
      expect(member.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(member.whole).not.toContain(owner.password);
      const tokens = await t.db.rows('select token_hash from staff_refresh_tokens where session_id = $1', [body.sessionId]);
      expect(tokens).toEqual([{ token_hash: sha256Hex(body.refreshToken) }]);
    });

    it('reads the email case- and space-insensitively', async () => {
      const response = await staffSignIn(t.app, { ...credentials(owner), email: `  ${owner.email.toUpperCase()} ` });
      expect(response.statusCode, response.body).toBe(201);
    });

    it('GET /admin/auth/me answers the member, the store and what they may do', async () => {
      const token = await staffToken(t.app, owner);
      const me = ok(await adminCall(t.app, 'GET', '/admin/auth/me', token));
      expect(me).toEqual({
        staff: { id: owner.id, email: owner.email, name: 'Noura Owner', role: 'owner' },
        support: null,
        store: { id: store.storeId, name: expect.any(String), plan: 'basic', timezone: 'Asia/Riyadh', currency: 'SAR' },
        permissions: [...PERMISSIONS],
        entitlements: entitlementsOf('basic'),
        readOnly: false,
      });
    });

    it('refuses unknown fields, a store id that is not a UUID, and a missing password, in lower_snake', async () => {
      for (const body of [
        { ...credentials(owner), scope: ['catalogue:read'] },
        { ...credentials(owner), storeId: 'demo' },
        { storeId: owner.storeId, email: owner.email },
        { ...credentials(owner), transport: 'carrier-pigeon' },
      ]) {
        expectProblem(await staffSignIn(t.app, body), 400, 'validation_failed');
      }
    });
  });

  describe('the same invalid_credentials for every wrong answer', () => {
    it('unknown email, wrong password, unknown store and removed member: one body, one argon2id verification each', async () => {
      const removed = await addStaff(t.app, store.storeId, 'viewer');
      await t.app.get(StaffMembers).remove(removed.id);
      const other = await t.store();
      const attempts = {
        unknownEmail: { ...credentials(owner), email: 'nobody@example.com' },
        wrongPassword: { ...credentials(owner), password: `${owner.password}x` },
        unknownStore: { ...credentials(owner), storeId: '00000000-0000-4000-8000-000000000000' },
        otherStore: { ...credentials(owner), storeId: other.storeId },
        removedMember: credentials(removed),
      };
      const verify = vi.spyOn(PasswordHasher.prototype, 'verify');
      try {
        const bodies: Record<string, unknown>[] = [];
        for (const [label, body] of Object.entries(attempts)) {
          verify.mockClear();
          const response = await staffSignIn(t.app, body);
          const problem = expectProblem(response, 401, 'invalid_credentials');
          expect(verify, label).toHaveBeenCalledTimes(1);
          expect(response.headers['set-cookie'], label).toBeUndefined();
          const { requestId: _requestId, ...rest } = problem;
          bodies.push(rest);
        }
        for (const body of bodies) expect(body).toEqual(bodies[0]);
      } finally {
        verify.mockRestore();
      }
    });

    it('a member of store A cannot sign in to store B; the same email in both stores is two members', async () => {
      const other = await t.store();
      const inOther = await addStaff(t.app, other.storeId, 'viewer', { email: owner.email });
      expectProblem(await staffSignIn(t.app, { ...credentials(owner), storeId: other.storeId }), 401, 'invalid_credentials');
      expectProblem(await staffSignIn(t.app, { ...credentials(inOther), storeId: owner.storeId }), 401, 'invalid_credentials');
      const token = await staffToken(t.app, inOther);
      const me = ok(await adminCall(t.app, 'GET', '/admin/auth/me', token));
      expect(me.store.id).toBe(other.storeId);
      expect(me.staff).toMatchObject({ id: inOther.id, role: 'viewer' });
    });
  });

  describe('failed sign-ins are limited', () => {
    it(`per address: after ${STAFF_FAILURES_PER_ACCOUNT} failures 429 rate_limited with Retry-After, even for the right password`, async () => {
      const member = await addStaff(t.app, store.storeId, 'viewer');
      for (let attempt = 0; attempt < STAFF_FAILURES_PER_ACCOUNT; attempt++) {
        expectProblem(await staffSignIn(t.app, { ...credentials(member), password: 'wrong password' }), 401, 'invalid_credentials');
      }
      const limited = await staffSignIn(t.app, credentials(member));
      const body = expectProblem(limited, 429, 'rate_limited');
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(800);
      expect(retryAfter).toBeLessThanOrEqual(900);
      expect(body.retryAfterSeconds).toBe(retryAfter);
      // A message that fits a sign-in, not the API key's.
      expect(body.message_en).toMatch(/sign-ins/);
      expect(body.message_en).not.toMatch(/API key/);
      // Another member of the store, and the same address in another store, are not affected.
      expect((await staffSignIn(t.app, credentials(owner))).statusCode).toBe(201);
      const other = await t.store();
      const sameAddress = await addStaff(t.app, other.storeId, 'viewer', { email: member.email });
      expect((await staffSignIn(t.app, credentials(sameAddress))).statusCode).toBe(201);
    });

    it(`per client: past ${STAFF_FAILURES_PER_CLIENT} failures from one address in the window, whatever they named`, async () => {
      const address = clientAddress();
      await t.db.query(
        `insert into staff_sign_in_failures (store_id, email_normalized, client_address, created_at)
         select gen_random_uuid(), 'sprayed-' || n || '@example.com', $1, now() - interval '5 minutes'
         from generate_series(1, $2::int) n`,
        [address, STAFF_FAILURES_PER_CLIENT],
      );
      const limited = await staffSignIn(t.app, credentials(owner), address);
      expectProblem(limited, 429, 'rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(500);
      // The same credentials from elsewhere are fine, and a success does not count.
      expect((await staffSignIn(t.app, credentials(owner))).statusCode).toBe(201);
      // Failures older than the window count for nothing.
      await t.db.query(`update staff_sign_in_failures set created_at = now() - interval '16 minutes' where client_address = $1`, [address]);
      expect((await staffSignIn(t.app, credentials(owner), address)).statusCode).toBe(201);
    });
  });

  describe('cookie transport', () => {
    const signInWithCookies = async (staff: TestStaff) => {
      const response = await staffSignIn(t.app, { ...credentials(staff), transport: 'cookie' });
      const body = ok(response, 201);
      const cookies = setCookies(response);
      return { body, cookies, access: cookies.adm_access?.value, refresh: cookies.adm_refresh?.value, csrf: cookies.adm_csrf?.value };
    };
    const cookieCall = (method: 'GET' | 'POST', url: string, cookies: Record<string, string>, headers: Record<string, string> = {}) =>
      t.app.inject({
        method,
        url,
        cookies,
        headers: { ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(method === 'POST' ? { payload: '{}' } : {}),
      });

    it('sets adm_access, adm_refresh and adm_csrf with the contract’s attributes, and no token in the body', async () => {
      const session = await signInWithCookies(owner);
      expect(Object.keys(session.body).sort()).toEqual(COOKIE_FIELDS);
      expect(session.body).toMatchObject({ tokenType: 'Cookie', transport: 'cookie', expiresIn: 900 });
      expect(Object.keys(session.cookies).sort()).toEqual(['adm_access', 'adm_csrf', 'adm_refresh']);
      expect(session.cookies.adm_access.attributes).toEqual({
        path: '/admin',
        'max-age': '900',
        samesite: 'Strict',
        httponly: true,
        secure: true,
      });
      expect(session.cookies.adm_refresh.attributes).toEqual({
        path: '/admin/auth',
        'max-age': '2592000',
        samesite: 'Strict',
        httponly: true,
        secure: true,
      });
      // Readable by the dashboard page on purpose: it is echoed in X-CSRF-Token.
      expect(session.cookies.adm_csrf.attributes).toEqual({ path: '/admin', 'max-age': '900', samesite: 'Strict', secure: true });
      for (const secret of [session.access, session.refresh, session.csrf]) {
        expect(secret).toBeTruthy();
        expect(JSON.stringify(session.body)).not.toContain(secret);
      }
      expect(decodeJwt(session.access).payload).toMatchObject({ sid: session.body.sessionId, trn: 'cookie', csrf: expect.any(String) });
    });

    it('reads with the cookie alone; a cookie-borne write needs X-CSRF-Token equal to adm_csrf', async () => {
      const session = await signInWithCookies(owner);
      const me = await cookieCall('GET', '/admin/auth/me', { adm_access: session.access });
      expect(ok(me).staff.id).toBe(owner.id);

      const url = '/admin/test-only/sign-in-probe';
      const cookies = { adm_access: session.access, adm_csrf: session.csrf };
      expectProblem(await cookieCall('POST', url, cookies), 403, 'csrf_token_invalid');
      const wrong = await cookieCall('POST', url, cookies, { 'x-csrf-token': `${session.csrf}x` });
      expect(expectProblem(wrong, 403, 'csrf_token_invalid').message_en).toContain('adm_csrf');
      // Another session's CSRF token is bound to another access token.
      const other = await signInWithCookies(owner);
      expectProblem(await cookieCall('POST', url, cookies, { 'x-csrf-token': other.csrf }), 403, 'csrf_token_invalid');

      const accepted = await cookieCall('POST', url, cookies, { 'x-csrf-token': session.csrf });
      expect(ok(accepted)).toEqual({ sessionId: session.body.sessionId, staffId: owner.id });
      // A bearer header is not sent by a browser on its own: no CSRF token needed.
      const bearer = await staffToken(t.app, owner);
      expect((await adminCall(t.app, 'POST', url, bearer)).statusCode).toBe(200);
    });

    it('refreshes with the adm_refresh cookie and no body, answering in cookies again', async () => {
      const first = await signInWithCookies(owner);
      const response = await t.app.inject({ method: 'POST', url: '/admin/auth/refresh', cookies: { adm_refresh: first.refresh } });
      const body = ok(response);
      expect(Object.keys(body).sort()).toEqual(COOKIE_FIELDS);
      expect(body.sessionId).toBe(first.body.sessionId);
      const cookies = setCookies(response);
      expect(cookies.adm_refresh.value).not.toBe(first.refresh);
      expect(cookies.adm_csrf.value).not.toBe(first.csrf);
      expect(cookies.adm_refresh.attributes).toMatchObject({ path: '/admin/auth', samesite: 'Strict', httponly: true });
      const replay = await t.app.inject({ method: 'POST', url: '/admin/auth/refresh', cookies: { adm_refresh: first.refresh } });
      expectProblem(replay, 401, 'refresh_token_reused');
    });

    it('signs out with the CSRF token, and clears the cookies', async () => {
      const session = await signInWithCookies(owner);
      const cookies = { adm_access: session.access, adm_csrf: session.csrf };
      expectProblem(await cookieCall('POST', '/admin/auth/sign-out', cookies), 403, 'csrf_token_invalid');
      const signedOut = await cookieCall('POST', '/admin/auth/sign-out', cookies, { 'x-csrf-token': session.csrf });
      expect(signedOut.statusCode, signedOut.body).toBe(204);
      const cleared = setCookies(signedOut);
      expect(Object.keys(cleared).sort()).toEqual(['adm_access', 'adm_csrf', 'adm_refresh']);
      for (const cookie of Object.values(cleared)) expect(cookie.value).toBe('');
      expectProblem(await cookieCall('GET', '/admin/auth/me', { adm_access: session.access }), 401, 'unauthenticated');
    });
  });

  describe('refresh', () => {
    it('rotates: a new pair for the same session; the old refresh token is single use; the session lives on', async () => {
      const first = await staffSession(t.app, owner);
      const second = ok(await refreshWith(t.app, first.refreshToken));
      expect(Object.keys(second).sort()).toEqual(BEARER_FIELDS);
      expect(second.sessionId).toBe(first.sessionId);
      expect(second.refreshToken).not.toBe(first.refreshToken);
      expect(second.accessToken).not.toBe(first.accessToken);

      // A replay inside the grace window is refused without ending the session (two racing tabs).
      expectProblem(await refreshWith(t.app, first.refreshToken), 401, 'refresh_token_reused');
      expect((await adminCall(t.app, 'GET', '/admin/auth/me', second.accessToken)).statusCode).toBe(200);
      const third = ok(await refreshWith(t.app, second.refreshToken));
      expect(third.sessionId).toBe(first.sessionId);
      const tokens = await t.db.rows('select consumed_at from staff_refresh_tokens where session_id = $1 order by created_at', [
        first.sessionId,
      ]);
      expect(tokens.map((token) => token.consumed_at !== null)).toEqual([true, true, false]);
    });

    it('refuses malformed, unknown and missing tokens with invalid_refresh_token, in words that fit the dashboard', async () => {
      for (const presented of [undefined, 'not-a-token', `rt_${'A'.repeat(43)}`, (await staffSession(t.app, owner)).accessToken]) {
        const body = expectProblem(await refreshWith(t.app, presented), 401, 'invalid_refresh_token');
        expect(body.message_en).not.toMatch(/API key/);
      }
    });

    it('a storefront refresh token is not a dashboard one, nor the other way round', async () => {
      const minted = parse(
        await t.app.inject({
          method: 'POST',
          url: '/v1/auth/anonymous',
          headers: { 'x-api-key': store.key, 'content-type': 'application/json' },
          payload: {},
        }),
      );
      expectProblem(await refreshWith(t.app, minted.refreshToken), 401, 'invalid_refresh_token');
      const staff = await staffSession(t.app, owner);
      const storefront = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/refresh',
        headers: { 'x-api-key': store.key, 'content-type': 'application/json' },
        payload: { refreshToken: staff.refreshToken },
      });
      expectProblem(storefront, 401, 'INVALID_REFRESH_TOKEN');
    });
  });

  describe('sign-out', () => {
    it('204; the access token stops working at once and the refresh token is refused', async () => {
      const session = await staffSession(t.app, owner);
      const other = await staffSession(t.app, owner);
      expect((await adminCall(t.app, 'GET', '/admin/auth/me', session.accessToken)).statusCode).toBe(200);
      const response = await adminCall(t.app, 'POST', '/admin/auth/sign-out', session.accessToken);
      expect(response.statusCode, response.body).toBe(204);
      expect(response.body).toBe('');
      expectProblem(await adminCall(t.app, 'GET', '/admin/auth/me', session.accessToken), 401, 'unauthenticated');
      expectProblem(await refreshWith(t.app, session.refreshToken), 401, 'invalid_refresh_token');
      const [row] = await t.db.rows('select revoked_at, revoked_reason from staff_sessions where id = $1', [session.sessionId]);
      expect(row).toMatchObject({ revoked_at: expect.any(Date), revoked_reason: 'sign_out' });
      // The member's other session is untouched.
      expect((await adminCall(t.app, 'GET', '/admin/auth/me', other.accessToken)).statusCode).toBe(200);
    });

    it('needs a signed-in principal', async () => {
      expectProblem(await adminCall(t.app, 'POST', '/admin/auth/sign-out', undefined), 401, 'unauthenticated');
    });
  });

  describe('tokens of the other area', () => {
    it('a storefront token is refused under /admin (unauthenticated), a staff token on /v1 (UNAUTHENTICATED)', async () => {
      const storefront = await accessToken(t.app, store.key);
      expectProblem(await adminCall(t.app, 'GET', '/admin/auth/me', storefront), 401, 'unauthenticated');
      const staff = await staffToken(t.app, owner);
      expectProblem(await get(t.app, '/v1/catalogue/products', staff), 401, 'UNAUTHENTICATED');
      // A storefront cookie does not authenticate the dashboard either.
      const cookie = await t.app.inject({ method: 'GET', url: '/admin/auth/me', cookies: { sf_access: storefront } });
      expectProblem(cookie, 401, 'unauthenticated');
    });

    it('an expired staff token is token_expired; a tampered one unauthenticated', async () => {
      const session = await staffSession(t.app, owner);
      const { token: expired } = await t.app
        .get(AdminTokenService)
        .signStaff(session.sessionId, 'bearer', undefined, new Date(Date.now() - 16 * 60_000));
      expectProblem(await adminCall(t.app, 'GET', '/admin/auth/me', expired), 401, 'token_expired');
      const [header, payload, signature] = session.accessToken.split('.');
      const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
      expectProblem(await adminCall(t.app, 'GET', '/admin/auth/me', `${header}.${payload}.${flipped}`), 401, 'unauthenticated');
      expectProblem(await adminCall(t.app, 'GET', '/admin/auth/me', 'garbage'), 401, 'unauthenticated');
      const basic = await t.app.inject({ method: 'GET', url: '/admin/auth/me', headers: { authorization: 'Basic dXNlcjpwYXNz' } });
      expectProblem(basic, 401, 'unauthenticated');
    });
  });
});

describe('dashboard refresh past the grace window', () => {
  const t = useTestApp({ REFRESH_REUSE_GRACE_SECONDS: '0' });

  it('a replay revokes the whole session: its access and refresh tokens stop working', async () => {
    const store = await t.store();
    const owner = await addStaff(t.app, store.storeId);
    const first = await staffSession(t.app, owner);
    const second = ok(await refreshWith(t.app, first.refreshToken));
    await sleep(1100);
    expectProblem(await refreshWith(t.app, first.refreshToken), 401, 'refresh_token_reused');
    const [row] = await t.db.rows('select revoked_reason from staff_sessions where id = $1', [first.sessionId]);
    expect(row.revoked_reason).toBe('refresh_token_reuse');
    expectProblem(await refreshWith(t.app, second.refreshToken), 401, 'invalid_refresh_token');
    expectProblem(await adminCall(t.app, 'GET', '/admin/auth/me', second.accessToken), 401, 'unauthenticated');
  });
});
