import type { FastifyReply } from 'fastify';
import { setSessionCookies } from './cookies.js';
import type { BearerSessionResponse, CookieSessionResponse } from './dto/session.response.js';
import type { IssuedSession } from './session.service.js';
import { ACCESS_TOKEN_TTL_SECONDS } from './token-lifetimes.js';

/** Contract section 4: the bearer body, or cookies and a body without tokens. */
export function presentSession(reply: FastifyReply, session: IssuedSession): BearerSessionResponse | CookieSessionResponse {
  reply.header('Cache-Control', 'no-store');
  const common = {
    expiresIn: ACCESS_TOKEN_TTL_SECONDS,
    accessTokenExpiresAt: session.accessTokenExpiresAt.toISOString(),
    refreshTokenExpiresAt: session.refreshTokenExpiresAt.toISOString(),
    scope: session.scopes,
    sessionId: session.sessionId,
  };
  if (session.transport === 'cookie') {
    setSessionCookies(reply, { accessToken: session.accessToken, refreshToken: session.refreshToken, csrfToken: session.csrfToken! });
    return { tokenType: 'Cookie', ...common, transport: 'cookie' };
  }
  return {
    tokenType: 'Bearer',
    accessToken: session.accessToken,
    ...common,
    refreshToken: session.refreshToken,
    transport: 'bearer',
  };
}
