import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequireApiKey } from './access/decorators.js';
import { REFRESH_COOKIE } from './cookies.js';
import { MintSessionDto } from './dto/mint-session.dto.js';
import { RefreshSessionDto } from './dto/refresh-session.dto.js';
import { BearerSessionResponse, CookieSessionResponse } from './dto/session.response.js';
import { presentSession } from './session.presenter.js';
import { SessionService } from './session.service.js';

const SESSION_SCHEMA = { oneOf: [{ $ref: getSchemaPath(BearerSessionResponse) }, { $ref: getSchemaPath(CookieSessionResponse) }] };

@ApiTags('Authentication')
@ApiExtraModels(BearerSessionResponse, CookieSessionResponse)
@Controller('v1/auth')
export class AuthController {
  constructor(private readonly sessions: SessionService) {}

  @Post('anonymous')
  @HttpCode(201)
  @RequireApiKey('VALIDATION_FAILED', 'MALFORMED_BODY', 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_SCOPE')
  @ApiOperation({ summary: 'Mint an anonymous session for the key’s store' })
  @ApiBody({ type: MintSessionDto, required: false })
  @ApiResponse({ status: 201, description: 'A token pair (bearer) or cookies and a body without tokens (cookie).', schema: SESSION_SCHEMA })
  async mint(@Body() body: MintSessionDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const session = await this.sessions.mint(request.apiKey!, body.transport ?? 'bearer', body.scope);
    return presentSession(reply, session);
  }

  @Post('refresh')
  @HttpCode(200)
  @RequireApiKey('VALIDATION_FAILED', 'MALFORMED_BODY', 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_REFRESH_TOKEN', 'REFRESH_TOKEN_REUSED')
  @ApiOperation({ summary: 'Exchange a refresh token for a new pair; the presented token is consumed' })
  @ApiBody({ type: RefreshSessionDto, required: false })
  @ApiResponse({ status: 200, description: 'A new pair, in the transport the session was minted with.', schema: SESSION_SCHEMA })
  async refresh(@Body() body: RefreshSessionDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const presented = body.refreshToken ?? request.cookies?.[REFRESH_COOKIE];
    const session = await this.sessions.refresh(request.apiKey!, presented);
    return presentSession(reply, session);
  }
}
