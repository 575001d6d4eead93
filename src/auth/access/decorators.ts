import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiExtension, ApiHeader, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { ErrorCode } from '../../common/errors/error-catalogue.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ACCESS_RULE } from './access-rule.js';
import type { SessionPrincipal } from './principal.js';
import type { Scope } from '../../common/scopes.js';

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
