import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsIn,
  IsInt,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { OptionalField } from '../../common/validation/fields.js';
import { FILTER_OPERATORS, type FilterOperator } from '../definitions/filters.js';
import { FILTER_VALUE_RULE } from './report-query.dto.js';
import { COMPARES, type Compare } from '../query/ranges.js';

export class BuilderFilterDto {
  @ApiProperty({ example: 'category' })
  @IsString()
  @MaxLength(64)
  dimension: string;

  @ApiProperty({ enum: FILTER_OPERATORS, description: '`between` takes two values; `gt` … `lte` one; `is_set` and `is_not_set` none.' })
  @IsIn(FILTER_OPERATORS)
  op: FilterOperator;

  @ApiPropertyOptional({
    type: [String],
    default: [],
    example: ['Apparel'],
    description: `For \`in\` and \`not_in\`: ${FILTER_VALUE_RULE}`,
  })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  values: string[] = [];
}

/** A number of days or `all`; its range (1 to 366) is checked with the rest of the range (invalid_range). */
function IsDaysOrAll() {
  return ValidateBy({
    name: 'isDaysOrAll',
    validator: {
      validate: (value: unknown) => value === 'all' || typeof value === 'number',
      defaultMessage: () => 'must be a number of days (1 to 366) or "all"',
    },
  });
}

/** The range of a query in a body (contract section 8): `last`, or `from` and `to`, and what to compare it with. */
export class QueryRangeDto {
  @ApiPropertyOptional({
    oneOf: [
      { type: 'integer', minimum: 1, maximum: 366 },
      { type: 'string', enum: ['all'] },
    ],
    example: 90,
  })
  @OptionalField()
  @IsDaysOrAll()
  last?: number | 'all';

  @ApiPropertyOptional({ example: '2026-01-01' })
  @OptionalField()
  @IsString()
  @MaxLength(32)
  from?: string;

  @ApiPropertyOptional({ example: '2026-06-30' })
  @OptionalField()
  @IsString()
  @MaxLength(32)
  to?: string;

  @ApiPropertyOptional({ enum: COMPARES, default: 'none' })
  @OptionalField()
  @IsIn(COMPARES)
  compare?: Compare;
}

/** `POST /builder/run` (contract section 8). */
export class BuilderRunDto extends QueryRangeDto {
  @ApiProperty({ type: [String], minItems: 1, maxItems: 10, example: ['net_sales', 'orders'] })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  measures: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: 3,
    description: 'Up to 3; a time grain (`day`, `week`…) counts as one. More: 400 too_many_dimensions.',
    example: ['month', 'category'],
  })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  dimensions?: string[];

  @ApiPropertyOptional({ type: [BuilderFilterDto] })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => BuilderFilterDto)
  filters?: BuilderFilterDto[];

  @ApiPropertyOptional({ example: '-net_sales', description: 'One of `measures`, `-` first for largest first.' })
  @OptionalField()
  @IsString()
  @MaxLength(100)
  sort?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'Only the first N rows by the sort (a top N). Without it, every row, up to 5,000.',
  })
  @OptionalField()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  limit?: number;
}
