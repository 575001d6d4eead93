import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsNotEmpty, IsObject, IsString, IsUUID, Matches, MaxLength, ValidateNested } from 'class-validator';
import { OptionalField } from '../../../common/validation/fields.js';
import { FULFILMENT_TYPES, type FulfilmentType } from '../../cart/entities/cart.entity.js';

/** A delivery address given inline (guests, or a shopper not using a saved address). */
export class DeliveryAddressDto {
  @ApiProperty({ maxLength: 200 }) @IsString() @IsNotEmpty() @MaxLength(200) fullName: string;
  @ApiProperty({ example: '+966501234567' }) @IsString() @Matches(/^\+?[0-9][0-9 ()-]{5,30}$/) phone: string;
  @ApiProperty({ maxLength: 200 }) @IsString() @IsNotEmpty() @MaxLength(200) line1: string;
  @ApiPropertyOptional({ maxLength: 200 }) @OptionalField() @IsString() @MaxLength(200) line2?: string;
  @ApiPropertyOptional({ maxLength: 100 }) @OptionalField() @IsString() @MaxLength(100) district?: string;
  @ApiProperty({ maxLength: 100 }) @IsString() @IsNotEmpty() @MaxLength(100) city: string;
  @ApiPropertyOptional({ maxLength: 100 }) @OptionalField() @IsString() @MaxLength(100) region?: string;
  @ApiPropertyOptional({ maxLength: 20 }) @OptionalField() @IsString() @MaxLength(20) postalCode?: string;
  @ApiProperty({ example: 'SA', description: 'ISO 3166-1 alpha-2, upper case.' }) @IsString() @Matches(/^[A-Z]{2}$/) country: string;
}

/**
 * `{ type: 'delivery', shippingMethod, addressId }` (a saved address of the signed-in shopper),
 * `{ type: 'delivery', shippingMethod, address }` (inline), or `{ type: 'pickup', pickupLocationId }`.
 */
export class ChooseFulfilmentDto {
  @ApiProperty({ enum: FULFILMENT_TYPES }) @IsIn(FULFILMENT_TYPES) type: FulfilmentType;

  @ApiPropertyOptional({ example: 'standard', description: 'delivery: a code from options.delivery of the quote.' })
  @OptionalField()
  @IsString()
  @IsNotEmpty()
  @MaxLength(40)
  shippingMethod?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'delivery: a saved address of the signed-in shopper.' })
  @OptionalField()
  @IsUUID('all')
  addressId?: string;

  @ApiPropertyOptional({ type: DeliveryAddressDto, description: 'delivery: the address inline, instead of addressId.' })
  @OptionalField()
  @IsObject()
  @ValidateNested()
  @Type(() => DeliveryAddressDto)
  address?: DeliveryAddressDto;

  @ApiPropertyOptional({ format: 'uuid', description: 'pickup: an id from options.pickup of the quote.' })
  @OptionalField()
  @IsUUID('all')
  pickupLocationId?: string;
}
