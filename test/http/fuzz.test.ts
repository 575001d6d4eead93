import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { signedUp } from '../account/helpers.js';
import { addStaff, staffToken } from '../support/dashboard.js';
import { issueKey, mint } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem, sendRaw } from '../support/problem.js';
import type { ResponseLike } from '../support/responses.js';

/**
 * Property-based: requests generated from the service's own OpenAPI document, for every operation of
 * both APIs, valid and hostile (lone surrogates, NUL, huge numbers, nulls, wrong types, prototype keys,
 * over-long and Arabic text, values and whole bodies nested deeper than the body's limit), with and
 * without credentials: a shopper's or an anonymous session's on the storefront, the store owner's under
 * /admin. No answer may be a 5xx, and every refusal must be the contract's problem document. Reproduce
 * a failure with FUZZ_SEED=<seed printed by fast-check>; FUZZ_BUDGET_MS bounds the whole run (default 40 s, split over the operations), FUZZ_RUNS the requests per
 * operation (default 250).
 */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 40_000);
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 250);

/** The value one time in four, otherwise null. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary, weight: 1 });

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  example?: unknown;
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
};
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  credential: 'apiKey' | 'bearer' | 'adminBearer' | 'none';
}
interface GeneratedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

const LONE_SURROGATES = ['\ud800', 'x\udfffy', '\udc00\ud800'];
const HOSTILE_STRINGS = [
  ...LONE_SURROGATES,
  'a\u0000b',
  '',
  ' ',
  'خلاط كهربائي',
  'x'.repeat(5_000),
  "' or 1=1 --",
  '__proto__',
  '%00',
  '\u202e',
];
/** `depth` objects (or lists) inside one another: past the body's limit of 64 wherever it is put. */
const nested = (depth: number, open: string, close: string) => JSON.parse(`${open.repeat(depth)}1${close.repeat(depth)}`);
/** A whole body as deep as a careless or hostile client makes one: refused before it is walked. */
const DEEP_BODY = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
const HOSTILE_VALUES: unknown[] = [
  ...HOSTILE_STRINGS,
  null,
  true,
  0,
  -1,
  0.5,
  2 ** 31,
  2 ** 53 + 2,
  1e308,
  -1e308,
  [],
  {},
  [null],
  JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
  nested(70, '{"a":', '}'),
  nested(70, '[', ']'),
];
/** Already percent-encoded: a lone surrogate or NUL cannot go through encodeURIComponent. */
const HOSTILE_QUERY = [
  '%ED%A0%80',
  '%00',
  '%FF%FE',
  '%',
  '%E0%A4%A',
  '%2F..%2F',
  'a'.repeat(3_000),
  encodeURIComponent('خلاط'),
  '1e400',
  '-0',
];

describe('fuzzing every operation of the OpenAPI document', () => {
  const t = useTestApp();
  let schemas: Record<string, Schema>;
  let operations: Operation[];
  let key: string;
  let token: string;
  let shopperToken: string;
  let ownerToken: string;
  let slugs: string[];

  beforeAll(async () => {
    const store = await t.store({ seedCatalogue: true, productCount: 8 });
    // Thousands of requests a minute: the key's rate limit is not what is being tested.
    key = (await issueKey(t.app, store.storeId, { rateLimitPerMinute: 1_000_000 })).key;
    token = (await mint(t.app, key)).json().accessToken;
    shopperToken = (await signedUp(t, { ...store, key })).token;
    ownerToken = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    const products = (
      await t.app.inject({ method: 'GET', url: '/v1/catalogue/products', headers: { authorization: `Bearer ${token}` } })
    ).json();
    slugs = products.items.flatMap((product: { slug: string; id: string; variants: { id: string }[] }) => [
      product.slug,
      product.id,
      ...product.variants.map((variant) => variant.id),
    ]);
    const document = (await t.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    schemas = document.components.schemas;
    operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        body: operation.requestBody?.content?.['application/json']?.schema,
        credential:
          (['apiKey', 'bearer', 'adminBearer'] as const).find((scheme) => operation.security?.some((rule: object) => scheme in rule)) ??
          (path.startsWith('/admin/') ? 'adminBearer' : 'none'),
      })),
    );
  });
  /** A `$ref`, or the one `$ref` a documented nested object is wrapped in (`allOf`), as its schema. */
  const resolve = (schema: Schema): Schema => {
    const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
    return ref ? schemas[ref.split('/').pop()!] : schema;
  };

  /**
   * A value the schema describes; when hostile, at every level three values in seven are null or another
   * hostile value, and objects get stray keys. Null has its own share: it is the commonest client mistake.
   */
  function valueFor(schema: Schema, hostile: boolean, depth = 0): fc.Arbitrary<unknown> {
    const described = conforming(resolve(schema), hostile, depth);
    if (!hostile) return described;
    return fc.oneof(
      { arbitrary: described, weight: 4 },
      { arbitrary: fc.constant(null), weight: 1 },
      { arbitrary: fc.constantFrom(...HOSTILE_VALUES), weight: 2 },
    );
  }

  function conforming(schema: Schema, hostile: boolean, depth: number): fc.Arbitrary<unknown> {
    if (schema.enum) return fc.constantFrom(...schema.enum);
    const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? (schema.properties ? 'object' : 'string')];
    const type = types.find((candidate) => candidate !== 'null')!;
    const base = ((): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'integer':
          return fc.integer({ min: (schema.minimum ?? -1_000) - 2, max: (schema.maximum ?? 1_000_000) + 2 });
        case 'boolean':
          return fc.boolean();
        case 'array':
          return depth > 2 ? fc.constant([]) : fc.array(valueFor(schema.items ?? {}, hostile, depth + 1), { maxLength: 20 });
        case 'object':
          return depth > 2 ? fc.constant({}) : objectFor(schema, hostile, depth + 1);
        default:
          if (schema.format === 'uuid') return fc.oneof(fc.uuid(), fc.constantFrom(...slugs));
          // The document's examples make formats (email, phone, code) valid often enough to get past validation.
          return fc.oneof(
            ...(typeof schema.example === 'string' ? [{ arbitrary: fc.constant(schema.example), weight: 4 }] : []),
            { arbitrary: fc.string({ maxLength: Math.min(schema.maxLength ?? 30, 30), unit: 'grapheme-ascii' }), weight: 2 },
            { arbitrary: fc.string({ maxLength: (schema.maxLength ?? 50) + 2, unit: 'binary' }), weight: 1 },
            { arbitrary: fc.constantFrom(...slugs), weight: 1 },
          );
      }
    })();
    return types.includes('null') ? fc.option(base, { nil: null }) : base;
  }

  function objectFor(schema: Schema, hostile: boolean, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const properties = Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([name, property]) => [name, valueFor(property, hostile, depth)]),
    );
    const record = fc.record(properties, { requiredKeys: (schema.required ?? []).filter((name) => name in properties) });
    if (!hostile) return record;
    return fc
      .tuple(record, rarely(fc.constantFrom('__proto__', 'constructor', 'prototype', 'admin', '\ud800', 'a\u0000')))
      .map(([record, extra]) => {
        if (extra === null) return record;
        // Through JSON text: JSON.parse makes `__proto__` an own key, where an assignment would set the prototype.
        const rest = JSON.stringify(record).slice(1);
        return JSON.parse(`{${JSON.stringify(extra)}:1${rest === '}' ? '' : ','}${rest}`);
      });
  }

  function encodedQueryValue(schema: Schema): fc.Arbitrary<string> {
    return fc.oneof(
      { arbitrary: conforming(resolve(schema), false, 0).map((value) => encodeURIComponent(String(value))), weight: 3 },
      { arbitrary: fc.constantFrom(...HOSTILE_QUERY), weight: 1 },
    );
  }

  /** The bearer token a request is signed in with: never one it would sign out, which the rest of the run needs. */
  function sessionFor(operation: Operation, credentials: string): string {
    if (operation.path.endsWith('/sign-out')) return token;
    if (operation.credential === 'adminBearer') return ownerToken;
    return credentials === 'shopper' ? shopperToken : token;
  }

  function requestFor(operation: Operation): fc.Arbitrary<GeneratedRequest> {
    const path = operation.parameters.filter((parameter) => parameter.in === 'path');
    const query = operation.parameters.filter((parameter) => parameter.in === 'query');
    const body = operation.body ? resolve(operation.body) : undefined;
    return fc
      .record({
        path: fc.tuple(
          ...path.map(() =>
            fc.oneof(
              fc.uuid(),
              fc.constantFrom(...slugs),
              fc.string({ unit: 'binary', maxLength: 300 }).map(encodeURIComponent),
              fc.constantFrom(...HOSTILE_QUERY),
            ),
          ),
        ),
        query: fc.tuple(...query.map((parameter) => fc.option(encodedQueryValue(parameter.schema), { freq: parameter.required ? 10 : 2 }))),
        extraQuery: rarely(fc.constantFrom('unknown=1', 'limit=1&limit=2', '__proto__=x', 'constructor[prototype]=1')),
        credentials: fc.constantFrom('anonymous', 'shopper', 'shopper', 'none', 'garbage'),
        body: body ? fc.oneof(valueFor(body, false), valueFor(body, false), valueFor(body, true)) : fc.constant(undefined),
        encoding: fc.constantFrom('json', 'json', 'json', 'json', 'truncated', 'text/plain', 'deep', 'none'),
      })
      .map(({ path: pathValues, query: queryValues, extraQuery, credentials, body: payload, encoding }) => {
        let url = operation.path;
        path.forEach((parameter, index) => (url = url.replace(`{${parameter.name}}`, pathValues[index])));
        const pairs = query.flatMap((parameter, index) => (queryValues[index] === null ? [] : [`${parameter.name}=${queryValues[index]}`]));
        if (extraQuery) pairs.push(extraQuery);
        if (pairs.length > 0) url += `?${pairs.join('&')}`;
        const headers: Record<string, string> = { 'idempotency-key': randomUUID() };
        const secret =
          credentials === 'none' || credentials === 'garbage'
            ? 'garbage.not.valid'
            : operation.credential === 'apiKey'
              ? key
              : sessionFor(operation, credentials);
        if (credentials !== 'none')
          headers[operation.credential === 'apiKey' ? 'x-api-key' : 'authorization'] =
            operation.credential === 'apiKey' ? secret : `Bearer ${secret}`;
        if (payload === undefined || encoding === 'none') return { method: operation.method, url, headers };
        const json = JSON.stringify(payload);
        headers['content-type'] = encoding === 'text/plain' ? 'text/plain' : 'application/json';
        const bodies = { truncated: json.slice(0, Math.max(1, json.length - 1)), deep: DEEP_BODY };
        return { method: operation.method, url, headers, payload: encoding in bodies ? bodies[encoding as keyof typeof bodies] : json };
      });
  }

  /** Below 400 nothing to check but the id; from 400 on, the contract's problem document. */
  function expectContractAnswer(response: ResponseLike, label: string) {
    expect(response.statusCode, label).toBeLessThan(500);
    expect(response.headers['x-request-id'], label).toEqual(expect.any(String));
    if (response.statusCode >= 400) expectProblem(response, response.statusCode, JSON.parse(response.body).code);
  }

  it('covers every operation of the document, those of /admin signed in as the owner', () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
    expect(operations.filter((operation) => operation.body).length).toBeGreaterThanOrEqual(14);
    const admin = operations.filter((operation) => operation.path.startsWith('/admin/'));
    expect(admin.length).toBeGreaterThanOrEqual(40);
    expect(admin.filter((operation) => operation.credential !== 'adminBearer')).toEqual([]);
  });

  it(
    'answers every generated request in the contract, never with a 5xx',
    async () => {
      const timeLimit = Math.floor((BUDGET_MS * 0.8) / operations.length);
      let sent = 0;
      for (const operation of operations) {
        await fc.assert(
          fc.asyncProperty(requestFor(operation), async (request) => {
            const response = await t.app.inject({
              method: request.method as 'GET',
              url: request.url,
              headers: request.headers,
              payload: request.payload,
            });
            sent++;
            expectContractAnswer(response, `${request.method} ${request.url} ${request.payload ?? ''}`.slice(0, 500));
          }),
          { numRuns: RUNS_PER_OPERATION, seed: SEED, interruptAfterTimeLimit: timeLimit },
        );
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      console.info(`fuzz: ${sent} requests over ${operations.length} operations`);
    },
    BUDGET_MS + 30_000,
  );

  it('answers raw requests with arbitrary bytes in the request line and headers in the contract', async () => {
    const base = await t.listen();
    // No CR or LF inside a field: each generated request is one request head, answered and closed.
    const fieldBytes = fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes.filter((byte) => byte !== 13 && byte !== 10)));
    const target = fc.oneof(
      fieldBytes.map((bytes) => Buffer.concat([Buffer.from('/v1/search?q='), bytes])),
      fieldBytes.map((bytes) => Buffer.concat([Buffer.from('/'), bytes])),
      fc.constantFrom(...operations.map((operation) => Buffer.from(operation.path))),
    );
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'BREW', 'G(T'),
      target,
      version: fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 extra', ''),
      headerName: fc.constantFrom('X-Test', 'Authorization', 'X-Api-Key', 'Bad Name', 'X-Request-Id', ''),
      headerValue: fieldBytes,
      padding: fc.constantFrom(0, 0, 0, 20_000),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ method, target: path, version, headerName, headerValue, padding }) => {
        const head = Buffer.concat([
          Buffer.from(`${method} `),
          path,
          Buffer.from(` ${version}\r\nHost: fuzz\r\nConnection: close\r\n${headerName}: `),
          headerValue,
          Buffer.from(`\r\n${padding ? `X-Padding: ${'p'.repeat(padding)}\r\n` : ''}\r\n`),
        ]);
        const response = await sendRaw(base, head);
        // HEAD answers carry no body: the status and headers are what there is to check.
        if (method === 'HEAD' && response.statusCode < 500) return;
        expectContractAnswer(response, JSON.stringify(head.toString('latin1').slice(0, 300)));
      }),
      { numRuns: 150, seed: SEED, interruptAfterTimeLimit: 15_000 },
    );
  }, 60_000);
});
