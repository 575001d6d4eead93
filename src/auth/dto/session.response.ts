import { ApiProperty } from '@nestjs/swagger';
import { SCOPES } from '../../common/scopes.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../token-lifetimes.js';

class SessionFields {
  @ApiProperty({ type: 'integer', example: ACCESS_TOKEN_TTL_SECONDS }) expiresIn: number;
  @ApiProperty({ format: 'date-time' }) accessTokenExpiresAt: string;
  @ApiProperty({ format: 'date-time' }) refreshTokenExpiresAt: string;
  @ApiProperty({ type: [String], enum: SCOPES }) scope: string[];
  @ApiProperty({ format: 'uuid' }) sessionId: string;
}

export class BearerSessionResponse extends SessionFields {
  @ApiProperty({ enum: ['Bearer'] }) tokenType: 'Bearer';
  @ApiProperty({ description: 'JWT (EdDSA, `kid` in the header); send as `Authorization: Bearer …`.' }) accessToken: string;
  @ApiProperty({ description: 'Opaque, single use, 30 days.' }) refreshToken: string;
  @ApiProperty({ enum: ['bearer'] }) transport: 'bearer';
}

export class CookieSessionResponse extends SessionFields {
  @ApiProperty({ enum: ['Cookie'] }) tokenType: 'Cookie';
  @ApiProperty({ enum: ['cookie'] }) transport: 'cookie';
}
