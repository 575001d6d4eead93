import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { OptionalField } from '../../common/validation/fields.js';

export class RefreshSessionDto {
  /**
   * No length rule here on purpose: a string that is not a refresh token (too long included, e.g. an
   * access token sent by mistake) is a malformed token, INVALID_REFRESH_TOKEN (contract section 2),
   * not a validation failure. The session service checks the exact format before any lookup.
   */
  @ApiPropertyOptional({
    description: 'Bearer transport: the refresh token (`rt_` + 43 characters). Cookie transport sends none; the sf_refresh cookie is read.',
  })
  @OptionalField()
  @IsString()
  refreshToken?: string;
}
