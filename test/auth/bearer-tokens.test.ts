import { createHmac } from 'node:crypto';
import { createLocalJWKSet, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIGNING_KEY_STORE, type SigningKeyStore } from '../../src/auth/signing/signing-key-store.js';
import { TokenService } from '../../src/auth/token.service.js';
import { get, mint, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { parse } from '../support/responses.js';
import { decodeJwt } from './support.js';

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

describe('bearer access tokens', () => {
  const t = useTestApp();
  let store: TestStore;
  let token: string;
  let sessionId: string;

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 2 });
    const body = parse(await mint(t.app, store.key));
    token = body.accessToken;
    sessionId = body.sessionId;
  });

  const products = (authorization?: string) =>
    t.app.inject({ method: 'GET', url: '/v1/catalogue/products', headers: authorization === undefined ? {} : { authorization } });

  /** Claims exactly as the service writes them, for hand-built tokens. */
  const claimsOf = (overrides: Record<string, unknown> = {}) => ({ ...decodeJwt(token).payload, ...overrides });

  /** Signs with the service's own active key, so only the property under test is wrong. */
  async function signWithServiceKey(header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string> {
    const key = await t.app.get<SigningKeyStore>(SIGNING_KEY_STORE).active();
    return new SignJWT(payload).setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'at+jwt', ...header }).sign(key.privateKey);
  }

  describe('shape', () => {
    it('is a JWT: EdDSA, typ at+jwt, a kid listed in the JWKS, and verifiable with that JWKS', async () => {
      const { header, payload } = decodeJwt(token);
      expect(header.alg).toBe('EdDSA');
      expect(header.typ).toBe('at+jwt');
      expect(typeof header.kid).toBe('string');

      const jwks = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      expect(jwks.statusCode).toBe(200);
      const { keys } = parse(jwks);
      expect(keys.map((key: { kid: string }) => key.kid)).toContain(header.kid);

      const verified = await jwtVerify(token, createLocalJWKSet({ keys }), { algorithms: ['EdDSA'] });
      expect(verified.payload.sid).toBe(payload.sid);
    });

    it('carries session, store and scopes, and lives exactly 900 s', () => {
      const { payload } = decodeJwt(token);
      expect(payload.sid).toBe(sessionId);
      expect(payload.store).toBe(store.storeId);
      expect(payload.scope).toBe('catalogue:read search:read cart:read cart:write checkout:write account:read account:write orders:read');
      expect(payload.exp - payload.iat).toBe(900);
      expect(Math.abs(payload.iat - Date.now() / 1000)).toBeLessThan(60);
    });

    it('publishes only public Ed25519 keys, cacheable', async () => {
      const jwks = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      expect(jwks.headers['cache-control']).toBe('public, max-age=60');
      const { keys } = parse(jwks);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
        expect(key.x).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(key).not.toHaveProperty('d');
      }
    });

    it('the JWKS needs no token', async () => {
      expect((await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).statusCode).toBe(200);
    });

    it('a valid token reads the catalogue', async () => {
      expect((await products(`Bearer ${token}`)).statusCode).toBe(200);
    });
  });

  describe('UNAUTHENTICATED', () => {
    it('no token at all', async () => {
      expectProblem(await products(), 401, 'UNAUTHENTICATED');
    });

    it.each([
      ['Basic credentials', () => `Basic ${Buffer.from('user:pass').toString('base64')}`],
      ['Bearer with nothing after it', () => 'Bearer '],
      ['the word Bearer alone', () => 'Bearer'],
      ['a token with spaces in it', () => `Bearer ${token} extra`],
      ['the API key as a bearer token', () => `Bearer ${store.key}`],
      ['a string that is not a JWT', () => 'Bearer abc.def.ghi'],
    ])('%s', async (_name, header) => {
      expectProblem(await products(header()), 401, 'UNAUTHENTICATED');
    });

    it('a tampered payload (one character changed)', async () => {
      const [header, payload, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const tampered = b64({ ...claims, store: claims.store.replace(/.$/, (c: string) => (c === '0' ? '1' : '0')) });
      expectProblem(await products(`Bearer ${header}.${tampered}.${signature}`), 401, 'UNAUTHENTICATED');

      // The raw flip too: change one character of the encoded payload segment.
      const i = Math.floor(payload.length / 2);
      const flipped = payload.slice(0, i) + (payload[i] === 'A' ? 'B' : 'A') + payload.slice(i + 1);
      expectProblem(await products(`Bearer ${header}.${flipped}.${signature}`), 401, 'UNAUTHENTICATED');
    });

    it('a tampered signature', async () => {
      const [header, payload, signature] = token.split('.');
      const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
      expectProblem(await products(`Bearer ${header}.${payload}.${flipped}`), 401, 'UNAUTHENTICATED');
    });

    it('a signature from another Ed25519 key with a made-up kid', async () => {
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      const forged = await new SignJWT(claimsOf()).setProtectedHeader({ alg: 'EdDSA', kid: 'made-up-kid', typ: 'at+jwt' }).sign(privateKey);
      expectProblem(await products(`Bearer ${forged}`), 401, 'UNAUTHENTICATED');
    });

    it('a signature from another Ed25519 key carrying the real kid', async () => {
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
      const forged = await new SignJWT(claimsOf())
        .setProtectedHeader({ alg: 'EdDSA', kid: decodeJwt(token).header.kid, typ: 'at+jwt' })
        .sign(privateKey);
      expectProblem(await products(`Bearer ${forged}`), 401, 'UNAUTHENTICATED');
    });

    it('an unsigned token (alg none) with the real kid', async () => {
      const kid = decodeJwt(token).header.kid;
      const unsigned = `${b64({ alg: 'none', kid, typ: 'at+jwt' })}.${b64(claimsOf())}.`;
      expectProblem(await products(`Bearer ${unsigned}`), 401, 'UNAUTHENTICATED');
      const noKid = `${b64({ alg: 'none' })}.${b64(claimsOf())}.`;
      expectProblem(await products(`Bearer ${noKid}`), 401, 'UNAUTHENTICATED');
    });

    it('algorithm confusion: HS256 keyed with the public key', async () => {
      const { header } = decodeJwt(token);
      const { keys } = parse(await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' }));
      const jwk = keys.find((key: { kid: string }) => key.kid === header.kid);
      const signingInput = `${b64({ alg: 'HS256', kid: header.kid, typ: 'at+jwt' })}.${b64(claimsOf())}`;
      // Every plausible byte form of "the public key": raw x, the JWK JSON, the base64url text.
      for (const secret of [Buffer.from(jwk.x, 'base64url'), Buffer.from(JSON.stringify(jwk)), Buffer.from(jwk.x)]) {
        const signature = createHmac('sha256', secret).update(signingInput).digest('base64url');
        expectProblem(await products(`Bearer ${signingInput}.${signature}`), 401, 'UNAUTHENTICATED');
      }
    });

    it('a correctly signed token of the wrong type (typ JWT), audience, or issuer', async () => {
      expectProblem(await products(`Bearer ${await signWithServiceKey({ typ: 'JWT' }, claimsOf())}`), 401, 'UNAUTHENTICATED');
      expectProblem(await products(`Bearer ${await signWithServiceKey({}, claimsOf({ aud: 'someone-else' }))}`), 401, 'UNAUTHENTICATED');
      expectProblem(await products(`Bearer ${await signWithServiceKey({}, claimsOf({ iss: 'someone-else' }))}`), 401, 'UNAUTHENTICATED');
    });

    it('a correctly signed token missing a required claim', async () => {
      for (const claim of ['sid', 'store', 'scope', 'exp', 'iat']) {
        const { [claim]: _dropped, ...rest } = claimsOf();
        expectProblem(await products(`Bearer ${await signWithServiceKey({}, rest)}`), 401, 'UNAUTHENTICATED');
      }
    });

    it('the control: the same hand-built claims signed by the service key are accepted', async () => {
      expect((await products(`Bearer ${await signWithServiceKey({}, claimsOf())}`)).statusCode).toBe(200);
    });
  });

  describe('TOKEN_EXPIRED', () => {
    const claims = () => ({ sessionId, storeId: store.storeId, scopes: ['catalogue:read' as const], transport: 'bearer' as const });

    it('a token issued 16 minutes ago has expired', async () => {
      const { token: expired, expiresAt } = await t.app.get(TokenService).sign(claims(), new Date(Date.now() - 16 * 60_000));
      expect(expiresAt.getTime()).toBeLessThan(Date.now());
      expectProblem(await products(`Bearer ${expired}`), 401, 'TOKEN_EXPIRED');
    });

    it('a token issued 14 minutes ago still works', async () => {
      const { token: fresh } = await t.app.get(TokenService).sign(claims(), new Date(Date.now() - 14 * 60_000));
      expect((await products(`Bearer ${fresh}`)).statusCode).toBe(200);
    });

    it('an expired token with a bad signature is UNAUTHENTICATED, not TOKEN_EXPIRED', async () => {
      const { token: expired } = await t.app.get(TokenService).sign(claims(), new Date(Date.now() - 16 * 60_000));
      const [header, payload, signature] = expired.split('.');
      const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
      expectProblem(await products(`Bearer ${header}.${payload}.${flipped}`), 401, 'UNAUTHENTICATED');
    });
  });

  describe('INSUFFICIENT_SCOPE', () => {
    it('a token without catalogue:read is refused on the catalogue, naming the scope', async () => {
      const narrow = parse(await mint(t.app, store.key, { scope: ['search:read'] }));
      const body = expectProblem(await get(t.app, '/v1/catalogue/products', narrow.accessToken), 403, 'INSUFFICIENT_SCOPE');
      expect(body.requiredScope).toBe('catalogue:read');
      expectProblem(await get(t.app, '/v1/catalogue/brands', narrow.accessToken), 403, 'INSUFFICIENT_SCOPE');
    });

    it('the X-Api-Key header does not authenticate other endpoints', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/v1/catalogue/products', headers: { 'x-api-key': store.key } });
      expectProblem(response, 401, 'UNAUTHENTICATED');
    });
  });
});
