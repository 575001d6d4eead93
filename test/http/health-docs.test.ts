import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { accessToken, createStore } from '../support/fixtures.js';
import { expectProblem } from '../support/problem.js';
import { discoverRoutes, type DiscoveredRoute } from '../support/routes.js';
import { useTestApp } from '../support/harness.js';
import { createIsolatedDatabase, startTestApp, type TestApp } from '../support/test-app.js';
import { withClient } from '../support/waiting.js';

type OpenApi = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
};
type Operation = {
  'x-required-scope'?: string;
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  parameters?: { name: string; in: string; schema?: Schema }[];
  security?: Record<string, unknown>[];
};
type Schema = { $ref?: string; properties?: Record<string, Schema>; required?: string[]; [key: string]: unknown };

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('health', () => {
  const t = useTestApp();

  it('GET /health/live answers 200 without credentials', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health/live' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
    expect(response.headers['x-request-id']).toBeTruthy();
  });

  it('GET /health/ready answers 200 with the database up', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health/ready' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', checks: { database: { status: 'up', latencyMs: expect.any(Number) } } });
  });

  /**
   * A database of its own (so that other test files running meanwhile are not disturbed): an app
   * serves from it, then the database refuses connections and its sessions are terminated.
   */
  describe('with the database unreachable', () => {
    const adminUrl = Object.assign(new URL(inject('databaseUrl')), { pathname: '/postgres' }).toString();
    let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
    let name: string;
    let app: NestFastifyApplication;
    let t: TestApp;
    let blocked = false;

    const block = () =>
      withClient(adminUrl, async (admin) => {
        await admin.query(`alter database ${name} allow_connections false`);
        blocked = true;
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      });
    const unblock = () =>
      withClient(adminUrl, async (admin) => {
        await admin.query(`alter database ${name} allow_connections true`);
        blocked = false;
      });

    beforeAll(async () => {
      database = await createIsolatedDatabase();
      name = new URL(database.url).pathname.slice(1);
      t = await startTestApp({ DATABASE_URL: database.url, DATABASE_POOL_SIZE: '3' });
      app = t.app;
    });
    afterAll(async () => {
      if (blocked) await unblock();
      await t?.close();
      await database?.drop();
    });

    it('answers 503 SERVICE_UNAVAILABLE while it is down, and 200 again once it is back', async () => {
      const store = await createStore(app);
      const token = await accessToken(app, store.key);
      const before = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(before.statusCode).toBe(200);

      await block();
      const down = await app.inject({ method: 'GET', url: '/health/ready', headers: { 'x-request-id': 'ready-probe-1' } });
      const body = expectProblem(down, 503, 'SERVICE_UNAVAILABLE');
      expect(body.requestId).toBe('ready-probe-1');
      expect(body.checks).toEqual({ database: { status: 'down' } });
      expect(down.body).not.toMatch(/allow|connections|terminat|database "|FATAL/i);
      // Liveness does not depend on the database.
      expect((await app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
      // Requests that need the database say it is unavailable (503, retry), not that the service broke.
      for (const request of [
        { method: 'GET' as const, url: '/v1/catalogue/products?limit=7', headers: { authorization: `Bearer ${token}` } },
        { method: 'POST' as const, url: '/v1/auth/anonymous', headers: { 'x-api-key': store.key } },
      ]) {
        const unavailable = await app.inject(request);
        expectProblem(unavailable, 503, 'SERVICE_UNAVAILABLE');
        expect(unavailable.headers['retry-after']).toBe('5');
      }

      await unblock();
      const after = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(after.statusCode).toBe(200);
      expect(after.json().checks.database.status).toBe('up');
    });
  });
});

describe('API documents', () => {
  const t = useTestApp();
  let doc: OpenApi;
  let routes: DiscoveredRoute[];

  beforeAll(async () => {
    routes = discoverRoutes(t.app);
    const response = await t.app.inject({ method: 'GET', url: '/docs/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    doc = response.json();
  });

  const operation = (route: DiscoveredRoute) => doc.paths[route.openApiPath]?.[route.method.toLowerCase()];
  const resolve = (schema: Schema | undefined): Schema | undefined => {
    if (!schema?.$ref) return schema;
    expect(schema.$ref).toMatch(/^#\/components\/schemas\//);
    return doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
  };

  it('is OpenAPI 3.1', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['adminBearer', 'adminCookie', 'apiKey', 'bearer', 'cookie']);
  });

  it('documents every route the application registers, and nothing else', () => {
    expect(routes.length).toBeGreaterThan(8);
    const missing = routes.filter((route) => !operation(route)).map((route) => `${route.method} ${route.openApiPath}`);
    expect(missing).toEqual([]);
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => HTTP_METHODS.includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map((route) => `${route.method} ${route.openApiPath}`).sort());
  });

  it('gives every storefront route its x-required-scope and its 401/403 problem responses', () => {
    const scoped = routes.filter((route) => route.rule?.kind === 'scope');
    expect(scoped.length).toBeGreaterThanOrEqual(6);
    for (const route of scoped) {
      const op = operation(route)!;
      const where = `${route.method} ${route.path}`;
      expect(op['x-required-scope'], where).toBe((route.rule as { scope: string }).scope);
      for (const status of ['401', '403']) {
        const schema = op.responses[status]?.content?.['application/problem+json']?.schema;
        expect(schema?.$ref, `${where} ${status}`).toBe('#/components/schemas/ProblemDocument');
      }
      expect(op.security, where).toEqual(expect.arrayContaining([{ bearer: [] }]));
    }
  });

  it('describes the problem document with every member of the contract', () => {
    const problem = doc.components.schemas.ProblemDocument;
    expect(Object.keys(problem.properties!)).toEqual(
      expect.arrayContaining([
        'type',
        'title',
        'status',
        'code',
        'message_en',
        'message_ar',
        'requestId',
        'errors',
        'suggestion',
        'requiredScope',
      ]),
    );
    expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'code', 'message_en', 'message_ar', 'requestId']));
  });

  it('has request body schemas for the two session endpoints', () => {
    const mint = resolve(doc.paths['/v1/auth/anonymous'].post.requestBody?.content['application/json'].schema);
    expect(Object.keys(mint?.properties ?? {}).sort()).toEqual(['scope', 'transport']);
    expect(JSON.stringify(mint?.properties?.transport)).toContain('cookie');
    const refresh = resolve(doc.paths['/v1/auth/refresh'].post.requestBody?.content['application/json'].schema);
    expect(Object.keys(refresh?.properties ?? {})).toEqual(['refreshToken']);
    for (const path of ['/v1/auth/anonymous', '/v1/auth/refresh']) {
      const op = doc.paths[path].post;
      expect(op.security, path).toEqual([{ apiKey: [] }]);
      expect(op.responses['401']?.content?.['application/problem+json']?.schema?.$ref).toBe('#/components/schemas/ProblemDocument');
      expect(op.responses['429'], path).toBeDefined();
    }
  });

  it('references response schemas for the catalogue, and documents the list parameters', () => {
    const expected: Record<string, string> = {
      '/v1/catalogue/products': 'ProductPage',
      '/v1/catalogue/products/{idOrSlug}': 'ProductResponse',
      '/v1/catalogue/categories': 'CategoryPage',
      '/v1/catalogue/categories/{idOrSlug}': 'CategoryDetailResponse',
      '/v1/catalogue/brands': 'BrandPage',
      '/v1/catalogue/brands/{idOrSlug}': 'BrandResponse',
    };
    for (const [path, schemaName] of Object.entries(expected)) {
      const op = doc.paths[path].get;
      expect(op.responses['200']?.content?.['application/json']?.schema?.$ref, path).toBe(`#/components/schemas/${schemaName}`);
      expect(doc.components.schemas[schemaName]?.properties, schemaName).toBeDefined();
      if (path.endsWith('}')) {
        expect(op.responses['404']?.content?.['application/problem+json']?.schema?.$ref, path).toBe('#/components/schemas/ProblemDocument');
      } else {
        const names = (op.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
        expect(names, path).toEqual(expect.arrayContaining(['limit', 'cursor']));
        expect(op.responses['400']?.content?.['application/problem+json'], path).toBeDefined();
      }
    }
    const product = doc.components.schemas.ProductResponse.properties!;
    expect(Object.keys(product)).toEqual(
      expect.arrayContaining(['id', 'slug', 'name', 'description', 'priceRange', 'variants', 'inStock']),
    );
    const page = doc.components.schemas.ProductPage.properties!;
    expect(Object.keys(page).sort()).toEqual(['items', 'nextCursor']);
  });

  it('GET /docs answers the interactive HTML page', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toMatch(/<html/i);
    expect(response.headers['x-request-id']).toBeTruthy();
  });

  it("redirects the page's other spellings to /docs, whose linked assets all load", async () => {
    for (const [url, location] of [
      ['/docs/', '/docs'],
      ['/docs/index.html', '/docs'],
      ['/docs/?tag=catalogue', '/docs?tag=catalogue'],
    ]) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(301);
      expect(response.headers.location, url).toBe(location);
    }
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, link]) => new URL(link, 'http://localhost/docs').pathname);
    expect(assets).toEqual(expect.arrayContaining(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui-init.js']));
    for (const asset of assets) expect((await t.app.inject({ method: 'GET', url: asset })).statusCode, asset).toBe(200);
  });

  it('GET /docs/openapi.json/ answers the document too', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs/openapi.json/' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(doc);
  });
});
