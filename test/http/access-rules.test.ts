import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANY_INSIGHTS_VIEW } from '../../src/auth/access/access-rule.js';
import { RequireAdmin, RequirePermission } from '../../src/auth/access/decorators.js';
import { PERMISSIONS } from '../../src/common/permissions.js';
import { SCOPES } from '../../src/common/scopes.js';
import { StoreService } from '../../src/stores/store.service.js';
import { addStaff, adminCall, staffToken, supportSession, type TestStaff } from '../support/dashboard.js';
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
const isAdmin = (route: DiscoveredRoute) => route.path === '/admin' || route.path.startsWith('/admin/');

/** The dashboard's own session routes: the only /admin routes without a permission (contract section 7). */
const ADMIN_AUTH_ROUTES: Record<string, string> = {
  'POST /admin/auth/sign-in': 'adminSignIn',
  'POST /admin/auth/refresh': 'adminSignIn',
  'POST /admin/auth/support-session': 'adminSignIn',
  'POST /admin/auth/sign-out': 'admin',
  'GET /admin/auth/me': 'admin',
};
/** What a support session may send besides GET and HEAD: the report builder's run is a read. */
const SUPPORT_READ_ROUTES = ['POST /admin/insights/builder/run'];
const STOREFRONT_KINDS = ['public', 'apiKey', 'scope'];
const DASHBOARD_KINDS = ['adminSignIn', 'admin', 'permission'];

/** Why a route breaks the /admin rules, or null: one rule, declared once; a known permission on every route but the session routes. */
function adminRuleProblem(route: DiscoveredRoute): string | null {
  const declared = [route.handlerRule, route.classRule].filter((rule) => rule !== undefined);
  if (declared.length !== 1) return `${declared.length} rules declared`;
  const expected = ADMIN_AUTH_ROUTES[label(route)];
  if (expected) return route.rule!.kind === expected ? null : `${route.rule!.kind} instead of ${expected}`;
  if (route.rule!.kind !== 'permission') return `${route.rule!.kind} instead of a permission`;
  const permission = route.rule!.permission;
  return [...PERMISSIONS, ANY_INSIGHTS_VIEW].includes(permission) ? null : `unknown permission ${permission}`;
}

/**
 * The dashboard routes of this suite's app besides those of the service, until Insights and the data
 * hub add theirs: a read and a write of one area, behind the real guard.
 */
@Controller('admin/test-only/walk')
class AdminWalkProbeController {
  @Get()
  @RequirePermission('insights.sales.view')
  read() {
    return { served: true };
  }

  @Post()
  @HttpCode(200)
  @RequirePermission('insights.reports.manage')
  write() {
    return { written: true };
  }
}

/** Dashboard controllers that break the rules: the walk must catch them. */
@Controller('admin/test-only/undeclared')
class UndeclaredAdminController {
  @Get()
  read() {
    return { leaked: true };
  }
}

@Controller('admin/test-only/no-permission')
class AdminWithoutPermissionController {
  @Get()
  @RequireAdmin()
  read() {
    return { served: true };
  }
}

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
  const t = useTestApp({}, { controllers: [AdminWalkProbeController] });
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

  it('every route declares an access rule, of its area’s kinds', () => {
    const undeclared = routes.filter((route) => route.rule === undefined).map(label);
    expect(undeclared).toEqual([]);
    for (const route of routes) expect(isAdmin(route) ? DASHBOARD_KINDS : STOREFRONT_KINDS, label(route)).toContain(route.rule!.kind);
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

  describe('under /admin (contract section 7)', () => {
    let adminRoutes: DiscoveredRoute[];
    let owner: TestStaff;
    let staff: string;
    let support: string;

    beforeAll(async () => {
      adminRoutes = routes.filter(isAdmin);
      const own = await t.store();
      // Every plan entitlement, so a refusal below can only come from what is being tested.
      await t.app.get(StoreService).setPlan(own.storeId, 'pro');
      owner = await addStaff(t.app, own.storeId, 'owner');
      staff = await staffToken(t.app, owner);
      support = (await supportSession(t.app, own.storeId)).token;
    });

    const guarded = () => adminRoutes.filter((route) => route.rule?.kind !== 'adminSignIn');

    it('every /admin route declares exactly one rule: a known permission, but for the four session routes', () => {
      expect(adminRoutes.map(label)).toEqual(expect.arrayContaining([...Object.keys(ADMIN_AUTH_ROUTES), 'GET /admin/test-only/walk']));
      expect(adminRoutes.filter((route) => route.rule?.kind === 'permission').length).toBeGreaterThanOrEqual(2);
      const problems = adminRoutes.flatMap((route) => {
        const problem = adminRuleProblem(route);
        return problem ? [`${label(route)}: ${problem}`] : [];
      });
      expect(problems).toEqual([]);
    });

    it('a storefront token is refused on every /admin route that reads a token (401 unauthenticated)', async () => {
      const storefront = await accessToken(t.app, store.key);
      for (const route of guarded()) {
        const url = concreteUrl(route, 'no-such-record');
        expectProblem(await adminCall(t.app, route.method, url, storefront), 401, 'unauthenticated');
        // Nor is the storefront's cookie a dashboard one.
        const cookie = await t.app.inject({ method: route.method as 'GET', url, cookies: { sf_access: storefront } });
        expectProblem(cookie, 401, 'unauthenticated');
      }
    });

    it('a staff or support token is refused on every storefront route (401 UNAUTHENTICATED)', async () => {
      const scoped = routes.filter((route) => route.rule?.kind === 'scope');
      expect(scoped.length).toBeGreaterThanOrEqual(CATALOGUE_ROUTES.length);
      for (const token of [staff, support]) {
        for (const route of scoped) {
          const response = await t.app.inject({
            method: route.method as 'GET',
            url: concreteUrl(route, 'no-such-record'),
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            ...(route.method === 'GET' ? {} : { payload: '{}' }),
          });
          expectProblem(response, 401, 'UNAUTHENTICATED');
        }
      }
    });

    it('a support session is refused on every /admin write with 403 support_read_only; its reads get past that check', async () => {
      const writes = guarded().filter((route) => !['GET', 'HEAD'].includes(route.method) && !SUPPORT_READ_ROUTES.includes(label(route)));
      expect(writes.map(label)).toEqual(expect.arrayContaining(['POST /admin/auth/sign-out', 'POST /admin/test-only/walk']));
      for (const route of writes) {
        expectProblem(await adminCall(t.app, route.method, concreteUrl(route, 'no-such-record'), support), 403, 'support_read_only');
      }
      for (const route of guarded().filter((candidate) => !writes.includes(candidate))) {
        const response = await adminCall(t.app, route.method, concreteUrl(route, 'no-such-record'), support);
        expect(response.statusCode, label(route)).not.toBe(401);
        if (response.statusCode >= 400) expect(response.json().code, label(route)).not.toBe('support_read_only');
      }
    });

    it('every /admin route that reads a token refuses none or a malformed one with 401 unauthenticated', async () => {
      for (const route of guarded()) {
        const url = concreteUrl(route, 'no-such-record');
        expectProblem(await adminCall(t.app, route.method, url, undefined), 401, 'unauthenticated');
        expectProblem(
          await adminCall(t.app, route.method, url, undefined, {}, { authorization: 'Basic dXNlcjpwYXNz' }),
          401,
          'unauthenticated',
        );
        // A staff token gets past authentication everywhere (a fresh one each time: one of the routes signs out).
        expect((await adminCall(t.app, route.method, url, await staffToken(t.app, owner))).statusCode, label(route)).not.toBe(401);
      }
    });
  });

  describe('a route without a rule', () => {
    const extra = useTestApp({}, { controllers: [UndeclaredController, UndeclaredAdminController, AdminWithoutPermissionController] });

    it('is found by the route walk (so the walk above can fail)', () => {
      const found = discoverRoutes(extra.app).filter((route) => route.path.startsWith('/test-undeclared'));
      expect(found.map((route) => [label(route), route.rule])).toEqual([
        ['GET /test-undeclared', undefined],
        ['POST /test-undeclared/write', undefined],
      ]);
    });

    it('under /admin too, as is a dashboard route without a permission', () => {
      const found = discoverRoutes(extra.app).filter((route) => route.path.startsWith('/admin/test-only/'));
      expect(found.map((route) => [label(route), adminRuleProblem(route)])).toEqual([
        ['GET /admin/test-only/no-permission', 'admin instead of a permission'],
        ['GET /admin/test-only/undeclared', '0 rules declared'],
      ]);
    });

    it('under /admin is refused with 403 access_not_declared, even to the store’s owner', async () => {
      const own = await extra.store();
      const token = await staffToken(extra.app, await addStaff(extra.app, own.storeId, 'owner'));
      const body = expectProblem(await adminCall(extra.app, 'GET', '/admin/test-only/undeclared', token), 403, 'access_not_declared');
      expect(JSON.stringify(body)).not.toContain('leaked');
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
