import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiExtension, ApiHeader, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { ErrorCode } from '../../common/errors/error-catalogue.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ACCESS_RULE, ANY_INSIGHTS_VIEW, type AccessRule } from './access-rule.js';
import type { AdminPrincipal, SessionPrincipal } from '../principal.js';
import type { Scope } from '../../common/scopes.js';
import type { Permission } from '../../common/permissions.js';

/** Needs a storefront session whose token carries `scope`. */
export function RequireScope(scope: Scope) {
  return applyDecorators(
    SetMetadata(ACCESS_RULE, { kind: 'scope', scope }),
    ApiBearerAuth('bearer'),
    ApiCookieAuth('cookie'),
    ApiExtension('x-required-scope', scope),
    ApiProblemResponses(['UNAUTHENTICATED', 'TOKEN_EXPIRED', 'INSUFFICIENT_SCOPE', 'CSRF_TOKEN_INVALID']),
  );
}

/** Authenticated by the store's server-held `X-Api-Key`, and counted against its per-minute limit. */
export function RequireApiKey(...otherErrors: ErrorCode[]) {
  return applyDecorators(
    SetMetadata(ACCESS_RULE, { kind: 'apiKey' }),
    ApiSecurity('apiKey'),
    ApiHeader({ name: 'X-Api-Key', required: true, description: 'Server-held key: `sk_live_` + 40 characters.' }),
    ApiResponse({
      status: 429,
      description: 'RATE_LIMITED: the key used its requests for this minute.',
      headers: { 'Retry-After': { description: 'Seconds until the next minute window.', schema: { type: 'integer' } } },
    }),
    ApiProblemResponses(['INVALID_API_KEY', ...otherErrors]),
  );
}

/** Open to anyone: health, discovery documents. */
export function PublicRoute() {
  return SetMetadata(ACCESS_RULE, { kind: 'public' });
}

export const CurrentSession = createParamDecorator((_data: unknown, context: ExecutionContext): SessionPrincipal => {
  const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('CurrentSession used on a route without a session rule');
  return principal;
});

/** The dashboard's errors every authenticated /admin route can answer with (contract section 7, in this order). */
const ADMIN_REFUSALS: ErrorCode[] = ['UNAUTHENTICATED', 'TOKEN_EXPIRED', 'support_read_only', 'CSRF_TOKEN_INVALID'];

function adminRule(rule: AccessRule, refusals: ErrorCode[]) {
  return applyDecorators(
    SetMetadata(ACCESS_RULE, rule),
    ApiBearerAuth('adminBearer'),
    ApiCookieAuth('adminCookie'),
    ApiProblemResponses([...ADMIN_REFUSALS, ...refusals], 'admin'),
  );
}

/**
 * Needs a dashboard principal (staff or support) holding `permission`, on a plan entitled to what
 * the permission reads. `insights.*.view` is any one of the Insights view permissions.
 */
export function RequirePermission(permission: Permission | typeof ANY_INSIGHTS_VIEW) {
  return applyDecorators(
    adminRule({ kind: 'permission', permission }, ['missing_permission', 'plan_not_entitled']),
    ApiExtension('x-required-permission', permission),
  );
}

/** Needs any signed-in dashboard principal, whatever its permissions (who am I, sign out). */
export function RequireAdmin() {
  return adminRule({ kind: 'admin' }, []);
}

/** The dashboard's sign-in and refresh: they establish a principal, so they need none. */
export function AdminSignInRoute() {
  return SetMetadata(ACCESS_RULE, { kind: 'adminSignIn' } satisfies AccessRule);
}

export const CurrentAdmin = createParamDecorator((_data: unknown, context: ExecutionContext): AdminPrincipal => {
  const admin = context.switchToHttp().getRequest<FastifyRequest>().admin;
  if (!admin) throw new Error('CurrentAdmin used on a route without a dashboard rule');
  return admin;
});
