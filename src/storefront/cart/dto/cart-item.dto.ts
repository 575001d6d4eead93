import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsUUID, Max, Min } from 'class-validator';
import { OptionalField } from '../../../common/validation/fields.js';
import { MAX_LINE_QUANTITY } from '../cart-limits.js';

export class AddCartItemDto {
  @ApiProperty({ format: 'uuid', description: 'A variant of an active product of this store.' })
  @IsUUID('all')
  variantId: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_LINE_QUANTITY,
    default: 1,
    description: 'Units to add; added to the quantity already in the cart for this variant.',
  })
  @OptionalField()
  @IsInt()
  @Min(1)
  @Max(MAX_LINE_QUANTITY)
  quantity?: number;
}

export class UpdateCartItemDto {
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: MAX_LINE_QUANTITY,
    description: 'The new quantity of the line (remove a line with DELETE).',
  })
  @IsInt()
  @Min(1)
  @Max(MAX_LINE_QUANTITY)
  quantity: number;
}
