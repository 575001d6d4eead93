import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { BilingualText } from '../../../common/bilingual.js';
import { VariantOptionResponse } from '../../catalogue/dto/catalogue.response.js';

export class ProductReference {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() slug: string;
  @ApiProperty({ type: BilingualText }) name: BilingualText;
}

export class LineProblemResponse {
  @ApiProperty({ enum: ['VARIANT_UNAVAILABLE', 'INSUFFICIENT_STOCK'] }) code: string;
  @ApiPropertyOptional({ type: 'integer', description: 'INSUFFICIENT_STOCK: units in stock now.' }) available?: number;
}

export class CartLineResponse {
  @ApiProperty({ format: 'uuid', description: 'The line (cart item) id, for PATCH and DELETE.' }) id: string;
  @ApiProperty({ format: 'uuid' }) variantId: string;
  @ApiProperty({ type: ProductReference }) product: ProductReference;
  @ApiProperty() sku: string;
  @ApiProperty({ type: BilingualText }) name: BilingualText;
  @ApiProperty({ type: [VariantOptionResponse] }) options: VariantOptionResponse[];
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 999 }) quantity: number;
  @ApiProperty({ type: 'integer', description: 'Current price of the variant, minor units.' }) unitPrice: number;
  @ApiProperty({ type: 'integer', description: 'unitPrice × quantity, minor units.' }) lineTotal: number;
  @ApiProperty({ example: 'SAR' }) currency: string;
  @ApiProperty({ type: 'integer', description: 'Units in stock now.' }) available: number;
  @ApiProperty({ description: 'The variant exists in this store and its product is for sale.' }) purchasable: boolean;
  @ApiProperty({ type: [LineProblemResponse], description: 'Why the line cannot be ordered as it is; empty when it can.' })
  problems: LineProblemResponse[];
}

export class CartResponse {
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'Null until the first item is added.' }) id: string | null;
  @ApiProperty({ example: 'SAR' }) currency: string;
  @ApiProperty({ type: [CartLineResponse] }) items: CartLineResponse[];
  @ApiProperty({ type: 'integer', description: 'Units over all lines.' }) itemCount: number;
  @ApiProperty({ type: 'integer', description: 'Sum of line totals, minor units, from current prices.' }) subtotal: number;
  @ApiProperty({ description: 'Some line has problems and cannot be ordered as it is.' }) hasProblems: boolean;
}
