import { beforeAll, describe, expect, it } from 'vitest';
import { accessToken, get, type TestStore } from '../support/fixtures.js';
import { UUID } from '../support/formats.js';
import { useTestApp, type Harness } from '../support/harness.js';
import { expectProblem, fields, sendRaw } from '../support/problem.js';
import type { ResponseLike } from '../support/responses.js';
import type { ErrorCode } from '../../src/common/errors/error-catalogue.js';

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('error envelope (contract section 2)', () => {
  const t = useTestApp();
  const small = useTestApp({ BODY_LIMIT_BYTES: '2048' });
  let store: TestStore;
  let token: string;

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 12 });
    token = await accessToken(t.app, store.key);
  });

  const post = (app: Harness, url: string, payload: string, contentType = 'application/json', key = store.key) =>
    app.app.inject({ method: 'POST', url, headers: { 'content-type': contentType, 'x-api-key': key }, payload });
  /** The key for the auth routes and the token for the others: the body is what is tested. */
  const postWithEveryCredential = (url: string, payload: string) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'x-api-key': store.key, authorization: `Bearer ${token}` },
      payload,
    });

  describe('routing', () => {
    it('answers an unknown route with 404 NOT_FOUND', async () => {
      expectProblem(await t.app.inject({ method: 'GET', url: '/v1/no-such-thing' }), 404, 'NOT_FOUND');
      expectProblem(await t.app.inject({ method: 'POST', url: '/nope', payload: {} }), 404, 'NOT_FOUND');
      expectProblem(await get(t.app, '/v1/catalogue/products/a/b/c', token), 404, 'NOT_FOUND');
    });

    it('answers a wrong method on a known path with 405 and Allow', async () => {
      const remove = await t.app.inject({ method: 'DELETE', url: '/v1/catalogue/products', headers: { authorization: `Bearer ${token}` } });
      expectProblem(remove, 405, 'METHOD_NOT_ALLOWED');
      expect(remove.headers.allow).toBe('GET, HEAD');

      const getMint = await t.app.inject({ method: 'GET', url: '/v1/auth/anonymous' });
      expectProblem(getMint, 405, 'METHOD_NOT_ALLOWED');
      expect(getMint.headers.allow).toBe('POST');

      const putProduct = await t.app.inject({ method: 'PUT', url: '/v1/catalogue/products/some-slug', payload: {} });
      expectProblem(putProduct, 405, 'METHOD_NOT_ALLOWED');
      expect(putProduct.headers.allow).toBe('GET, HEAD');

      expectProblem(await t.app.inject({ method: 'PATCH', url: '/health/live' }), 405, 'METHOD_NOT_ALLOWED');
    });

    it('refuses an undecodable path or a NUL character in the address with 400, not a database error', async () => {
      const badEncoding = await get(t.app, '/v1/catalogue/products/%E0%A4%A', token);
      expect(fields(expectProblem(badEncoding, 400, 'VALIDATION_FAILED'))).toEqual(['(url)']);
      expect(fields(expectProblem(await get(t.app, '/v1/catalogue/products/ab%00cd', token), 400, 'VALIDATION_FAILED'))).toEqual(['(url)']);
      expect(fields(expectProblem(await get(t.app, '/v1/catalogue/products?category=%00', token), 400, 'VALIDATION_FAILED'))).toEqual([
        '(url)',
      ]);
      expect(fields(expectProblem(await get(t.app, '/v1/catalogue/brands/%00', token), 400, 'VALIDATION_FAILED'))).toEqual(['(url)']);
    });

    it('answers an over-long path parameter with 404 NOT_FOUND in the envelope', async () => {
      expectProblem(await get(t.app, `/v1/catalogue/products/${'x'.repeat(300)}`, token), 404, 'NOT_FOUND');
    });
  });

  describe('requests refused by the HTTP parser, before Fastify (real sockets)', () => {
    const expectClosedProblem = (response: ResponseLike, status: number, code: ErrorCode) => {
      const body = expectProblem(response, status, code);
      expect(body.requestId).toMatch(UUID);
      expect(response.headers.connection).toBe('close');
    };

    it('answers a request head over 16 KiB with 431 REQUEST_HEADER_TOO_LARGE', async () => {
      const base = await t.listen();
      const request = `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`;
      expectClosedProblem(await sendRaw(base, request), 431, 'REQUEST_HEADER_TOO_LARGE');
    });

    it('answers malformed framing with 400 MALFORMED_REQUEST', async () => {
      const base = await t.listen();
      for (const request of [
        'GARBAGE\r\n\r\n',
        'GET /health/live HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
        'POST /v1/auth/anonymous HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
        'GET /health/live HTTP/9.9\r\nHost: x\r\n\r\n',
        'GET /health/live HTTP/1.1\r\nBad Header\r\n\r\n',
        // Parsed by Node, refused by the request guards (Node itself would answer a bare 400).
        'GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n',
      ]) {
        expectClosedProblem(await sendRaw(base, request), 400, 'MALFORMED_REQUEST');
      }
    });

    it('refuses raw UTF-8 in the address with 400 MALFORMED_REQUEST saying to percent-encode; encoded, the same search works', async () => {
      // Node's parser refuses bytes above 0x7F in the request target (RFC 9112); accepting them needs its
      // lenient mode, which also accepts the framing tricks of request smuggling.
      const base = await t.listen();
      const head = (target: string) => `GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`;
      const raw = await sendRaw(base, Buffer.from(head('/v1/search?q=خلاط'), 'utf8'));
      expectClosedProblem(raw, 400, 'MALFORMED_REQUEST');
      expect(JSON.parse(raw.body).message_en).toMatch(/percent-encode/i);
      const encoded = await sendRaw(base, head(`/v1/search?q=${encodeURIComponent('خلاط')}`));
      expect(encoded.statusCode).toBe(200);
    });
  });

  describe('bodies', () => {
    it('answers malformed JSON with 400 MALFORMED_BODY', async () => {
      for (const payload of ['{"transport":', '{transport: "bearer"}', "{'a':1}", '{"a":1}}', 'nul']) {
        expectProblem(await post(t, '/v1/auth/anonymous', payload), 400, 'MALFORMED_BODY');
      }
      expectProblem(await post(t, '/v1/auth/refresh', '{"refreshToken": "x",}'), 400, 'MALFORMED_BODY');
    });

    it('refuses a JSON body that is not an object with 400 VALIDATION_FAILED', async () => {
      for (const payload of ['["bearer"]', '"bearer"', '42', 'true', 'null']) {
        const body = expectProblem(await post(t, '/v1/auth/anonymous', payload), 400, 'VALIDATION_FAILED');
        expect(fields(body)).toEqual(['(body)']);
      }
    });

    it('refuses unknown body fields and NUL characters in strings with 400 VALIDATION_FAILED', async () => {
      const unknown = expectProblem(await post(t, '/v1/auth/anonymous', '{"transport":"bearer","admin":true}'), 400, 'VALIDATION_FAILED');
      expect(fields(unknown)).toContain('admin');
      const nul = expectProblem(await post(t, '/v1/auth/refresh', '{"refreshToken":"abc\\u0000def"}'), 400, 'VALIDATION_FAILED');
      expect(fields(nul)).toEqual(['refreshToken']);
    });

    it('refuses __proto__, constructor and prototype keys at any depth like unknown fields, and they reach no prototype', async () => {
      const cases: [string, string, string][] = [
        ['/v1/auth/anonymous', '{"__proto__":{"transport":"cookie"}}', '__proto__'],
        ['/v1/auth/anonymous', '{"constructor":{"prototype":{"polluted":true}}}', 'constructor'],
        ['/v1/checkout/fulfilment', '{"type":"delivery","address":{"__proto__":{"city":"x"}}}', 'address.__proto__'],
        ['/v1/auth/anonymous', '{"scope":[{"prototype":1}]}', 'scope.0.prototype'],
      ];
      for (const [url, payload, field] of cases) {
        expect(expectProblem(await postWithEveryCredential(url, payload), 400, 'VALIDATION_FAILED').errors, payload).toEqual([
          expect.objectContaining({ field, code: 'whitelistValidation' }),
        ]);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('refuses a lone UTF-16 surrogate in any string of the body, naming the field', async () => {
      const cases: [string, string, string][] = [
        ['/v1/auth/refresh', '{"refreshToken":"rt_\\ud800"}', 'refreshToken'],
        ['/v1/auth/anonymous', '{"scope":["catalogue:read","\\udc00"]}', 'scope.1'],
        ['/v1/account/register', '{"email":"a\\ud800@example.com","password":"long enough"}', 'email'],
        ['/v1/checkout/fulfilment', '{"type":"delivery","address":{"line1":"x\\udfff"}}', 'address.line1'],
        ['/v1/auth/anonymous', '{"\\ud800":1}', '\ud800'],
      ];
      for (const [url, payload, field] of cases) {
        expect(fields(expectProblem(await postWithEveryCredential(url, payload), 400, 'VALIDATION_FAILED')), payload).toEqual([field]);
      }
      // A well-formed pair (an emoji) is text like any other.
      expect((await post(t, '/v1/auth/refresh', '{"refreshToken":"\\ud83d\\ude00"}')).statusCode).toBe(401);
    });

    it('answers other content types with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      expectProblem(await post(t, '/v1/auth/anonymous', '{}', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectProblem(
        await post(t, '/v1/auth/anonymous', 'transport=bearer', 'application/x-www-form-urlencoded'),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      expectProblem(await post(t, '/v1/auth/anonymous', '<a/>', 'application/xml'), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectProblem(await post(t, '/v1/auth/refresh', '--x--', 'multipart/form-data; boundary=x'), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectProblem(await post(t, '/v1/auth/anonymous', '{}', 'application/jsonx'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('accepts JSON with a charset parameter (the control case for 415)', async () => {
      const response = await post(t, '/v1/auth/anonymous', '{"transport":"bearer"}', 'application/json; charset=utf-8');
      expect(response.statusCode).toBe(201);
      expect(response.headers['x-request-id']).toBeTruthy();
    });

    it('answers a body over BODY_LIMIT_BYTES with 413 PAYLOAD_TOO_LARGE', async () => {
      const smallStore = await small.store();
      const justUnder = `{"transport":"bearer"}${' '.repeat(2000)}`;
      expect(Buffer.byteLength(justUnder)).toBeLessThanOrEqual(2048);
      expect((await post(small, '/v1/auth/anonymous', justUnder, 'application/json', smallStore.key)).statusCode).toBe(201);

      const over = `{"transport":"bearer"}${' '.repeat(2100)}`;
      expectProblem(await post(small, '/v1/auth/anonymous', over, 'application/json', smallStore.key), 413, 'PAYLOAD_TOO_LARGE');
      // Refused before any other check: no key either.
      expectProblem(
        await post(small, '/v1/auth/refresh', JSON.stringify({ refreshToken: 'r'.repeat(5000) }), 'application/json', 'none'),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      // The default limit (1 MiB) accepts the same body.
      expect((await post(t, '/v1/auth/anonymous', over)).statusCode).toBe(201);
    });
  });

  describe('list queries', () => {
    it('refuses an unknown query parameter with 400 VALIDATION_FAILED naming it', async () => {
      for (const list of ['products', 'categories', 'brands']) {
        const body = expectProblem(await get(t.app, `/v1/catalogue/${list}?sort=name&limit=5`, token), 400, 'VALIDATION_FAILED');
        expect(body.errors).toEqual([expect.objectContaining({ field: 'sort', code: 'whitelistValidation' })]);
      }
      const brandFilterOnCategories = expectProblem(await get(t.app, '/v1/catalogue/categories?brand=x', token), 400, 'VALIDATION_FAILED');
      expect(fields(brandFilterOnCategories)).toEqual(['brand']);
    });

    it('refuses limit outside 1..100 or not a whole number', async () => {
      for (const limit of ['0', '101', 'abc', '-1', '2.5', '', '1e9']) {
        const body = expectProblem(await get(t.app, `/v1/catalogue/products?limit=${limit}`, token), 400, 'VALIDATION_FAILED');
        expect(new Set(fields(body))).toEqual(new Set(['limit']));
      }
      expectProblem(await get(t.app, '/v1/catalogue/brands?limit=1&limit=2', token), 400, 'VALIDATION_FAILED');
      // Boundaries are accepted.
      expect((await get(t.app, '/v1/catalogue/products?limit=1', token)).json().items).toHaveLength(1);
      expect((await get(t.app, '/v1/catalogue/products?limit=100', token)).statusCode).toBe(200);
    });

    it('refuses a tampered cursor with 400, never 500', async () => {
      const page = (await get(t.app, '/v1/catalogue/products?limit=2', token)).json();
      expect(page.nextCursor).toEqual(expect.any(String));
      const realTimestamp = JSON.parse(Buffer.from(page.nextCursor, 'base64url').toString())[0] as string;
      const cases: [string, string][] = [
        ['products', 'not-a-cursor'],
        ['products', '%%%'],
        ['products', page.nextCursor.slice(0, -3)],
        ['products', cursorOf({ a: 1 })],
        ['products', cursorOf([realTimestamp])],
        ['products', cursorOf([realTimestamp, "x' or 1=1 --"])],
        ['products', cursorOf(["2024-01-01T00:00:00.000000Z'; drop table products; --", '00000000-0000-0000-0000-000000000000'])],
        ['products', cursorOf(['2024-13-45T25:61:61.000000Z', '00000000-0000-0000-0000-000000000000'])],
        ['products', cursorOf(['2023-02-29T10:00:00.000000Z', '00000000-0000-0000-0000-000000000000'])],
        ['products', cursorOf(['0000-01-01T00:00:00.000000Z', '00000000-0000-0000-0000-000000000000'])],
        ['products', cursorOf(['2024-01-01 00:00:00+00', '00000000-0000-0000-0000-000000000000'])],
        ['products', 'A'.repeat(600)],
        ['categories', page.nextCursor],
        ['categories', cursorOf([3_000_000_000, 0, 'a'])],
        ['categories', cursorOf([0, 1e300, 'a'])],
        ['categories', cursorOf([0, 0.5, 'a'])],
        ['brands', cursorOf(['a\u0000b'])],
        ['brands', cursorOf(['x'.repeat(300)])],
        ['brands', cursorOf([1])],
      ];
      for (const [list, cursor] of cases) {
        const response = await get(t.app, `/v1/catalogue/${list}?cursor=${encodeURIComponent(cursor)}`, token);
        const body = expectProblem(response, 400, 'VALIDATION_FAILED');
        expect(fields(body), `${list} ${cursor}`).toEqual(['cursor']);
      }
      // A leap day is a real date: the well-formed control case passes.
      const leap = await get(
        t.app,
        `/v1/catalogue/products?cursor=${cursorOf(['2024-02-29T10:00:00.123456Z', '00000000-0000-0000-0000-000000000000'])}`,
        token,
      );
      expect(leap.statusCode).toBe(200);
    });
  });

  describe('authentication failures use the envelope too', () => {
    it('401 UNAUTHENTICATED without or with a malformed bearer token', async () => {
      expectProblem(await t.app.inject({ method: 'GET', url: '/v1/catalogue/products' }), 401, 'UNAUTHENTICATED');
      expectProblem(await get(t.app, '/v1/catalogue/products', 'not.a.jwt'), 401, 'UNAUTHENTICATED');
      expectProblem(await post(t, '/v1/auth/anonymous', '{}', 'application/json', 'sk_live_nope'), 401, 'INVALID_API_KEY');
    });
  });

  describe('X-Request-Id', () => {
    it('echoes a sane client request id, in the header and the problem body', async () => {
      const id = 'client-Req_42.a:b';
      const ok = await t.app.inject({ method: 'GET', url: '/health/live', headers: { 'x-request-id': id } });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['x-request-id']).toBe(id);
      const problem = await t.app.inject({ method: 'GET', url: '/v1/nope', headers: { 'x-request-id': id } });
      expect(expectProblem(problem, 404, 'NOT_FOUND').requestId).toBe(id);
      const maxLength = 'a'.repeat(128);
      expect(
        (await t.app.inject({ method: 'GET', url: '/health/live', headers: { 'x-request-id': maxLength } })).headers['x-request-id'],
      ).toBe(maxLength);
    });

    it('replaces a request id that is too long or has unsafe characters', async () => {
      for (const garbage of ['a'.repeat(300), 'has spaces', 'semi;colon', '<script>', 'ünïcode', 'a'.repeat(129)]) {
        const response = await t.app.inject({ method: 'GET', url: '/v1/nope', headers: { 'x-request-id': garbage } });
        const body = expectProblem(response, 404, 'NOT_FOUND');
        expect(body.requestId).not.toBe(garbage);
        expect(body.requestId).toMatch(UUID);
      }
    });

    it('carries a fresh id on every response, successes included', async () => {
      const responses = await Promise.all([
        t.app.inject({ method: 'GET', url: '/health/live' }),
        get(t.app, '/v1/catalogue/products?limit=1', token),
        get(t.app, '/v1/catalogue/categories?limit=1', token),
        post(t, '/v1/auth/anonymous', '{}'),
        t.app.inject({ method: 'GET', url: '/docs/openapi.json' }),
        t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' }),
      ]);
      expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 201, 200, 200]);
      const ids = responses.map((response) => response.headers['x-request-id']);
      for (const id of ids) expect(id).toMatch(UUID);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('carries the id on refusals made before any hook (router errors)', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/v1/catalogue/brands/%E0%A4%A', headers: { 'x-request-id': 'router-1' } });
      expect(expectProblem(response, 400, 'VALIDATION_FAILED').requestId).toBe('router-1');
    });
  });
});
