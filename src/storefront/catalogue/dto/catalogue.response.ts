import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { BilingualText } from '../../../common/bilingual.js';

export class CatalogueReference {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() slug: string;
  @ApiProperty({ type: BilingualText }) name: BilingualText;
}

export class VariantOptionResponse {
  @ApiProperty({ type: BilingualText }) name: BilingualText;
  @ApiProperty({ type: BilingualText }) value: BilingualText;
}

export class VariantResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() sku: string;
  @ApiProperty({ type: [VariantOptionResponse] }) options: VariantOptionResponse[];
  @ApiProperty({ type: 'integer', description: 'Minor units of `currency`.' }) price: number;
  @ApiProperty({ nullable: true, type: 'integer', description: 'Price before a sale, minor units.' }) compareAtPrice: number | null;
  @ApiProperty({ example: 'SAR' }) currency: string;
  @ApiProperty({ type: 'integer' }) stock: number;
  @ApiProperty() inStock: boolean;
}

class PriceRange {
  @ApiProperty({ nullable: true, type: 'integer' }) min: number | null;
  @ApiProperty({ nullable: true, type: 'integer' }) max: number | null;
  @ApiProperty({ nullable: true, type: String, example: 'SAR' }) currency: string | null;
}

export class ProductResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() slug: string;
  @ApiProperty({ type: BilingualText }) name: BilingualText;
  @ApiProperty({ type: BilingualText }) description: BilingualText;
  @ApiProperty({ type: CatalogueReference, nullable: true }) category: CatalogueReference | null;
  @ApiProperty({ type: CatalogueReference, nullable: true }) brand: CatalogueReference | null;
  @ApiProperty({ type: PriceRange }) priceRange: PriceRange;
  @ApiProperty() inStock: boolean;
  @ApiProperty({ type: [VariantResponse] }) variants: VariantResponse[];
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class ProductPage {
  @ApiProperty({ type: [ProductResponse] }) items: ProductResponse[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export class CategoryResponse extends CatalogueReference {
  @ApiProperty({ type: BilingualText }) description: BilingualText;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) parentId: string | null;
  @ApiProperty({ type: 'integer', description: '0 for a top-level category.' }) depth: number;
  @ApiProperty({ type: 'integer' }) position: number;
  @ApiProperty({ type: 'integer' }) childCount: number;
}

export class CategoryPage {
  @ApiProperty({ type: [CategoryResponse] }) items: CategoryResponse[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}

export class CategoryDetailResponse extends CategoryResponse {
  @ApiProperty({ type: [CatalogueReference], description: 'From the root down to the parent: a breadcrumb.' })
  ancestors: CatalogueReference[];
  @ApiProperty({ type: [CatalogueReference] }) children: CatalogueReference[];
}

export class BrandResponse extends CatalogueReference {
  @ApiProperty({ type: BilingualText }) description: BilingualText;
  @ApiPropertyOptional({ type: 'integer', description: 'Active products of the brand.' }) productCount: number;
}

export class BrandPage {
  @ApiProperty({ type: [BrandResponse] }) items: BrandResponse[];
  @ApiProperty({ nullable: true, type: String }) nextCursor: string | null;
}
