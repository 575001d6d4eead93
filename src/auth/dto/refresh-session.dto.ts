import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

export class RefreshSessionDto {
  @ApiPropertyOptional({ description: 'Bearer transport: the refresh token. Cookie transport sends none; the sf_refresh cookie is read.' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  refreshToken?: string;
}
