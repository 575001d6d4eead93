import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { LOCALES, type Locale } from '../../common/locale.js';
import { OptionalField } from '../../common/validation/fields.js';
import { WEEK_STARTS, type WeekStart } from '../query/ranges.js';

/** `PATCH /settings`: what is given changes, what is left out stays. */
export class UpdateInsightsSettingsDto {
  @ApiPropertyOptional({
    example: 'Asia/Riyadh',
    description: 'An IANA time zone name. Changing it rebuilds the figures in the new zone (GET /status says while).',
  })
  @OptionalField()
  @IsString()
  @MaxLength(64)
  timezone?: string;

  @ApiPropertyOptional({ enum: WEEK_STARTS })
  @OptionalField()
  @IsIn(WEEK_STARTS)
  weekStartsOn?: WeekStart;

  @ApiPropertyOptional({ enum: LOCALES, description: 'The language of exports’ headers and delivered reports.' })
  @OptionalField()
  @IsIn(LOCALES)
  language?: Locale;
}

export class InsightsSettingsDoc {
  @ApiProperty({ example: 'Asia/Riyadh' }) timezone: string;
  @ApiProperty({ example: 'SAR', description: 'The store’s currency, set when it was created.' }) currency: string;
  @ApiProperty({ enum: WEEK_STARTS }) weekStartsOn: WeekStart;
  @ApiProperty({ enum: LOCALES }) language: Locale;
}
