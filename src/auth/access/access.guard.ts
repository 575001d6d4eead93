import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error.js';
import { safeEqual } from '../../infra/crypto/secrets.js';
import { ApiKeyService } from '../../stores/api-key.service.js';
import { ACCESS_COOKIE, CSRF_HEADER } from '../cookies.js';
import { csrfHash } from '../session.service.js';
import { TokenService } from '../token.service.js';
import { ACCESS_RULE, type AccessRule } from './access-rule.js';
import type { SessionPrincipal } from './principal.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The one global gate: every route must declare an access rule, and the rule is enforced here. */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeyService,
    private readonly tokens: TokenService,
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
    if (rule.kind === 'public') return true;
    // The dashboard's principals (staff sign-in, support sessions) are not open yet.
    if (rule.kind !== 'scope') throw new ApiError('UNAUTHENTICATED');

    const principal = await this.authenticate(request);
    request.principal = principal;
    if (!principal.scopes.includes(rule.scope)) {
      throw new ApiError('INSUFFICIENT_SCOPE', { details: { requiredScope: rule.scope } });
    }
    if (principal.via === 'cookie' && !SAFE_METHODS.has(request.method)) this.checkCsrf(request, principal);
    return true;
  }

  private async authenticate(request: FastifyRequest): Promise<SessionPrincipal> {
    const authorization = request.headers.authorization;
    let token: string | undefined;
    let via: SessionPrincipal['via'] = 'header';
    if (authorization !== undefined) {
      const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(authorization);
      if (!match) throw new ApiError('UNAUTHENTICATED');
      token = match[1];
    } else {
      token = request.cookies?.[ACCESS_COOKIE];
      via = 'cookie';
    }
    if (!token) throw new ApiError('UNAUTHENTICATED');
    const claims = await this.tokens.verify(token);
    return { kind: 'session', ...claims, via };
  }

  /** Double submit: the readable sf_csrf cookie echoed in a header, bound to the token by its hash. */
  private checkCsrf(request: FastifyRequest, principal: SessionPrincipal): void {
    const header = request.headers[CSRF_HEADER];
    if (typeof header !== 'string' || !principal.csrfHash || !safeEqual(csrfHash(header), principal.csrfHash)) {
      throw new ApiError('CSRF_TOKEN_INVALID');
    }
  }
}
