import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error.js';
import { ProblemDocument, ApiProblemResponses } from '../../common/errors/openapi.js';
import { FORM_BODY_ROUTE } from '../../infra/http/json-body-parser.js';
import { AdminSignInRoute, CurrentAdmin, RequireAdmin } from '../access/decorators.js';
import type { AdminPrincipal } from '../principal.js';
import { ADMIN_REFRESH_COOKIE, clearAdminCookies, setAdminCookies, setSupportCookies } from '../cookies.js';
import { SupportSessions } from '../support/support-sessions.service.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../token-lifetimes.js';
import { StaffRefreshDto } from './dto/staff-refresh.dto.js';
import { BearerStaffSessionResponse, CookieStaffSessionResponse, MeResponse } from './dto/staff-session.response.js';
import { StaffSignInDto } from './dto/staff-sign-in.dto.js';
import { SupportSignInDto } from './dto/support-sign-in.dto.js';
import { StaffSessions, type IssuedStaffSession } from './staff-sessions.service.js';
import { STAFF_FAILURES_PER_ACCOUNT, STAFF_FAILURES_PER_CLIENT, STAFF_SIGN_IN_WINDOW_MINUTES } from './staff-sign-in-limiter.js';

const SESSION_SCHEMA = {
  oneOf: [{ $ref: getSchemaPath(BearerStaffSessionResponse) }, { $ref: getSchemaPath(CookieStaffSessionResponse) }],
};
const PROBLEM = { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDocument) } } };

/**
 * The dashboard's sign-in (contract section 7): staff members with email and password; support sessions
 * come from the command line, and their token enters an agent's browser through `support-session`.
 */
@ApiTags('Dashboard authentication')
@ApiExtraModels(BearerStaffSessionResponse, CookieStaffSessionResponse, ProblemDocument)
@Controller('admin/auth')
export class StaffAuthController {
  constructor(
    private readonly sessions: StaffSessions,
    private readonly support: SupportSessions,
  ) {}

  @Post('sign-in')
  @HttpCode(201)
  @AdminSignInRoute()
  @ApiOperation({
    summary: 'Sign a staff member in to one store’s dashboard',
    description:
      'An unknown store, an unknown or removed member and a wrong password all answer the same 401 invalid_credentials, ' +
      `after the same work. ${STAFF_FAILURES_PER_ACCOUNT} failures per address and store, or ${STAFF_FAILURES_PER_CLIENT} ` +
      `per client, in ${STAFF_SIGN_IN_WINDOW_MINUTES} minutes answer 429 rate_limited until the window passes.`,
  })
  @ApiBody({ type: StaffSignInDto })
  @ApiResponse({
    status: 201,
    description: 'A token pair (bearer), or cookies and a body without tokens (cookie).',
    schema: SESSION_SCHEMA,
  })
  @ApiProblemResponses(['VALIDATION_FAILED', 'MALFORMED_BODY', 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_CREDENTIALS'], 'admin')
  @ApiResponse({
    status: 429,
    description: 'rate_limited: too many failed sign-ins for this address or from this client.',
    headers: { 'Retry-After': { description: 'Seconds until another try can succeed.', schema: { type: 'integer' } } },
    content: PROBLEM,
  })
  async signIn(@Body() body: StaffSignInDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const session = await this.sessions.signIn({ ...body, transport: body.transport ?? 'bearer' }, request.ip);
    return present(reply, session);
  }

  @Post('support-session')
  @HttpCode(303)
  @AdminSignInRoute()
  @RouteConfig({ [FORM_BODY_ROUTE]: true })
  @ApiOperation({
    summary: 'Open a support session in the agent’s browser',
    description:
      'The sign-in page posts this as a native HTML form, so the token `support open` printed goes from the form to ' +
      'HttpOnly cookies and never into the page’s JavaScript. The answer is a redirect: to the dashboard with ' +
      'adm_access and adm_csrf set until the session expires (no refresh cookie), or back to the sign-in page with ' +
      '`?support_error=unauthenticated|token_expired`. A post from another site (Sec-Fetch-Site) is refused 403.',
  })
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @ApiBody({ type: SupportSignInDto })
  @ApiResponse({ status: 303, description: 'Location: /admin/ (signed in) or /admin/?support_error=CODE.' })
  @ApiProblemResponses(['VALIDATION_FAILED', 'MALFORMED_BODY', 'UNSUPPORTED_MEDIA_TYPE', 'CSRF_TOKEN_INVALID'], 'admin')
  async supportSignIn(@Body() body: SupportSignInDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    // A form another site posts would sign this browser into a session of the attacker's choosing.
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') throw new ApiError('CSRF_TOKEN_INVALID');
    reply.header('Cache-Control', 'no-store');
    try {
      const session = await this.support.forBrowser(body.accessToken);
      setSupportCookies(reply, session);
      reply.header('Location', `/admin/?store=${session.storeId}`);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      reply.header('Location', `/admin/?support_error=${error.code.toLowerCase()}`);
    }
  }

  @Post('refresh')
  @HttpCode(200)
  @AdminSignInRoute()
  @ApiOperation({
    summary: 'Exchange a refresh token for a new pair; the presented token is consumed',
    description:
      'Single use. A replay is refresh_token_reused; past the grace window (REFRESH_REUSE_GRACE_SECONDS) the replay also ' +
      'ends the session. With cookie transport no body is needed: the adm_refresh cookie is read.',
  })
  @ApiBody({ type: StaffRefreshDto, required: false })
  @ApiResponse({ status: 200, description: 'A new pair, in the transport the session was signed in with.', schema: SESSION_SCHEMA })
  @ApiProblemResponses(
    ['VALIDATION_FAILED', 'MALFORMED_BODY', 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_REFRESH_TOKEN', 'REFRESH_TOKEN_REUSED'],
    'admin',
  )
  async refresh(@Body() body: StaffRefreshDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const session = await this.sessions.refresh(body.refreshToken ?? request.cookies?.[ADMIN_REFRESH_COOKIE]);
    return present(reply, session);
  }

  @Post('sign-out')
  @HttpCode(204)
  @RequireAdmin()
  @ApiOperation({
    summary: 'End the staff session',
    description:
      'Its access and refresh tokens stop working at once, on every instance. A support session cannot sign out: it is closed by an operator.',
  })
  @ApiNoContentResponse({ description: 'The session has ended; the dashboard cookies are cleared.' })
  async signOut(@CurrentAdmin() admin: AdminPrincipal, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    await this.sessions.signOut(admin.sessionId);
    clearAdminCookies(reply);
  }

  @Get('me')
  @RequireAdmin()
  @ApiOperation({ summary: 'Who is signed in: the staff member or support session, the store, and what the caller may do' })
  @ApiOkResponse({ type: MeResponse })
  me(@CurrentAdmin() admin: AdminPrincipal, @Res({ passthrough: true }) reply: FastifyReply): MeResponse {
    reply.header('Cache-Control', 'no-store');
    return {
      staff: admin.staff ?? null,
      support: admin.support ?? null,
      store: admin.store,
      permissions: [...admin.permissions],
      entitlements: [...admin.entitlements],
      readOnly: admin.readOnly,
    };
  }
}

/** Contract section 4's shapes: the bearer body, or cookies and a body without tokens. No `scope`: permissions are read per request. */
function present(reply: FastifyReply, session: IssuedStaffSession): BearerStaffSessionResponse | CookieStaffSessionResponse {
  reply.header('Cache-Control', 'no-store');
  const expiresIn = ACCESS_TOKEN_TTL_SECONDS;
  const accessTokenExpiresAt = session.accessTokenExpiresAt.toISOString();
  const refreshTokenExpiresAt = session.refreshTokenExpiresAt.toISOString();
  const { sessionId } = session;
  if (session.transport === 'cookie') {
    setAdminCookies(reply, { accessToken: session.accessToken, refreshToken: session.refreshToken, csrfToken: session.csrfToken! });
    return { tokenType: 'Cookie', expiresIn, accessTokenExpiresAt, refreshTokenExpiresAt, sessionId, transport: 'cookie' };
  }
  return {
    tokenType: 'Bearer',
    accessToken: session.accessToken,
    expiresIn,
    accessTokenExpiresAt,
    refreshToken: session.refreshToken,
    refreshTokenExpiresAt,
    sessionId,
    transport: 'bearer',
  };
}
