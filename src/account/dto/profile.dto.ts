import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, MaxLength, MinLength } from 'class-validator';
import { LOCALES, type Locale } from '../../common/locale.js';
import {
  LocaleField,
  NullableField,
  OptionalField,
  PASSWORD_MAX,
  PASSWORD_MIN,
  PasswordField,
  PhoneField,
  TextField,
} from '../../common/validation/fields.js';

/** The email address is the shopper's identity and cannot be changed here: sending it is refused. */
export class UpdateProfileDto {
  @ApiPropertyOptional({ maxLength: 100 })
  @OptionalField()
  @TextField(100)
  firstName?: string;

  @ApiPropertyOptional({ maxLength: 100 })
  @OptionalField()
  @TextField(100)
  lastName?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '+966501234567',
    description: 'E.164; spaces and dashes are ignored. null removes it.',
  })
  @NullableField()
  @PhoneField()
  phone?: string | null;

  @ApiPropertyOptional({ enum: LOCALES })
  @OptionalField()
  @LocaleField()
  locale?: Locale;

  @ApiPropertyOptional()
  @OptionalField()
  @IsBoolean()
  marketingOptIn?: boolean;

  @ApiPropertyOptional({
    format: 'password',
    maxLength: PASSWORD_MAX,
    description: 'Required with newPassword when the account has a password; a wrong one answers 401 INVALID_CREDENTIALS.',
  })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(PASSWORD_MAX)
  currentPassword?: string;

  @ApiPropertyOptional({
    format: 'password',
    minLength: PASSWORD_MIN,
    maxLength: PASSWORD_MAX,
    description:
      'Signs the shopper out of every other session. A shopper without a password (code sign-in only) may set one without currentPassword.',
  })
  @OptionalField()
  @PasswordField()
  newPassword?: string;
}
