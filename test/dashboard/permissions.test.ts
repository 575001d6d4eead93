import { Controller, Get, HttpCode, Post, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { AccessGuard } from '../../src/auth/access/access.guard.js';
import { ACCESS_RULE, ANY_INSIGHTS_VIEW, type AccessRule } from '../../src/auth/access/access-rule.js';
import { CurrentAdmin, RequirePermission } from '../../src/auth/access/decorators.js';
import type { AdminPrincipal } from '../../src/auth/principal.js';
import { AdminTokenService } from '../../src/auth/dashboard/admin-token.service.js';
import { DashboardPrincipals } from '../../src/auth/dashboard/dashboard-principals.js';
import { TokenService } from '../../src/auth/token.service.js';
import { ApiError } from '../../src/common/errors/api-error.js';
import {
  entitlementFor,
  entitlementsOf,
  PERMISSIONS,
  permissionsOf,
  requiredPlan,
  STAFF_ROLES,
  STORE_PLANS,
  SUPPORT_PERMISSIONS,
  type Permission,
  type StaffRole,
  type StorePlan,
} from '../../src/common/permissions.js';
import { ApiKeyService } from '../../src/stores/api-key.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { addStaff, adminCall, staffSignIn, staffToken, supportSession } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok, setCookies } from '../support/responses.js';

type Required = Permission | typeof ANY_INSIGHTS_VIEW;

/** One GET per permission (and one for any Insights view), mounted behind the real guard. */
class PermissionProbeController {}
const PROBES: { required: Required; path: string }[] = ([...PERMISSIONS, ANY_INSIGHTS_VIEW] as Required[]).map((required) => ({
  required,
  path: required === ANY_INSIGHTS_VIEW ? 'any-insights-view' : required,
}));
for (const { required, path } of PROBES) {
  const name = `probe ${path}`;
  const prototype = PermissionProbeController.prototype as unknown as Record<string, unknown>;
  prototype[name] = function () {
    return { served: required };
  };
  const descriptor = Object.getOwnPropertyDescriptor(prototype, name)!;
  Get(path)(prototype, name, descriptor);
  RequirePermission(required)(prototype, name, descriptor);
}
Controller('admin/test-only/permissions')(PermissionProbeController);
const probeUrl = (required: Required) => `/admin/test-only/permissions/${PROBES.find((probe) => probe.required === required)!.path}`;

/** A read and a write of the customers area (growth and up), and a write only owners and admins may make. */
@Controller('admin/test-only/guard-order')
class GuardOrderController {
  @Get('customers')
  @RequirePermission('insights.customers.view')
  read(@CurrentAdmin() admin: AdminPrincipal) {
    return { kind: admin.kind, readOnly: admin.readOnly };
  }

  @Post('customers')
  @HttpCode(200)
  @RequirePermission('insights.customers.view')
  write(@CurrentAdmin() admin: AdminPrincipal) {
    return { kind: admin.kind };
  }

  @Post('settings')
  @HttpCode(200)
  @RequirePermission('insights.settings.manage')
  settings() {
    return { changed: true };
  }
}

/** The contract's roles (section 7), written out here rather than read from the code under test. */
const VIEWS: Permission[] = [
  'insights.sales.view',
  'insights.products.view',
  'insights.customers.view',
  'insights.fulfilment.view',
  'insights.finance.view',
  'insights.behaviour.view',
];
const CONTRACT_ROLES: Record<Exclude<StaffRole, 'custom'>, Permission[]> = {
  owner: [...PERMISSIONS],
  admin: [...PERMISSIONS],
  analyst: [...VIEWS, 'insights.builder.use', 'insights.reports.manage'],
  data_manager: ['data.flows.read', 'data.flows.manage', 'data.connections.manage'],
  viewer: VIEWS,
};
/** The contract's plan table: the cheapest plan each gated permission needs. */
const CONTRACT_PLANS: Partial<Record<Permission, StorePlan>> = {
  'insights.sales.view': 'basic',
  'insights.products.view': 'basic',
  'insights.customers.view': 'growth',
  'insights.fulfilment.view': 'growth',
  'insights.finance.view': 'growth',
  'insights.behaviour.view': 'pro',
  'insights.builder.use': 'growth',
};
const planRank = (plan: StorePlan) => STORE_PLANS.indexOf(plan);

describe('dashboard permissions and plans (contract section 7)', () => {
  const t = useTestApp({}, { controllers: [PermissionProbeController, GuardOrderController] });
  const storeOn = async (plan: StorePlan) => {
    const store = await t.store();
    await t.app.get(StoreService).setPlan(store.storeId, plan);
    return store.storeId;
  };
  let proStore: string;
  let basicStore: string;

  beforeAll(async () => {
    proStore = await storeOn('pro');
    basicStore = await storeOn('basic');
  });

  it('the roles grant what the contract says', () => {
    for (const role of STAFF_ROLES.filter((candidate) => candidate !== 'custom')) {
      expect(permissionsOf(role).sort(), role).toEqual([...CONTRACT_ROLES[role as Exclude<StaffRole, 'custom'>]].sort());
    }
    for (const permission of PERMISSIONS) {
      const gated = entitlementFor(permission);
      expect(gated ? requiredPlan(gated) : undefined, permission).toBe(CONTRACT_PLANS[permission]);
    }
  });

  it('every role × every permission, on a plan entitled to everything', async () => {
    for (const role of STAFF_ROLES.filter((candidate) => candidate !== 'custom')) {
      const token = await staffToken(t.app, await addStaff(t.app, proStore, role));
      for (const { required } of PROBES) {
        const held = CONTRACT_ROLES[role as Exclude<StaffRole, 'custom'>];
        const allowed = required === ANY_INSIGHTS_VIEW ? held.some((p) => VIEWS.includes(p)) : held.includes(required);
        const response = await adminCall(t.app, 'GET', probeUrl(required), token);
        const where = `${role} → ${required}`;
        if (allowed) expect(ok(response), where).toEqual({ served: required });
        else expect(expectProblem(response, 403, 'missing_permission').requiredPermission, where).toBe(required);
      }
    }
  });

  it('a custom role holds exactly the permissions given', async () => {
    const given: Permission[] = ['insights.sales.view', 'data.flows.read'];
    const custom = await addStaff(t.app, proStore, 'custom', { permissions: given });
    const token = await staffToken(t.app, custom);
    expect(ok(await adminCall(t.app, 'GET', '/admin/auth/me', token)).permissions).toEqual(['insights.sales.view', 'data.flows.read']);
    for (const { required } of PROBES) {
      const response = await adminCall(t.app, 'GET', probeUrl(required), token);
      const allowed = required === ANY_INSIGHTS_VIEW || given.includes(required);
      if (allowed) expect(response.statusCode, required).toBe(200);
      else expectProblem(response, 403, 'missing_permission');
    }
  });

  it('every plan × every gated permission: allowed, or plan_not_entitled naming the cheapest plan with an upgrade suggestion', async () => {
    for (const plan of STORE_PLANS) {
      const storeId = plan === 'pro' ? proStore : plan === 'basic' ? basicStore : await storeOn(plan);
      const token = await staffToken(t.app, await addStaff(t.app, storeId, 'owner'));
      const me = ok(await adminCall(t.app, 'GET', '/admin/auth/me', token));
      expect(me.entitlements, plan).toEqual(entitlementsOf(plan));
      for (const permission of PERMISSIONS) {
        const response = await adminCall(t.app, 'GET', probeUrl(permission), token);
        const needs = CONTRACT_PLANS[permission];
        const where = `${plan} → ${permission}`;
        if (!needs || planRank(needs) <= planRank(plan)) {
          expect(response.statusCode, where).toBe(200);
          continue;
        }
        const body = expectProblem(response, 403, 'plan_not_entitled');
        expect(body.requiredPlan, where).toBe(needs);
        expect(body.suggestion, where).toEqual({
          code: 'upgrade_plan',
          message_en: expect.stringContaining(needs),
          message_ar: expect.stringContaining(needs),
          plan: needs,
        });
      }
      // Any Insights view: every plan has sales and products.
      expect((await adminCall(t.app, 'GET', probeUrl(ANY_INSIGHTS_VIEW), token)).statusCode, plan).toBe(200);
    }
  });

  it('any Insights view needs one held view permission the plan is entitled to', async () => {
    const behaviourOnly = await addStaff(t.app, basicStore, 'custom', { permissions: ['insights.behaviour.view'] });
    const body = expectProblem(
      await adminCall(t.app, 'GET', probeUrl(ANY_INSIGHTS_VIEW), await staffToken(t.app, behaviourOnly)),
      403,
      'plan_not_entitled',
    );
    expect(body.requiredPlan).toBe('pro');
    const dataOnly = await addStaff(t.app, basicStore, 'data_manager');
    const refused = await adminCall(t.app, 'GET', probeUrl(ANY_INSIGHTS_VIEW), await staffToken(t.app, dataOnly));
    expect(expectProblem(refused, 403, 'missing_permission').requiredPermission).toBe('insights.*.view');
  });

  describe('support sessions', () => {
    it('read what the plan is entitled to, and nothing outside the view permissions and the builder', async () => {
      for (const plan of STORE_PLANS) {
        const storeId = plan === 'pro' ? proStore : plan === 'basic' ? basicStore : await storeOn(plan);
        const support = await supportSession(t.app, storeId);
        const me = ok(await adminCall(t.app, 'GET', '/admin/auth/me', support.token));
        expect(me).toMatchObject({
          staff: null,
          readOnly: true,
          permissions: [...SUPPORT_PERMISSIONS],
          entitlements: entitlementsOf(plan),
        });
        for (const permission of PERMISSIONS) {
          const response = await adminCall(t.app, 'GET', probeUrl(permission), support.token);
          const where = `support on ${plan} → ${permission}`;
          const needs = CONTRACT_PLANS[permission];
          if (!SUPPORT_PERMISSIONS.includes(permission)) expectProblem(response, 403, 'missing_permission');
          else if (needs && planRank(needs) > planRank(plan))
            expect(expectProblem(response, 403, 'plan_not_entitled').requiredPlan, where).toBe(needs);
          else expect(response.statusCode, where).toBe(200);
        }
      }
    });

    it('HEAD is a read too', async () => {
      const support = await supportSession(t.app, proStore);
      const response = await t.app.inject({
        method: 'HEAD',
        url: '/admin/test-only/guard-order/customers',
        headers: { authorization: `Bearer ${support.token}` },
      });
      expect(response.statusCode).toBe(200);
    });
  });

  describe('the order of the checks: authenticated, support write, CSRF, permission, plan', () => {
    const write = '/admin/test-only/guard-order/customers';

    it('no token or an expired one comes first', async () => {
      expectProblem(await adminCall(t.app, 'POST', write, undefined), 401, 'unauthenticated');
      expectProblem(await adminCall(t.app, 'POST', '/admin/test-only/guard-order/settings', 'not.a.token'), 401, 'unauthenticated');
      const session = ok(await staffSignIn(t.app, await credentialsOf(basicStore, 'viewer')), 201);
      const { token: expired } = await t.app
        .get(AdminTokenService)
        .signStaff(session.sessionId, 'bearer', undefined, new Date(Date.now() - 20 * 60_000));
      expectProblem(await adminCall(t.app, 'POST', '/admin/test-only/guard-order/settings', expired), 401, 'token_expired');
    });

    it('a support session’s write is support_read_only before its permission or its plan is looked at', async () => {
      // basic plan: the customers area is not entitled; support holds no settings permission at all.
      const support = await supportSession(t.app, basicStore);
      expectProblem(await adminCall(t.app, 'POST', write, support.token), 403, 'support_read_only');
      expectProblem(await adminCall(t.app, 'POST', '/admin/test-only/guard-order/settings', support.token), 403, 'support_read_only');
      // Its read of the same route gets as far as the plan.
      expect(expectProblem(await adminCall(t.app, 'GET', write, support.token), 403, 'plan_not_entitled').requiredPlan).toBe('growth');
      // On a pro store the same read is served, and the write still refused.
      const proSupport = await supportSession(t.app, proStore);
      expect(ok(await adminCall(t.app, 'GET', write, proSupport.token))).toEqual({ kind: 'support', readOnly: true });
      expectProblem(await adminCall(t.app, 'POST', write, proSupport.token), 403, 'support_read_only');
    });

    it('CSRF comes before the permission', async () => {
      const signedIn = await staffSignIn(t.app, { ...(await credentialsOf(basicStore, 'viewer')), transport: 'cookie' });
      const cookies = setCookies(signedIn);
      const response = await t.app.inject({
        method: 'POST',
        url: '/admin/test-only/guard-order/settings',
        cookies: { adm_access: cookies.adm_access.value, adm_csrf: cookies.adm_csrf.value },
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      expectProblem(response, 403, 'csrf_token_invalid');
    });

    it('a permission the member lacks is missing_permission even where the plan would refuse too', async () => {
      const dataManager = await staffToken(t.app, await addStaff(t.app, basicStore, 'data_manager'));
      expect(expectProblem(await adminCall(t.app, 'GET', write, dataManager), 403, 'missing_permission').requiredPermission).toBe(
        'insights.customers.view',
      );
      const viewer = await staffToken(t.app, await addStaff(t.app, basicStore, 'viewer'));
      expect(expectProblem(await adminCall(t.app, 'POST', write, viewer), 403, 'plan_not_entitled').requiredPlan).toBe('growth');
      expectProblem(await adminCall(t.app, 'POST', '/admin/test-only/guard-order/settings', viewer), 403, 'missing_permission');
    });
  });

  describe('what a support session may send besides GET and HEAD', () => {
    // No Insights route exists in this repository yet, so the guard is called directly with the request it would see.
    const guardFor = () =>
      new AccessGuard(
        t.app.get(Reflector),
        t.app.get(ApiKeyService),
        t.app.get(TokenService),
        t.app.get(AdminTokenService),
        t.app.get(DashboardPrincipals),
      );
    const contextFor = (rule: AccessRule, request: Partial<FastifyRequest>) => {
      const handler = () => undefined;
      Reflect.defineMetadata(ACCESS_RULE, rule, handler);
      return {
        getHandler: () => handler,
        getClass: () => class {},
        switchToHttp: () => ({ getRequest: () => request }),
      } as unknown as ExecutionContext;
    };
    const request = (method: string, route: string, token: string) =>
      ({
        method,
        url: route,
        routeOptions: { url: route },
        headers: { authorization: `Bearer ${token}` },
        cookies: {},
      }) as unknown as FastifyRequest;
    const builder: AccessRule = { kind: 'permission', permission: 'insights.builder.use' };

    it('POST /admin/insights/builder/run is a read; any other write is refused', async () => {
      const support = await supportSession(t.app, proStore);
      await expect(
        guardFor().canActivate(contextFor(builder, request('POST', '/admin/insights/builder/run', support.token))),
      ).resolves.toBe(true);
      for (const [method, route] of [
        ['PUT', '/admin/insights/builder/run'],
        ['POST', '/admin/insights/exports'],
        ['POST', '/admin/insights/builder/run/again'],
        ['DELETE', '/admin/insights/saved-reports/:id'],
      ]) {
        const refused = guardFor().canActivate(contextFor(builder, request(method, route, support.token)));
        await expect(refused, `${method} ${route}`).rejects.toBeInstanceOf(ApiError);
        await expect(refused).rejects.toMatchObject({ code: 'support_read_only' });
      }
      // The builder's run still needs the plan's builder entitlement.
      const onBasic = await supportSession(t.app, basicStore);
      await expect(
        guardFor().canActivate(contextFor(builder, request('POST', '/admin/insights/builder/run', onBasic.token))),
      ).rejects.toMatchObject({ code: 'plan_not_entitled' });
    });
  });

  async function credentialsOf(storeId: string, role: StaffRole) {
    const staff = await addStaff(t.app, storeId, role);
    return { storeId, email: staff.email, password: staff.password };
  }
});
