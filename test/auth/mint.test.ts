import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/common/scopes.js';
import { ApiKeyService } from '../../src/stores/api-key.service.js';
import { issueKey, mint, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { parse } from '../support/responses.js';
import { UUID } from '../support/formats.js';
import { decodeJwt, ISO_UTC, REFRESH_TOKEN } from './support.js';

const BEARER_FIELDS = [
  'accessToken',
  'accessTokenExpiresAt',
  'expiresIn',
  'refreshToken',
  'refreshTokenExpiresAt',
  'scope',
  'sessionId',
  'tokenType',
  'transport',
];

describe('POST /v1/auth/anonymous (mint)', () => {
  const t = useTestApp();
  let store: TestStore;

  beforeAll(async () => {
    store = await t.store();
  });

  describe('success', () => {
    it('answers 201 with exactly the bearer body of contract section 4', async () => {
      const before = Date.now();
      const response = await mint(t.app, store.key);
      const after = Date.now();

      expect(response.statusCode).toBe(201);
      expect(response.headers['content-type']).toMatch(/^application\/json\b/);
      expect(response.headers['cache-control']).toBe('no-store');
      const body = parse(response);
      expect(Object.keys(body).sort()).toEqual(BEARER_FIELDS);
      expect(body.tokenType).toBe('Bearer');
      expect(body.transport).toBe('bearer');
      expect(body.expiresIn).toBe(900);
      expect(body.scope).toEqual([...SCOPES]);
      expect(body.sessionId).toMatch(UUID);
      expect(body.accessToken.split('.')).toHaveLength(3);
      expect(body.refreshToken).toMatch(REFRESH_TOKEN);

      expect(body.accessTokenExpiresAt).toMatch(ISO_UTC);
      const accessExpiry = Date.parse(body.accessTokenExpiresAt);
      expect(accessExpiry).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 900_000);
      expect(accessExpiry).toBeLessThanOrEqual(after + 900_000);
      // The advertised expiry is the token's own.
      expect(decodeJwt(body.accessToken).payload.exp * 1000).toBe(accessExpiry);

      expect(body.refreshTokenExpiresAt).toMatch(ISO_UTC);
      const thirtyDays = 30 * 24 * 3600 * 1000;
      expect(Math.abs(Date.parse(body.refreshTokenExpiresAt) - (before + thirtyDays))).toBeLessThan(60_000);
    });

    it('defaults to bearer transport and the key’s scopes with an empty body, and with no body at all', async () => {
      const empty = await mint(t.app, store.key, {});
      expect(empty.statusCode).toBe(201);
      expect(parse(empty)).toMatchObject({ transport: 'bearer', tokenType: 'Bearer', scope: [...SCOPES] });

      const bare = await t.app.inject({ method: 'POST', url: '/v1/auth/anonymous', headers: { 'x-api-key': store.key } });
      expect(bare.statusCode).toBe(201);
      expect(parse(bare)).toMatchObject({ transport: 'bearer', tokenType: 'Bearer', scope: [...SCOPES] });
    });

    it('accepts transport "bearer" explicitly', async () => {
      const response = await mint(t.app, store.key, { transport: 'bearer' });
      expect(response.statusCode).toBe(201);
      expect(parse(response).transport).toBe('bearer');
    });

    it('defaults to the key’s own (narrower) scope set', async () => {
      const narrow = await issueKey(t.app, store.storeId, { scopes: ['search:read', 'catalogue:read'] });
      const response = await mint(t.app, narrow.key);
      expect(response.statusCode).toBe(201);
      const body = parse(response);
      expect(body.scope).toEqual(['catalogue:read', 'search:read']);
      expect(decodeJwt(body.accessToken).payload.scope).toBe('catalogue:read search:read');
    });

    it('narrows the scope to the requested subset, in canonical order, carried by the token', async () => {
      const response = await mint(t.app, store.key, { scope: ['search:read', 'catalogue:read'] });
      expect(response.statusCode).toBe(201);
      const body = parse(response);
      expect(body.scope).toEqual(['catalogue:read', 'search:read']);
      expect(decodeJwt(body.accessToken).payload.scope).toBe('catalogue:read search:read');
    });

    it('treats a repeated scope name as one', async () => {
      const response = await mint(t.app, store.key, { scope: ['cart:read', 'cart:read'] });
      expect(response.statusCode).toBe(201);
      expect(parse(response).scope).toEqual(['cart:read']);
    });

    it('gives every mint its own session and tokens', async () => {
      const [a, b] = await Promise.all([mint(t.app, store.key), mint(t.app, store.key)]);
      expect(parse(a).sessionId).not.toBe(parse(b).sessionId);
      expect(parse(a).refreshToken).not.toBe(parse(b).refreshToken);
      expect(parse(a).accessToken).not.toBe(parse(b).accessToken);
    });

    it('echoes a sane X-Request-Id and makes one otherwise', async () => {
      const echoed = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/anonymous',
        headers: { 'x-api-key': store.key, 'x-request-id': 'client-req-42' },
      });
      expect(echoed.statusCode).toBe(201);
      expect(echoed.headers['x-request-id']).toBe('client-req-42');

      const made = await mint(t.app, store.key);
      expect(made.headers['x-request-id']).toMatch(UUID);
    });
  });

  describe('INVALID_SCOPE', () => {
    it('refuses an undeclared scope name', async () => {
      const body = expectProblem(await mint(t.app, store.key, { scope: ['catalogue:read', 'catalogue:write'] }), 400, 'INVALID_SCOPE');
      expect(body.invalidScopes).toEqual(['catalogue:write']);
    });

    it('refuses a declared scope outside the key’s set', async () => {
      const narrow = await issueKey(t.app, store.storeId, { scopes: ['catalogue:read', 'search:read'] });
      const body = expectProblem(await mint(t.app, narrow.key, { scope: ['catalogue:read', 'cart:write'] }), 400, 'INVALID_SCOPE');
      expect(body.invalidScopes).toEqual(['cart:write']);
      expect(body.allowedScopes).toEqual(['catalogue:read', 'search:read']);
    });

    it('refuses an empty list', async () => {
      expectProblem(await mint(t.app, store.key, { scope: [] }), 400, 'INVALID_SCOPE');
    });

    it('refuses case variants of real scope names', async () => {
      expectProblem(await mint(t.app, store.key, { scope: ['Catalogue:Read'] }), 400, 'INVALID_SCOPE');
    });
  });

  describe('VALIDATION_FAILED', () => {
    const cases: [string, Record<string, unknown>, { field: string; code: string }][] = [
      ['an unknown body field', { transport: 'bearer', admin: true }, { field: 'admin', code: 'whitelistValidation' }],
      ['an unknown transport', { transport: 'carrier-pigeon' }, { field: 'transport', code: 'isIn' }],
      ['a non-string transport', { transport: 1 }, { field: 'transport', code: 'isIn' }],
      ['a scope that is a string, not a list', { scope: 'catalogue:read' }, { field: 'scope', code: 'isArray' }],
      ['a scope list with a non-string', { scope: ['catalogue:read', 7] }, { field: 'scope', code: 'isString' }],
    ];

    it.each(cases)('refuses %s with a field error', async (_name, payload, expected) => {
      const body = expectProblem(await mint(t.app, store.key, payload), 400, 'VALIDATION_FAILED');
      expect(Array.isArray(body.errors)).toBe(true);
      const errors = body.errors as Record<string, string>[];
      expect(errors).toContainEqual(expect.objectContaining(expected));
      for (const error of errors) {
        expect(Object.keys(error).sort()).toEqual(['code', 'field', 'message_ar', 'message_en']);
        expect(error.message_ar).toMatch(/[\u0600-\u06FF]/);
      }
    });

    it('refuses a JSON body that is not an object', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/anonymous',
        headers: { 'x-api-key': store.key, 'content-type': 'application/json' },
        payload: '["catalogue:read"]',
      });
      expectProblem(response, 400, 'VALIDATION_FAILED');
    });

    it('refuses unparseable JSON with MALFORMED_BODY and another media type with 415', async () => {
      const malformed = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/anonymous',
        headers: { 'x-api-key': store.key, 'content-type': 'application/json' },
        payload: '{"transport": ',
      });
      expectProblem(malformed, 400, 'MALFORMED_BODY');

      const text = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/anonymous',
        headers: { 'x-api-key': store.key, 'content-type': 'text/plain' },
        payload: 'transport=cookie',
      });
      expectProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('INVALID_API_KEY', () => {
    it('refuses a missing key', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/anonymous',
        headers: { 'content-type': 'application/json' },
        payload: {},
      });
      expectProblem(response, 401, 'INVALID_API_KEY');
    });

    it.each([
      ['too short', 'sk_live_abc'],
      ['wrong prefix', `sk_test_${'a'.repeat(40)}`],
      ['41 characters', `sk_live_${'a'.repeat(41)}`],
      ['a character outside [A-Za-z0-9]', `sk_live_${'a'.repeat(39)}-`],
      ['the right key with whitespace', ' KEY '],
    ])('refuses a malformed key (%s)', async (_name, value) => {
      expectProblem(await mint(t.app, value === ' KEY ' ? ` ${store.key} ` : value), 401, 'INVALID_API_KEY');
    });

    it('refuses a well-formed key nobody issued', async () => {
      expectProblem(await mint(t.app, `sk_live_${'Z'.repeat(40)}`), 401, 'INVALID_API_KEY');
    });

    it('refuses a revoked key', async () => {
      const key = await issueKey(t.app, store.storeId);
      expect((await mint(t.app, key.key)).statusCode).toBe(201);
      await t.app.get(ApiKeyService).revoke(key.id);
      expectProblem(await mint(t.app, key.key), 401, 'INVALID_API_KEY');
    });

    it('does not accept the key as a bearer token instead of X-Api-Key', async () => {
      const response = await t.app.inject({ method: 'POST', url: '/v1/auth/anonymous', headers: { authorization: `Bearer ${store.key}` } });
      expectProblem(response, 401, 'INVALID_API_KEY');
    });

    it('checks the key before the body: an unauthenticated caller learns nothing about validation', async () => {
      expectProblem(await mint(t.app, `sk_live_${'Z'.repeat(40)}`, { nonsense: 1 }), 401, 'INVALID_API_KEY');
    });

    it('uses the client’s request id in the problem and the header', async () => {
      const response = await t.app.inject({ method: 'POST', url: '/v1/auth/anonymous', headers: { 'x-request-id': 'trace-abc.1' } });
      const body = expectProblem(response, 401, 'INVALID_API_KEY');
      expect(body.requestId).toBe('trace-abc.1');
    });
  });
});
