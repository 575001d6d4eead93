import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addStaff, staffToken } from '../support/dashboard.js';
import { accessToken, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';

const LIMIT = 64;
/** `{"a":{"a":…1…}}`, `depth` objects deep. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** The same depth through arrays, inside an object (a body must be an object). */
const nestedArrays = (depth: number) => `{"a":${'['.repeat(depth - 1)}1${']'.repeat(depth - 1)}}`;

/**
 * A JSON body nested deeper than 64 levels is 400 VALIDATION_FAILED (validation_failed under /admin),
 * naming the limit, on every operation that reads a body: never a 500 from a check that recursed
 * (issue 24, item 4). Nothing the service accepts nests that deep.
 */
describe('deeply nested JSON bodies', () => {
  const t = useTestApp();
  let store: TestStore;
  let token: string;
  let owner: string;
  let operations: { method: string; path: string }[];
  let description: string;

  beforeAll(async () => {
    store = await t.store();
    token = await accessToken(t.app, store.key);
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    const document = (await t.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    description = document.info.description;
    operations = Object.entries(document.paths as Record<string, Record<string, { requestBody?: { content: object } }>>).flatMap(
      ([path, byMethod]) =>
        Object.entries(byMethod)
          // A file upload's body is the file, whatever it holds.
          .filter(
            ([method, operation]) => method !== 'get' && !(operation.requestBody && !('application/json' in operation.requestBody.content)),
          )
          .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, randomUUID()) })),
    );
  });

  const send = (method: string, url: string, payload: string) =>
    t.app.inject({
      method: method as 'POST',
      url,
      headers: {
        'x-api-key': store.key,
        authorization: `Bearer ${url.startsWith('/admin/') ? owner : token}`,
        'idempotency-key': randomUUID(),
        'content-type': 'application/json',
      },
      payload,
    });

  it(`answers a body nested 5,000 deep with 400 naming the limit of ${LIMIT} on every operation of both APIs`, async () => {
    const bodies = [nested(5_000), nestedArrays(5_000)];
    for (const { method, path } of operations) {
      for (const payload of bodies) {
        const admin = path.startsWith('/admin/');
        const body = expectProblem(await send(method, path, payload), 400, admin ? 'validation_failed' : 'VALIDATION_FAILED');
        expect(body.errors, `${method} ${path}`).toEqual([
          {
            field: '(body)',
            code: 'maxDepth',
            message_en: `The body must not nest objects and lists more than ${LIMIT} deep.`,
            message_ar: expect.stringContaining(String(LIMIT)),
          },
        ]);
      }
    }
    const named = operations.map(({ method, path }) => `${method} ${path.replace(/[0-9a-f-]{36}/g, '{id}')}`);
    expect(named).toEqual(
      expect.arrayContaining([
        'POST /v1/auth/anonymous',
        'POST /v1/auth/refresh',
        'PATCH /v1/account/profile',
        'POST /v1/account/addresses',
        'POST /v1/cart/items',
        'POST /v1/checkout/orders',
        'POST /admin/auth/refresh',
        'POST /admin/auth/support-session',
        'POST /admin/insights/builder/run',
        'POST /admin/insights/schedules',
        'POST /admin/data-hub/flows/{id}/runs',
      ]),
    );
  });

  it(`reads a body up to ${LIMIT} deep as before, refuses one level more, and says so in the OpenAPI document`, async () => {
    expect(description).toContain(`A JSON body may nest objects and lists at most ${LIMIT} deep`);
    const [atLimit, overLimit] = [nested(LIMIT), nested(LIMIT + 1)];
    // The mint reads no such field: an unknown field is the ordinary refusal, not the depth.
    expect(expectProblem(await send('POST', '/v1/auth/anonymous', atLimit), 400, 'VALIDATION_FAILED').errors[0].field).toBe('a');
    expect(expectProblem(await send('POST', '/v1/auth/anonymous', overLimit), 400, 'VALIDATION_FAILED').errors[0].field).toBe('(body)');
    // Brackets inside text are text.
    const text = JSON.stringify({ a: '{['.repeat(1_000) });
    expect(expectProblem(await send('POST', '/v1/auth/anonymous', text), 400, 'VALIDATION_FAILED').errors[0].field).toBe('a');
  });
});
