import { planRefusal } from './plan-refusal.js';
import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error.js';
import { acceptedLocale } from '../../common/locale.js';
import {
  entitlementFor,
  INSIGHTS_VIEW_PERMISSIONS,
  requiredPlan,
  STORE_PLANS,
  type Entitlement,
  type Permission,
} from '../../common/permissions.js';
import type { Scope } from '../../common/scopes.js';
import { safeEqual } from '../../infra/crypto/secrets.js';
import { ApiKeyService } from '../../stores/api-key.service.js';
import { ACCESS_COOKIE, ADMIN_ACCESS_COOKIE, CSRF_HEADER } from '../cookies.js';
import { AdminTokenService } from '../dashboard/admin-token.service.js';
import { DashboardPrincipals } from '../dashboard/dashboard-principals.js';
import { csrfHash } from '../session.service.js';
import { TokenService } from '../token.service.js';
import { ACCESS_RULE, ANY_INSIGHTS_VIEW, type AccessRule } from './access-rule.js';
import type { AdminPrincipal, SessionPrincipal } from '../principal.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** What a support session may do (contract section 7): read, and run the report builder, whose run is a read. */
const SUPPORT_READS = new Set(['GET', 'HEAD']);
const SUPPORT_READ_ROUTES = new Set(['POST /admin/insights/builder/run']);

const ADMIN_CSRF_MESSAGE = {
  en: 'Cookie-authenticated changes need the X-CSRF-Token header matching the adm_csrf cookie.',
  ar: 'التغييرات الموثقة بملفات تعريف الارتباط تتطلب الترويسة X-CSRF-Token مطابقة لملف adm_csrf.',
};

interface PresentedToken {
  token: string;
  /** How the access token arrived: cookie-borne requests are subject to CSRF checks. */
  via: 'header' | 'cookie';
}

/** The one global gate: every route must declare an access rule, and the rule is enforced here. */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeyService,
    private readonly tokens: TokenService,
    private readonly adminTokens: AdminTokenService,
    private readonly principals: DashboardPrincipals,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [context.getHandler(), context.getClass()]);
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!rule) throw new ApiError('ACCESS_NOT_DECLARED');

    const presentedKey = request.headers['x-api-key'];
    if (rule.kind === 'apiKey') {
      const key = await this.apiKeys.resolve(presentedKey);
      if (!key) throw new ApiError('INVALID_API_KEY');
      request.apiKey = key;
      return true;
    }
    // Other routes ignore the key for authentication, but a request carrying a live key still counts against its limit.
    if (presentedKey !== undefined) request.apiKey = (await this.apiKeys.resolve(presentedKey)) ?? undefined;

    switch (rule.kind) {
      case 'public':
      case 'adminSignIn':
        return true;
      case 'scope':
        return this.storefront(request, rule.scope);
      case 'admin':
        await this.dashboard(request);
        return true;
      case 'permission':
        this.checkPermission(await this.dashboard(request), rule.permission);
        return true;
    }
  }

  private async storefront(request: FastifyRequest, scope: Scope): Promise<boolean> {
    const { token, via } = presentedToken(request, ACCESS_COOKIE);
    const claims = await this.tokens.verify(token);
    const principal: SessionPrincipal = { kind: 'session', ...claims, via };
    request.principal = principal;
    if (!principal.scopes.includes(scope)) {
      throw new ApiError('INSUFFICIENT_SCOPE', { details: { requiredScope: scope } });
    }
    if (via === 'cookie' && !SAFE_METHODS.has(request.method)) checkCsrf(request, principal.csrfHash);
    return true;
  }

  /**
   * Contract section 7, in this order: authenticated (the session still stands), then a support
   * session's write, then CSRF for a cookie-borne change. The permission and the plan come after.
   */
  private async dashboard(request: FastifyRequest): Promise<AdminPrincipal> {
    const { token, via } = presentedToken(request, ADMIN_ACCESS_COOKIE);
    const claims = await this.adminTokens.verify(token);
    const identity = await this.principals.resolve(claims);
    if (!identity) throw new ApiError('UNAUTHENTICATED');
    const admin: AdminPrincipal = { ...identity, locale: acceptedLocale(request.headers['accept-language']) ?? 'en' };
    request.admin = admin;
    if (admin.readOnly && !isSupportRead(request)) throw new ApiError('support_read_only');
    if (via === 'cookie' && !SAFE_METHODS.has(request.method)) {
      checkCsrf(request, claims.csrfHash, ADMIN_CSRF_MESSAGE);
    }
    return admin;
  }

  /**
   * The permission (any one of the view permissions for `insights.*.view`), then the plan: a
   * permission held is usable only where the store's plan is entitled to what it reads.
   */
  private checkPermission(admin: AdminPrincipal, required: Permission | typeof ANY_INSIGHTS_VIEW): void {
    const candidates = required === ANY_INSIGHTS_VIEW ? INSIGHTS_VIEW_PERMISSIONS : [required];
    const held = candidates.filter((permission) => admin.permissions.includes(permission));
    if (held.length === 0) throw new ApiError('missing_permission', { details: { requiredPermission: required } });
    const needed = held.map(entitlementFor);
    if (needed.some((entitlement) => entitlement === undefined || admin.entitlements.includes(entitlement))) return;
    const plans = new Set(needed.map((entitlement) => requiredPlan(entitlement as Entitlement)));
    throw planRefusal(STORE_PLANS.find((plan) => plans.has(plan))!);
  }
}

/** `Authorization: Bearer …` when sent (and then only that), else the access cookie of the area. */
function presentedToken(request: FastifyRequest, cookie: string): PresentedToken {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(authorization);
    if (!match) throw new ApiError('UNAUTHENTICATED');
    return { token: match[1], via: 'header' };
  }
  const token = request.cookies?.[cookie];
  if (!token) throw new ApiError('UNAUTHENTICATED');
  return { token, via: 'cookie' };
}

/** Double submit: the readable CSRF cookie echoed in a header, bound to the access token by its hash. */
function checkCsrf(request: FastifyRequest, boundHash: string | undefined, message?: { en: string; ar: string }): void {
  const header = request.headers[CSRF_HEADER];
  if (typeof header !== 'string' || !boundHash || !safeEqual(csrfHash(header), boundHash)) {
    throw new ApiError('CSRF_TOKEN_INVALID', message ? { message } : {});
  }
}

function isSupportRead(request: FastifyRequest): boolean {
  return SUPPORT_READS.has(request.method) || SUPPORT_READ_ROUTES.has(`${request.method} ${request.routeOptions.url}`);
}
