import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { LOCALES, type Locale } from '../../common/locale.js';
import {
  EmailField,
  LocaleField,
  OptionalField,
  PASSWORD_MAX,
  PASSWORD_MIN,
  PasswordField,
  TextField,
} from '../../common/validation/fields.js';

export class RegisterDto {
  @ApiProperty({ example: 'noura@example.com', maxLength: 254 })
  @EmailField()
  email: string;

  @ApiProperty({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX, format: 'password' })
  @PasswordField()
  password: string;

  @ApiPropertyOptional({ maxLength: 100 })
  @OptionalField()
  @TextField(100)
  firstName?: string;

  @ApiPropertyOptional({ maxLength: 100 })
  @OptionalField()
  @TextField(100)
  lastName?: string;

  @ApiPropertyOptional({ enum: LOCALES, description: 'Language of the account and of this email. Default: Accept-Language, else ar.' })
  @OptionalField()
  @LocaleField()
  locale?: Locale;

  @ApiPropertyOptional({ default: false })
  @OptionalField()
  @IsBoolean()
  marketingOptIn?: boolean;
}

export class SignInDto {
  @ApiProperty({ example: 'noura@example.com', maxLength: 254 })
  @EmailField()
  email: string;

  @ApiProperty({ minLength: 1, maxLength: PASSWORD_MAX, format: 'password' })
  @IsString()
  @MinLength(1)
  @MaxLength(PASSWORD_MAX)
  password: string;
}

export class RequestCodeDto {
  @ApiProperty({ example: 'noura@example.com', maxLength: 254 })
  @EmailField()
  email: string;

  @ApiPropertyOptional({ enum: LOCALES, description: 'Language of the email. Default: the shopper’s, else Accept-Language, else ar.' })
  @OptionalField()
  @LocaleField()
  locale?: Locale;
}

export class VerifyCodeDto {
  @ApiProperty({ example: 'noura@example.com', maxLength: 254 })
  @EmailField()
  email: string;

  @ApiProperty({ example: '042917', pattern: '^\\d{6}$', description: 'The six digits from the email.' })
  @Matches(/^\d{6}$/, { message: 'must be the six digits from the email' })
  code: string;
}
