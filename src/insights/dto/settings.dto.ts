import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { LOCALES, type Locale } from '../../common/locale.js';
import { NullableField, OptionalField } from '../../common/validation/fields.js';
import { WEEK_STARTS, type WeekStart } from '../query/ranges.js';

/** The longest grace after a promise before an order counts as late: 30 days. */
export const MAX_LATE_AFTER_HOURS = 720;

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

  @ApiPropertyOptional({
    description:
      'Whether every figure leaves out test orders (placed with `test: true` at checkout). Changing it rebuilds the figures (GET /status says while).',
  })
  @OptionalField()
  @IsBoolean()
  excludeTestOrders?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 0,
    maximum: MAX_LATE_AFTER_HOURS,
    description:
      'Hours after an order’s promise before its delivery (or pickup made ready) counts as late, and an open order as past its promise; ' +
      'null or 0: as soon as the promise passes. Changing it rebuilds the figures (GET /status says while).',
  })
  @NullableField()
  @IsInt()
  @Min(0)
  @Max(MAX_LATE_AFTER_HOURS)
  lateAfterHours?: number | null;
}

export class InsightsSettingsDoc {
  @ApiProperty({ example: 'Asia/Riyadh' }) timezone: string;
  @ApiProperty({ example: 'SAR', description: 'The store’s currency, set when it was created.' }) currency: string;
  @ApiProperty({ enum: WEEK_STARTS }) weekStartsOn: WeekStart;
  @ApiProperty({ enum: LOCALES }) language: Locale;
  @ApiProperty({ description: 'Test orders are left out of every figure (the default).' }) excludeTestOrders: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The grace after a promise before an order is late; null: none.' })
  lateAfterHours: number | null;
}
