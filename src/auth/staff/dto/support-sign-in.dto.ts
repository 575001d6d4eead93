import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';

export class SupportSignInDto {
  /** No shape rule: a string that is not a support session's token is refused as unauthenticated, like the token itself. */
  @ApiProperty({ description: 'The access token `support open` printed.', minLength: 1, maxLength: 4096 })
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  accessToken: string;
}
