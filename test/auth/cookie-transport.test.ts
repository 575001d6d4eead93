import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { CurrentSession, RequireScope } from '../../src/auth/access/decorators.js';
import type { SessionPrincipal } from '../../src/auth/principal.js';
import { mint, refresh, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { parse, setCookies, type SetCookie } from '../support/responses.js';
import { decodeJwt } from './support.js';

/**
 * No storefront route changes state with a cookie yet, so the CSRF defence is exercised through a
 * test-only route mounted in the real application: the real global guards, pipes and filter apply.
 */
@Controller('test-only/csrf-probe')
class CsrfProbeController {
  @Post()
  @HttpCode(200)
  @RequireScope('cart:write')
  write(@CurrentSession() session: SessionPrincipal) {
    return { sessionId: session.sessionId, via: session.via };
  }

  @Get()
  @RequireScope('cart:read')
  read(@CurrentSession() session: SessionPrincipal) {
    return { sessionId: session.sessionId, via: session.via };
  }
}

interface CookieSession {
  body: Record<string, any>;
  cookies: Record<string, SetCookie>;
  access: string;
  refresh: string;
  csrf: string;
}

function cookieSession(response: LightMyRequestResponse): CookieSession {
  const cookies = setCookies(response);
  return {
    body: parse(response),
    cookies,
    access: cookies.sf_access?.value,
    refresh: cookies.sf_refresh?.value,
    csrf: cookies.sf_csrf?.value,
  };
}

const COOKIE_FIELDS = ['accessTokenExpiresAt', 'expiresIn', 'refreshTokenExpiresAt', 'scope', 'sessionId', 'tokenType', 'transport'];

describe('cookie transport', () => {
  const t = useTestApp({}, { controllers: [CsrfProbeController] });
  let store: TestStore;

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 3 });
  });

  const mintCookie = async (body: Record<string, unknown> = {}) => {
    const response = await mint(t.app, store.key, { transport: 'cookie', ...body });
    expect(response.statusCode, response.body).toBe(201);
    return cookieSession(response);
  };

  const refreshWithCookie = (refreshCookie: string, options: { payload?: string; contentType?: boolean } = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/auth/refresh',
      headers: { 'x-api-key': store.key, ...(options.contentType ? { 'content-type': 'application/json' } : {}) },
      cookies: { sf_refresh: refreshCookie },
      ...(options.payload !== undefined ? { payload: options.payload } : {}),
    });

  describe('mint', () => {
    it('answers 201 with the cookie body and no token anywhere in it', async () => {
      const session = await mintCookie();
      expect(Object.keys(session.body).sort()).toEqual(COOKIE_FIELDS);
      expect(session.body).toMatchObject({ tokenType: 'Cookie', transport: 'cookie', expiresIn: 900 });
      expect(session.body).not.toHaveProperty('accessToken');
      expect(session.body).not.toHaveProperty('refreshToken');

      for (const secret of [session.access, session.refresh, session.csrf]) {
        expect(secret).toBeTruthy();
        expect(JSON.stringify(session.body)).not.toContain(secret);
      }
      expect(decodeJwt(session.access).payload.sid).toBe(session.body.sessionId);
      expect(decodeJwt(session.access).payload.exp * 1000).toBe(Date.parse(session.body.accessTokenExpiresAt));
    });

    it('sets sf_access, sf_refresh and sf_csrf with exactly the contract’s attributes', async () => {
      const { cookies } = await mintCookie();
      expect(Object.keys(cookies).sort()).toEqual(['sf_access', 'sf_csrf', 'sf_refresh']);

      expect(cookies.sf_access.attributes).toEqual({ path: '/', 'max-age': '900', samesite: 'Lax', httponly: true, secure: true });
      expect(cookies.sf_refresh.attributes).toEqual({
        path: '/v1/auth',
        'max-age': '2592000',
        samesite: 'Strict',
        httponly: true,
        secure: true,
      });
      // The CSRF cookie is readable by the page on purpose (double submit); strict and secure.
      expect(cookies.sf_csrf.attributes).toEqual({ path: '/', 'max-age': '900', samesite: 'Strict', secure: true });

      expect(cookies.sf_refresh.value).toMatch(/^rt_[A-Za-z0-9_-]{43}$/);
      expect(decodeJwt(cookies.sf_access.value).header).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    });

    it('a bearer mint sets no cookie', async () => {
      const response = await mint(t.app, store.key);
      expect(response.headers['set-cookie']).toBeUndefined();
    });

    it('narrows scope in cookie transport too', async () => {
      const session = await mintCookie({ scope: ['catalogue:read'] });
      expect(session.body.scope).toEqual(['catalogue:read']);
      expect(decodeJwt(session.access).payload.scope).toBe('catalogue:read');
    });
  });

  describe('refresh with the sf_refresh cookie', () => {
    it('needs no body: answers 200 in cookie transport with fresh cookies, and the old cookie is consumed', async () => {
      const first = await mintCookie();
      const response = await refreshWithCookie(first.refresh);
      expect(response.statusCode, response.body).toBe(200);
      const second = cookieSession(response);
      expect(Object.keys(second.body).sort()).toEqual(COOKIE_FIELDS);
      expect(second.body).toMatchObject({ tokenType: 'Cookie', transport: 'cookie', sessionId: first.body.sessionId });
      expect(second.refresh).not.toBe(first.refresh);
      expect(second.access).not.toBe(first.access);
      expect(second.csrf).not.toBe(first.csrf);
      for (const secret of [second.access, second.refresh, second.csrf]) expect(JSON.stringify(second.body)).not.toContain(secret);
      expect(second.cookies.sf_refresh.attributes).toMatchObject({ path: '/v1/auth', 'max-age': '2592000', samesite: 'Strict' });

      expectProblem(await refreshWithCookie(first.refresh), 401, 'REFRESH_TOKEN_REUSED');
      expect((await refreshWithCookie(second.refresh)).statusCode).toBe(200);
    });

    it('accepts an empty body with Content-Type: application/json', async () => {
      const first = await mintCookie();
      const response = await refreshWithCookie(first.refresh, { payload: '', contentType: true });
      expect(response.statusCode, response.body).toBe(200);
      expect(parse(response).transport).toBe('cookie');
    });

    it('accepts an empty JSON object', async () => {
      const first = await mintCookie();
      const response = await refreshWithCookie(first.refresh, { payload: '{}', contentType: true });
      expect(response.statusCode, response.body).toBe(200);
    });

    it('without the cookie and without a body the refresh is refused', async () => {
      const response = await t.app.inject({ method: 'POST', url: '/v1/auth/refresh', headers: { 'x-api-key': store.key } });
      expectProblem(response, 401, 'INVALID_REFRESH_TOKEN');
    });

    it('answers in the transport the session was minted with, whichever way the token arrives', async () => {
      const cookieMinted = await mintCookie();
      const viaBody = await refresh(t.app, store.key, cookieMinted.refresh);
      expect(viaBody.statusCode).toBe(200);
      expect(parse(viaBody)).not.toHaveProperty('refreshToken');
      expect(parse(viaBody).transport).toBe('cookie');

      const bearerMinted = parse(await mint(t.app, store.key));
      const viaCookie = await refreshWithCookie(bearerMinted.refreshToken);
      expect(viaCookie.statusCode).toBe(200);
      expect(parse(viaCookie).transport).toBe('bearer');
      expect(viaCookie.headers['set-cookie']).toBeUndefined();
    });
  });

  describe('sf_access cookie authentication', () => {
    it('reads the catalogue with only the sf_access cookie', async () => {
      const session = await mintCookie();
      const response = await t.app.inject({ method: 'GET', url: '/v1/catalogue/products?limit=2', cookies: { sf_access: session.access } });
      expect(response.statusCode, response.body).toBe(200);
      expect(parse(response).items).toHaveLength(2);
    });

    it('a forged or missing cookie is UNAUTHENTICATED', async () => {
      expectProblem(await t.app.inject({ method: 'GET', url: '/v1/catalogue/products' }), 401, 'UNAUTHENTICATED');
      expectProblem(
        await t.app.inject({ method: 'GET', url: '/v1/catalogue/products', cookies: { sf_access: 'not.a.jwt' } }),
        401,
        'UNAUTHENTICATED',
      );
    });

    it('the scope check applies to cookie sessions', async () => {
      const session = await mintCookie({ scope: ['search:read'] });
      const response = await t.app.inject({ method: 'GET', url: '/v1/catalogue/products', cookies: { sf_access: session.access } });
      expect(expectProblem(response, 403, 'INSUFFICIENT_SCOPE').requiredScope).toBe('catalogue:read');
    });
  });

  describe('CSRF on unsafe methods authenticated by the cookie', () => {
    const probe = (method: 'GET' | 'POST', options: { cookies?: Record<string, string>; headers?: Record<string, string> }) =>
      t.app.inject({
        method,
        url: '/test-only/csrf-probe',
        cookies: options.cookies,
        headers: { 'content-type': 'application/json', ...options.headers },
        payload: method === 'POST' ? '{}' : undefined,
      });

    it('refuses a cookie-borne POST without X-CSRF-Token (403 CSRF_TOKEN_INVALID)', async () => {
      const session = await mintCookie();
      expectProblem(await probe('POST', { cookies: { sf_access: session.access, sf_csrf: session.csrf } }), 403, 'CSRF_TOKEN_INVALID');
    });

    it('refuses a wrong token, and another session’s valid token', async () => {
      const session = await mintCookie();
      const other = await mintCookie();
      const cookies = { sf_access: session.access, sf_csrf: session.csrf };
      expectProblem(await probe('POST', { cookies, headers: { 'x-csrf-token': 'guess' } }), 403, 'CSRF_TOKEN_INVALID');
      expectProblem(await probe('POST', { cookies, headers: { 'x-csrf-token': other.csrf } }), 403, 'CSRF_TOKEN_INVALID');
      // Echoing whatever sf_csrf the attacker planted does not help either: the token is bound to the access token.
      expectProblem(
        await probe('POST', { cookies: { sf_access: session.access, sf_csrf: other.csrf }, headers: { 'x-csrf-token': other.csrf } }),
        403,
        'CSRF_TOKEN_INVALID',
      );
    });

    it('allows a cookie-borne POST echoing the sf_csrf value in X-CSRF-Token', async () => {
      const session = await mintCookie();
      const response = await probe('POST', {
        cookies: { sf_access: session.access, sf_csrf: session.csrf },
        headers: { 'x-csrf-token': session.csrf },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(parse(response)).toEqual({ sessionId: session.body.sessionId, via: 'cookie' });
    });

    it('a refresh issues a new CSRF token; the old one stops matching', async () => {
      const first = await mintCookie();
      const second = cookieSession(await refreshWithCookie(first.refresh));
      expectProblem(
        await probe('POST', { cookies: { sf_access: second.access }, headers: { 'x-csrf-token': first.csrf } }),
        403,
        'CSRF_TOKEN_INVALID',
      );
      expect((await probe('POST', { cookies: { sf_access: second.access }, headers: { 'x-csrf-token': second.csrf } })).statusCode).toBe(
        200,
      );
    });

    it('safe methods need no CSRF token', async () => {
      const session = await mintCookie();
      const response = await probe('GET', { cookies: { sf_access: session.access } });
      expect(response.statusCode, response.body).toBe(200);
      expect(parse(response).via).toBe('cookie');
    });

    it('a bearer-header POST needs no CSRF token (a cross-site page cannot set the header)', async () => {
      const bearer = parse(await mint(t.app, store.key));
      const response = await probe('POST', { headers: { authorization: `Bearer ${bearer.accessToken}` } });
      expect(response.statusCode, response.body).toBe(200);
      expect(parse(response)).toEqual({ sessionId: bearer.sessionId, via: 'header' });
    });

    it('a cookie session’s token sent in the Authorization header is treated as bearer', async () => {
      const session = await mintCookie();
      const response = await probe('POST', { headers: { authorization: `Bearer ${session.access}` } });
      expect(response.statusCode, response.body).toBe(200);
      expect(parse(response).via).toBe('header');
    });

    it('a bearer session’s token planted in the sf_access cookie can never pass the CSRF check', async () => {
      const bearer = parse(await mint(t.app, store.key));
      expectProblem(
        await probe('POST', { cookies: { sf_access: bearer.accessToken }, headers: { 'x-csrf-token': 'anything' } }),
        403,
        'CSRF_TOKEN_INVALID',
      );
    });

    it('the scope is checked before CSRF', async () => {
      const session = await mintCookie({ scope: ['cart:read'] });
      const response = await probe('POST', { cookies: { sf_access: session.access }, headers: { 'x-csrf-token': session.csrf } });
      expect(expectProblem(response, 403, 'INSUFFICIENT_SCOPE').requiredScope).toBe('cart:write');
    });
  });
});
