import { ApiPropertyOptional } from '@nestjs/swagger';
import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { OptionalField } from '../../common/validation/fields.js';
import { TIME_GRAINS, type TimeGrain } from '../definitions/dimensions.js';
import { COMPARES, type Compare } from '../query/ranges.js';

/** How a filter's value (report `filter[]`, the builder's `in` and `not_in`) names a value of its dimension. */
export const FILTER_VALUE_RULE =
  'A value is a value’s id (as `GET /admin/insights/dimensions/{dimension}/values` lists it), else its slug (a product’s, category’s or brand’s; a variant’s SKU), else exactly its name in English or Arabic (a customer’s also their email), compared as search compares text: case, Arabic letter forms and diacritics do not matter. One that names no value, or a name several values share, is 400 unknown_dimension_value with `dimension`, `value` and a `suggestion` (`code: closest_values`) listing the closest values.';

/** `dimension:value` filters, one or repeated in the query string. */
function FilterList() {
  return applyDecorators(
    OptionalField(),
    Transform(({ value }: { value: unknown }) => (value === undefined ? undefined : Array.isArray(value) ? value : [value])),
    IsArray(),
    ArrayMaxSize(50),
    IsString({ each: true }),
    MaxLength(300, { each: true }),
  );
}

/** The query of every built-in report (interface part 2, contract section 8); `limit` and `cursor` page its table. */
export class ReportQueryDto extends ListQueryDto {
  @ApiPropertyOptional({
    description: 'First day, `YYYY-MM-DD`, in the store’s time zone; with `to`, not with `last`.',
    example: '2026-10-01',
  })
  @OptionalField()
  @IsString()
  @MaxLength(32)
  from?: string;

  @ApiPropertyOptional({ description: 'Last day, inclusive, `YYYY-MM-DD`.', example: '2026-10-31' })
  @OptionalField()
  @IsString()
  @MaxLength(32)
  to?: string;

  @ApiPropertyOptional({
    description: 'Today and the N−1 days before (1 to 366), or `all` from the store’s first order. Default 30.',
    example: '30',
  })
  @OptionalField()
  @IsString()
  @MaxLength(32)
  last?: string;

  @ApiPropertyOptional({ enum: COMPARES, default: 'none' })
  @OptionalField()
  @IsIn(COMPARES)
  compare?: Compare;

  @ApiPropertyOptional({
    enum: TIME_GRAINS,
    description:
      'The series’ period. Default: hour up to 2 days, day up to 90, week up to 366, then month. `hour` is for ranges of up to 7 days.',
  })
  @OptionalField()
  @IsIn(TIME_GRAINS)
  grain?: TimeGrain;

  @ApiPropertyOptional({
    name: 'filter[]',
    type: [String],
    description:
      '`dimension:value`, repeated: values of one dimension are OR’d, dimensions AND’d; the dimensions are those of the answer’s `filterable`. ' +
      FILTER_VALUE_RULE,
    example: ['payment_method:card'],
  })
  @FilterList()
  'filter[]'?: string[];

  @ApiPropertyOptional({ type: [String], description: 'The same as `filter[]`.' })
  @FilterList()
  filter?: string[];

  @ApiPropertyOptional({
    description: '`-measure` (largest first) or `measure` (smallest first), one of the table’s measures.',
    example: '-net_sales',
  })
  @OptionalField()
  @IsString()
  @MaxLength(100)
  sort?: string;
}
