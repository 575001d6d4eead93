import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { OptionalField } from '../../../common/validation/fields.js';
import { ListProductsQuery } from '../../catalogue/dto/list-products.query.js';

export const SEARCH_SORTS = ['relevance', 'price_asc', 'price_desc', 'newest'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

const PG_INT_MAX = 2 ** 31 - 1;
export const MAX_QUERY_LENGTH = 200;
/** At least one character that is not a space, and no NUL (PostgreSQL text cannot hold one). */
const VISIBLE_TEXT = /^[^\u0000]*[^\s\u0000][^\u0000]*$/;

/** The catalogue's product filters (category subtree, brand), plus what was typed, price and order. */
export class SearchQuery extends ListProductsQuery {
  @ApiProperty({ minLength: 1, maxLength: MAX_QUERY_LENGTH, description: 'What the shopper typed, in Arabic or English.' })
  @IsString()
  @MaxLength(MAX_QUERY_LENGTH)
  @Matches(VISIBLE_TEXT)
  q: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: PG_INT_MAX,
    description: 'Lowest "from" price, minor units, inclusive (a price band’s `min`).',
  })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(PG_INT_MAX)
  priceMin?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: PG_INT_MAX,
    description: 'Highest "from" price, minor units, inclusive (a price band’s `max`).',
  })
  @OptionalField()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(PG_INT_MAX)
  priceMax?: number;

  @ApiPropertyOptional({ enum: SEARCH_SORTS, default: 'relevance' })
  @OptionalField()
  @IsIn(SEARCH_SORTS)
  sort?: SearchSort;
}

export class SuggestionsQuery {
  @ApiProperty({ minLength: 1, maxLength: MAX_QUERY_LENGTH, description: 'What the shopper has typed so far.' })
  @IsString()
  @MaxLength(MAX_QUERY_LENGTH)
  @Matches(VISIBLE_TEXT)
  q: string;
}
