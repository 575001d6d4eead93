import { Controller, Get, Post } from '@nestjs/common';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/common/scopes.js';
import { accessToken, type TestStore } from '../support/fixtures.js';
import { expectProblem } from '../support/problem.js';
import { concreteUrl, discoverRoutes, type DiscoveredRoute } from '../support/routes.js';
import { useTestApp } from '../support/harness.js';

/** Routes anyone may call. Adding one is a decision: update this list on purpose. */
const PUBLIC_ROUTES = ['GET /.well-known/jwks.json', 'GET /health/live', 'GET /health/ready'];

const CATALOGUE_ROUTES = [
  'GET /v1/catalogue/brands',
  'GET /v1/catalogue/brands/:idOrSlug',
  'GET /v1/catalogue/categories',
  'GET /v1/catalogue/categories/:idOrSlug',
  'GET /v1/catalogue/products',
  'GET /v1/catalogue/products/:idOrSlug',
];

const label = (route: DiscoveredRoute) => `${route.method} ${route.path}`;
const isStorefront = (route: DiscoveredRoute) => route.path.startsWith('/v1/') && !route.path.startsWith('/v1/auth/');

/** A controller that forgot its access decorator. */
@Controller('test-undeclared')
class UndeclaredController {
  @Get()
  read() {
    return { leaked: true };
  }

  @Post('write')
  write() {
    return { leaked: true };
  }
}

describe('access rules (contract section 5)', () => {
  const t = useTestApp();
  let routes: DiscoveredRoute[];
  let store: TestStore;

  beforeAll(async () => {
    routes = discoverRoutes(t.app);
    store = await t.store();
  });

  it('discovers the routes the application serves', () => {
    const labels = routes.map(label);
    expect(labels).toEqual(
      expect.arrayContaining([...CATALOGUE_ROUTES, ...PUBLIC_ROUTES, 'POST /v1/auth/anonymous', 'POST /v1/auth/refresh']),
    );
    expect(new Set(labels).size).toBe(labels.length);
  });

  it('every route declares an access rule', () => {
    const undeclared = routes.filter((route) => route.rule === undefined).map(label);
    expect(undeclared).toEqual([]);
    for (const route of routes) expect(['public', 'apiKey', 'scope', 'adminSignIn', 'admin', 'permission'], label(route)).toContain(route.rule!.kind);
  });

  it('every storefront route declares exactly one known scope', () => {
    const storefront = routes.filter(isStorefront);
    expect(storefront.length).toBeGreaterThanOrEqual(CATALOGUE_ROUTES.length);
    for (const route of storefront) {
      expect(route.rule, label(route)).toEqual({ kind: 'scope', scope: expect.any(String) });
      expect(SCOPES, label(route)).toContain((route.rule as { scope: string }).scope);
      // One declaration: a rule on the class and another on the handler would leave one of them silently ignored.
      expect(
        [route.handlerRule, route.classRule].filter((rule) => rule !== undefined),
        label(route),
      ).toHaveLength(1);
    }
    for (const route of routes.filter((candidate) => CATALOGUE_ROUTES.includes(label(candidate)))) {
      expect(route.rule).toEqual({ kind: 'scope', scope: 'catalogue:read' });
    }
  });

  it('only the session endpoints read X-Api-Key, and only the listed routes are public', () => {
    const byKind = (kind: string) =>
      routes
        .filter((route) => route.rule?.kind === kind)
        .map(label)
        .sort();
    expect(byKind('apiKey')).toEqual(['POST /v1/auth/anonymous', 'POST /v1/auth/refresh']);
    expect(byKind('public')).toEqual(PUBLIC_ROUTES);
  });

  it('every scoped route refuses a token lacking its scope with 403 INSUFFICIENT_SCOPE naming it', async () => {
    const scoped = routes.filter((route) => route.rule?.kind === 'scope');
    for (const route of scoped) {
      const required = (route.rule as { scope: string }).scope;
      const token = await accessToken(
        t.app,
        store.key,
        SCOPES.filter((scope) => scope !== required),
      );
      const response = await t.app.inject({
        method: route.method as 'GET',
        url: concreteUrl(route, 'no-such-record'),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(route.method === 'GET' ? {} : { payload: '{}' }),
      });
      const body = expectProblem(response, 403, 'INSUFFICIENT_SCOPE');
      expect(body.requiredScope, label(route)).toBe(required);
    }
  });

  it('every catalogue endpoint refuses a token without catalogue:read, and serves one with only it', async () => {
    const without = await accessToken(t.app, store.key, ['cart:read', 'search:read']);
    const only = await accessToken(t.app, store.key, ['catalogue:read']);
    for (const entry of CATALOGUE_ROUTES) {
      const route = routes.find((candidate) => label(candidate) === entry)!;
      const url = concreteUrl(route, 'no-such-slug');
      const refused = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${without}` } });
      expect(expectProblem(refused, 403, 'INSUFFICIENT_SCOPE').requiredScope).toBe('catalogue:read');
      const served = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${only}` } });
      expect(served.statusCode, entry).toBe(route.path.includes(':') ? 404 : 200);
    }
  });

  it('every scoped route refuses a missing or malformed token with 401 UNAUTHENTICATED', async () => {
    for (const route of routes.filter((candidate) => candidate.rule?.kind === 'scope')) {
      const url = concreteUrl(route);
      // An API key is not a substitute for a session.
      const noToken = await t.app.inject({ method: route.method as 'GET', url, headers: { 'x-api-key': store.key } });
      expectProblem(noToken, 401, 'UNAUTHENTICATED');
      const basic = await t.app.inject({ method: route.method as 'GET', url, headers: { authorization: 'Basic dXNlcjpwYXNz' } });
      expectProblem(basic, 401, 'UNAUTHENTICATED');
    }
  });

  it('the session endpoints refuse a missing key with 401 INVALID_API_KEY', async () => {
    for (const route of routes.filter((candidate) => candidate.rule?.kind === 'apiKey')) {
      const response = await t.app.inject({
        method: route.method as 'POST',
        url: concreteUrl(route),
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      expectProblem(response, 401, 'INVALID_API_KEY');
    }
  });

  describe('a route without a rule', () => {
    const extra = useTestApp({}, { controllers: [UndeclaredController] });

    it('is found by the route walk (so the walk above can fail)', () => {
      const found = discoverRoutes(extra.app).filter((route) => route.path.startsWith('/test-undeclared'));
      expect(found.map((route) => [label(route), route.rule])).toEqual([
        ['GET /test-undeclared', undefined],
        ['POST /test-undeclared/write', undefined],
      ]);
    });

    it('is refused with 403 ACCESS_NOT_DECLARED, whatever the caller presents', async () => {
      const token = await accessToken(extra.app, store.key);
      const attempts = [
        { method: 'GET' as const, url: '/test-undeclared' },
        { method: 'GET' as const, url: '/test-undeclared', headers: { authorization: `Bearer ${token}` } },
        { method: 'GET' as const, url: '/test-undeclared', headers: { 'x-api-key': store.key } },
        {
          method: 'POST' as const,
          url: '/test-undeclared/write',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          payload: '{}',
        },
      ];
      for (const attempt of attempts) {
        const response = await extra.app.inject(attempt);
        const body = expectProblem(response, 403, 'ACCESS_NOT_DECLARED');
        expect(JSON.stringify(body)).not.toContain('leaked');
      }
    });
  });
});
