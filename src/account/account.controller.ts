import { applyDecorators, Body, Controller, Get, HttpCode, Patch, Post, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentSession, RequireScope } from '../auth/access/decorators.js';
import type { SessionPrincipal } from '../auth/principal.js';
import { ApiProblemResponses } from '../common/errors/openapi.js';
import { sendRendered } from '../infra/http/rendered-json.js';
import { AccountService } from './account.service.js';
import { CodeSentResponse, ProfileResponse } from './dto/account.response.js';
import { UpdateProfileDto } from './dto/profile.dto.js';
import { RegisterDto, RequestCodeDto, SignInDto, VerifyCodeDto } from './dto/sign-in.dto.js';
import { acceptedLocale } from '../common/locale.js';
import { ProfileService } from './profile.service.js';

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds until another try can succeed.', schema: { type: 'integer' } } };
const LANGUAGE = { name: 'Accept-Language', required: false, description: 'Language of the email when the body names none (en or ar).' };

/** Documentation shared by the routes that email a code: 202 with the same body whatever the address. */
function SendsCode() {
  return applyDecorators(
    ApiHeader(LANGUAGE),
    ApiAcceptedResponse({ type: CodeSentResponse }),
    ApiResponse({
      status: 429,
      description: 'ONE_TIME_CODE_RATE_LIMITED: at most 3 codes per address per 15 minutes.',
      headers: RETRY_AFTER,
    }),
    ApiProblemResponses(['VALIDATION_FAILED', 'ONE_TIME_CODE_RATE_LIMITED', 'SERVICE_UNAVAILABLE']),
  );
}

@ApiTags('Account')
@Controller('v1/account')
export class AccountController {
  constructor(
    private readonly account: AccountService,
    private readonly profiles: ProfileService,
  ) {}

  @Post('register')
  @HttpCode(202)
  @RequireScope('account:write')
  @ApiOperation({
    summary: 'Register: emails a code that proves the address',
    description:
      'Always 202 with the same body, whether or not the address has an account. A new address gets a confirmation code; ' +
      'POST /v1/account/one-time-codes/verify with it creates the account and signs in. An address that already has an ' +
      'account gets a sign-in code instead and keeps its password.',
  })
  @SendsCode()
  register(@CurrentSession() session: SessionPrincipal, @Body() body: RegisterDto, @Req() request: FastifyRequest) {
    return this.account.register(session, body, acceptedLocale(request.headers['accept-language']));
  }

  @Post('one-time-codes')
  @HttpCode(202)
  @RequireScope('account:write')
  @ApiOperation({
    summary: 'Email a six-digit sign-in code (valid 10 minutes, once)',
    description:
      'Always 202, registered address or not. Verifying a code for an address without an account creates a ' +
      'password-less account. A newer code replaces the previous one.',
  })
  @SendsCode()
  requestCode(@CurrentSession() session: SessionPrincipal, @Body() body: RequestCodeDto, @Req() request: FastifyRequest) {
    return this.account.requestCode(session, body, acceptedLocale(request.headers['accept-language']));
  }

  @Post('one-time-codes/verify')
  @HttpCode(200)
  @RequireScope('account:write')
  @ApiOperation({
    summary: 'Sign in with an emailed code',
    description:
      'Attaches the shopper to this session (creating the account from a pending registration) and merges the ' +
      'session’s cart into the shopper’s. The session keeps its tokens. Five wrong codes end the code.',
  })
  @ApiOkResponse({ type: ProfileResponse })
  @ApiProblemResponses([
    'VALIDATION_FAILED',
    'ONE_TIME_CODE_INVALID',
    'ONE_TIME_CODE_EXPIRED',
    'ONE_TIME_CODE_ATTEMPTS_EXCEEDED',
    'ALREADY_SIGNED_IN',
  ])
  async verifyCode(
    @CurrentSession() session: SessionPrincipal,
    @Body() body: VerifyCodeDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return sendRendered(request, reply, await this.account.verifyCode(session, body));
  }

  @Post('sign-in')
  @HttpCode(200)
  @RequireScope('account:write')
  @ApiOperation({
    summary: 'Sign in with email and password',
    description:
      'Attaches the shopper to this session and merges the session’s cart into the shopper’s; the session keeps its ' +
      'tokens. Unknown address, wrong password and password-less account all answer the same 401. Ten failures per ' +
      'address in 15 minutes answer 429 until the window passes (a one-time code still works).',
  })
  @ApiOkResponse({ type: ProfileResponse })
  @ApiResponse({ status: 429, description: 'SIGN_IN_RATE_LIMITED', headers: RETRY_AFTER })
  @ApiProblemResponses(['VALIDATION_FAILED', 'INVALID_CREDENTIALS', 'SIGN_IN_RATE_LIMITED', 'ALREADY_SIGNED_IN'])
  async signIn(
    @CurrentSession() session: SessionPrincipal,
    @Body() body: SignInDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return sendRendered(request, reply, await this.account.signIn(session, body));
  }

  @Post('sign-out')
  @HttpCode(204)
  @RequireScope('account:write')
  @ApiOperation({ summary: 'Return the session to anonymous (idempotent); the cart stays with the shopper' })
  @ApiNoContentResponse({ description: 'The session is anonymous.' })
  async signOut(@CurrentSession() session: SessionPrincipal): Promise<void> {
    await this.account.signOut(session);
  }

  @Get('profile')
  @RequireScope('account:read')
  @ApiOperation({ summary: 'The signed-in shopper’s profile' })
  @ApiOkResponse({ type: ProfileResponse })
  @ApiProblemResponses(['SIGN_IN_REQUIRED'])
  async getProfile(@CurrentSession() session: SessionPrincipal, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return sendRendered(request, reply, await this.profiles.get(session));
  }

  @Patch('profile')
  @RequireScope('account:write')
  @ApiOperation({
    summary: 'Change the profile',
    description:
      'Names, phone, language, marketing consent, and the password (newPassword with currentPassword). The email ' +
      'address cannot be changed here. A new password signs the shopper out of every other session.',
  })
  @ApiOkResponse({ type: ProfileResponse })
  @ApiResponse({ status: 429, description: 'SIGN_IN_RATE_LIMITED: too many wrong current passwords.', headers: RETRY_AFTER })
  @ApiProblemResponses(['VALIDATION_FAILED', 'SIGN_IN_REQUIRED', 'INVALID_CREDENTIALS', 'SIGN_IN_RATE_LIMITED'])
  async updateProfile(
    @CurrentSession() session: SessionPrincipal,
    @Body() body: UpdateProfileDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return sendRendered(request, reply, await this.profiles.update(session, body));
  }
}
