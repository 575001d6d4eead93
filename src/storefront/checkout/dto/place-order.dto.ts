import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsNotEmpty, IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';
import { EmailField, OptionalField } from '../../../common/validation/fields.js';
import { PAYMENT_METHODS, type PaymentMethod } from '../../payments/payment-methods.js';

export class CardDto {
  @ApiProperty({
    example: 'tok_visa',
    description:
      'Card token from the payment provider’s client library. Test provider: tok_visa, tok_mastercard, tok_mada approve; ' +
      'tok_chargeDeclined and tok_insufficientFunds decline.',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  token: string;
}

export class PlaceOrderDto {
  @ApiProperty({ enum: PAYMENT_METHODS }) @IsIn(PAYMENT_METHODS) paymentMethod: PaymentMethod;

  @ApiPropertyOptional({ type: CardDto, description: 'Required for `card`, refused for `cash_on_delivery`.' })
  @OptionalField()
  @IsObject()
  @ValidateNested()
  @Type(() => CardDto)
  card?: CardDto;

  @ApiPropertyOptional({ description: 'Contact address: required on an anonymous session; defaults to the signed-in shopper’s.' })
  @OptionalField()
  @EmailField()
  email?: string;

  @ApiPropertyOptional({
    default: false,
    description:
      'A test order, for a storefront’s staging or QA run: placed, paid and fulfilled like any other, ' +
      'but left out of the store’s Insights figures unless its Insights settings count test orders.',
  })
  @OptionalField()
  @IsBoolean()
  test?: boolean;
}
