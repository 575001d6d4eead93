import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { OptionalField } from '../../../common/validation/fields.js';

export class StaffRefreshDto {
  /** No length rule, as on the storefront: a string that is not a refresh token is an invalid_refresh_token, not a validation failure. */
  @ApiPropertyOptional({
    description:
      'Bearer transport: the refresh token (`rt_` + 43 characters). Cookie transport sends none; the adm_refresh cookie is read.',
  })
  @OptionalField()
  @IsString()
  refreshToken?: string;
}
