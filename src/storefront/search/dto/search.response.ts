import { ApiProperty } from '@nestjs/swagger';
import { ProductResponse } from '../../catalogue/dto/catalogue.response.js';
import { BilingualText } from '../../../common/bilingual.js';

class CategoryFacet {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() slug: string;
  @ApiProperty({ type: BilingualText }) name: BilingualText;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) parentId: string | null;
  @ApiProperty({ type: 'integer', description: '0 for a top-level category.' }) depth: number;
  @ApiProperty({ type: 'integer', description: 'Matching products in the category and its subcategories.' }) count: number;
}

class BrandFacet {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() slug: string;
  @ApiProperty({ type: BilingualText }) name: BilingualText;
  @ApiProperty({ type: 'integer' }) count: number;
}

class PriceBandFacet {
  @ApiProperty({ type: 'integer', description: 'Lowest "from" price of the band, minor units, inclusive: send as priceMin.' }) min: number;
  @ApiProperty({ nullable: true, type: 'integer', description: 'Highest, inclusive: send as priceMax; null for the open top band.' })
  max: number | null;
  @ApiProperty({ example: 'SAR' }) currency: string;
  @ApiProperty({ type: 'integer' }) count: number;
}

class SearchFacets {
  @ApiProperty({ type: [CategoryFacet] }) categories: CategoryFacet[];
  @ApiProperty({ type: [BrandFacet] }) brands: BrandFacet[];
  @ApiProperty({
    type: [PriceBandFacet],
    description:
      'Fixed bands per currency, by the lowest variant price. SAR/AED/QAR (minor units): 0–4,999, 5,000–9,999, 10,000–24,999, ' +
      '25,000–49,999, 50,000–99,999, 100,000–249,999, 250,000–499,999, 500,000 and up. Only bands with matches are listed.',
  })
  priceBands: PriceBandFacet[];
}

class SearchQueryInfo {
  @ApiProperty({ description: 'The query as sent.' }) q: string;
  @ApiProperty({ description: 'The query as matched: lower case, Arabic diacritics removed, letter variants unified.' }) normalized: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'When the query found (almost) nothing and a spelling correction found more: the query whose results these are.',
  })
  correctedQuery: string | null;
}

export class SearchPage {
  @ApiProperty({ type: [ProductResponse] }) items: ProductResponse[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
  @ApiProperty({ type: 'integer', description: 'Matching products with every filter applied.' }) total: number;
  @ApiProperty({ type: SearchFacets }) facets: SearchFacets;
  @ApiProperty({ type: SearchQueryInfo }) query: SearchQueryInfo;
}

class Suggestion {
  @ApiProperty({ enum: ['query', 'category', 'brand', 'product'] }) type: string;
  @ApiProperty({ description: 'What to show, in the language of the typed text.' }) text: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) id: string | null;
  @ApiProperty({ nullable: true, type: String }) slug: string | null;
  @ApiProperty({ type: BilingualText, nullable: true, description: 'Null for a popular query.' }) name: BilingualText | null;
}

export class SuggestionsResponse {
  @ApiProperty({ type: [Suggestion], description: 'At most 8: popular searches, then categories and brands, then products.' })
  items: Suggestion[];
  @ApiProperty({ type: SearchQueryInfo }) query: SearchQueryInfo;
}

class PopularSearch {
  @ApiProperty() query: string;
  @ApiProperty({ type: 'integer', description: 'Searches in the last 30 days that found something.' }) count: number;
}

class RecentSearch {
  @ApiProperty() query: string;
  @ApiProperty({ format: 'date-time' }) searchedAt: string;
}

export class SearchContextResponse {
  @ApiProperty({ type: [PopularSearch], description: 'The store’s most frequent searches; refreshed about once a minute.' })
  popular: PopularSearch[];
  @ApiProperty({ type: [RecentSearch], description: 'This session’s last 10 distinct searches, newest first.' })
  recent: RecentSearch[];
}
