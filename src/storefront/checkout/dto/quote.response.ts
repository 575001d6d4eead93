import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CartLineResponse } from '../../cart/dto/cart.response.js';
import { BilingualText } from '../../../common/bilingual.js';
import { ShippingAddressResponse } from '../../../common/address.js';

export class DateRange {
  @ApiProperty({ example: '2025-06-03', description: 'Date in the store’s time zone.' }) from: string;
  @ApiProperty({ example: '2025-06-06' }) to: string;
}

export class DeliveryOptionResponse {
  @ApiProperty({ example: 'standard' }) code: string;
  @ApiProperty({ type: BilingualText }) name: BilingualText;
  @ApiProperty({ type: 'integer', description: 'Minor units, after the free-over threshold (0 when the subtotal reaches it).' })
  price: number;
  @ApiProperty({ type: DateRange }) estimatedDelivery: DateRange;
}

export class PickupOptionResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'riyadh-olaya' }) code: string;
  @ApiProperty({ type: BilingualText }) name: BilingualText;
  @ApiProperty({ type: BilingualText }) address: BilingualText;
  @ApiProperty() city: string;
  @ApiProperty({ description: 'When an order placed now is ready to collect (ISO 8601 UTC).' }) readyBy: string;
}

export class ChosenFulfilmentResponse {
  @ApiProperty({ enum: ['delivery', 'pickup'] }) type: string;
  @ApiPropertyOptional({ type: DeliveryOptionResponse }) shippingMethod?: DeliveryOptionResponse;
  @ApiPropertyOptional({ type: ShippingAddressResponse }) address?: ShippingAddressResponse;
  @ApiPropertyOptional({ type: PickupOptionResponse }) pickupLocation?: PickupOptionResponse;
}

export class FulfilmentOptions {
  @ApiProperty({ type: [DeliveryOptionResponse] }) delivery: DeliveryOptionResponse[];
  @ApiProperty({ type: [PickupOptionResponse] }) pickup: PickupOptionResponse[];
}

export class QuoteResponse {
  @ApiProperty({ type: [CartLineResponse] }) lines: CartLineResponse[];
  @ApiProperty({ type: 'integer' }) itemCount: number;
  @ApiProperty({ type: 'integer', description: 'Sum of line totals at current prices, minor units.' }) subtotal: number;
  @ApiProperty({ type: 'integer', description: 'Price of the chosen delivery method; 0 for pickup or before a choice.' }) shipping: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Tax on lines and shipping, each rounded half up to a minor unit. With taxIncluded it is the part of the prices that is tax; otherwise it is added to the total.',
  })
  tax: number;
  @ApiProperty({ type: 'integer', description: 'subtotal + shipping (+ tax when prices exclude it).' }) total: number;
  @ApiProperty({ example: 'SAR' }) currency: string;
  @ApiProperty() taxIncluded: boolean;
  @ApiProperty({ type: 'integer', example: 1500, description: 'Tax rate in basis points (1500 = 15%).' }) taxRateBps: number;
  @ApiProperty({ type: ChosenFulfilmentResponse, nullable: true }) fulfilment: ChosenFulfilmentResponse | null;
  @ApiProperty({ description: 'Some line cannot be ordered as it is.' }) hasProblems: boolean;
  @ApiProperty({ type: FulfilmentOptions }) options: FulfilmentOptions;
}
