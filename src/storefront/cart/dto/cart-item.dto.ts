import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { MAX_LINE_QUANTITY } from '../cart.service.js';

export class AddCartItemDto {
  @ApiProperty({ format: 'uuid', description: 'A variant of an active product of this store.' })
  @IsUUID('all')
  variantId: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_LINE_QUANTITY,
    default: 1,
    description: 'Units to add; added to the quantity already in the cart for this variant.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_LINE_QUANTITY)
  quantity?: number;
}

export class UpdateCartItemDto {
  @ApiProperty({ minimum: 1, maximum: MAX_LINE_QUANTITY, description: 'The new quantity of the line (remove a line with DELETE).' })
  @IsInt()
  @Min(1)
  @Max(MAX_LINE_QUANTITY)
  quantity: number;
}
