import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { VariantOptionResponse } from '../../catalogue/dto/catalogue.response.js';
import { ShippingAddressResponse } from '../../../common/address.js';
import { BilingualText } from '../../../common/bilingual.js';

export class OrderSummaryResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: '100001', description: 'The order number shown to the shopper.' }) number: string;
  @ApiProperty({ enum: ['open', 'completed', 'cancelled'] }) status: string;
  @ApiProperty({ enum: ['cash_on_delivery', 'card'] }) paymentMethod: string;
  @ApiProperty({ enum: ['pending', 'authorized', 'paid', 'partially_refunded', 'refunded', 'voided'] }) paymentStatus: string;
  @ApiProperty({ enum: ['delivery', 'pickup'] }) fulfilmentType: string;
  @ApiProperty({ enum: ['unfulfilled', 'ready_for_pickup', 'shipped', 'delivered', 'returned', 'cancelled'] }) fulfilmentStatus: string;
  @ApiProperty({ type: 'integer' }) itemCount: number;
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ example: 'SAR' }) currency: string;
  @ApiProperty() placedAt: string;
  @ApiProperty({ description: 'Promised delivery, or readiness for pickup.' }) promisedBy: string;
}

export class OrderPage {
  @ApiProperty({ type: [OrderSummaryResponse] }) items: OrderSummaryResponse[];
  @ApiProperty({ type: String, nullable: true }) nextCursor: string | null;
}

export class OrderLineResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) variantId: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) productId: string | null;
  @ApiProperty() sku: string;
  @ApiProperty({ type: BilingualText }) name: BilingualText;
  @ApiProperty({ type: [VariantOptionResponse] }) options: VariantOptionResponse[];
  @ApiProperty({ type: 'integer' }) quantity: number;
  @ApiProperty({ type: 'integer' }) unitPrice: number;
  @ApiProperty({ type: 'integer' }) lineTotal: number;
  @ApiProperty({ type: 'integer', description: 'Tax in lineTotal (or on it, when prices exclude tax).' }) tax: number;
  @ApiProperty({ type: 'integer' }) returnedQuantity: number;
}

export class OrderShippingMethod {
  @ApiProperty() code: string;
  @ApiProperty({ type: BilingualText }) name: BilingualText;
}

export class OrderPickupLocation {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() code: string;
  @ApiProperty({ type: BilingualText }) name: BilingualText;
  @ApiProperty({ type: BilingualText }) address: BilingualText;
  @ApiProperty() city: string;
}

export class OrderFulfilment {
  @ApiProperty({ enum: ['delivery', 'pickup'] }) type: string;
  @ApiProperty() status: string;
  @ApiPropertyOptional({ type: OrderShippingMethod, nullable: true }) shippingMethod: OrderShippingMethod | null;
  @ApiPropertyOptional({ type: ShippingAddressResponse, nullable: true }) address: ShippingAddressResponse | null;
  @ApiPropertyOptional({ type: OrderPickupLocation, nullable: true }) pickupLocation: OrderPickupLocation | null;
}

export class OrderPayment {
  @ApiProperty({ enum: ['cash_on_delivery', 'card'] }) method: string;
  @ApiProperty() status: string;
  @ApiProperty({ type: 'integer' }) amount: number;
  @ApiProperty() currency: string;
  @ApiProperty() provider: string;
}

export class OrderRefundLine {
  @ApiProperty({ format: 'uuid' }) lineId: string;
  @ApiProperty({ type: 'integer' }) quantity: number;
  @ApiProperty({ type: 'integer', description: 'Minor units refunded for these units.' }) amount: number;
}

export class OrderRefund {
  @ApiProperty({ enum: ['return', 'cancellation'] }) reason: string;
  @ApiProperty({ type: 'integer', description: 'Minor units, shipping included.' }) amount: number;
  @ApiProperty({ type: 'integer', description: 'The part of amount that refunds the shipping charge.' }) shipping: number;
  @ApiProperty() createdAt: string;
  @ApiProperty({ type: [OrderRefundLine], description: 'The units the refund paid for (every unit for a cancellation).' })
  lines: OrderRefundLine[];
}

export class OrderResponse extends OrderSummaryResponse {
  @ApiProperty() email: string;
  @ApiProperty({ enum: ['en', 'ar'] }) locale: string;
  @ApiProperty({ type: 'integer' }) subtotal: number;
  @ApiProperty({ type: 'integer' }) shipping: number;
  @ApiProperty({ type: 'integer' }) tax: number;
  @ApiProperty({ type: 'integer' }) discount: number;
  @ApiProperty({ type: 'integer' }) refunded: number;
  @ApiProperty() taxIncluded: boolean;
  @ApiProperty({ description: 'Placed as a test order (checkout’s `test`): left out of Insights unless the store counts test orders.' })
  test: boolean;
  @ApiProperty({ type: String, nullable: true }) paidAt: string | null;
  @ApiProperty({ type: String, nullable: true }) shippedAt: string | null;
  @ApiProperty({ type: String, nullable: true }) readyAt: string | null;
  @ApiProperty({ type: String, nullable: true }) deliveredAt: string | null;
  @ApiProperty({ type: String, nullable: true }) cancelledAt: string | null;
  @ApiProperty({ type: String, nullable: true }) refundedAt: string | null;
  @ApiProperty({ type: OrderFulfilment }) fulfilment: OrderFulfilment;
  @ApiProperty({ type: OrderPayment }) payment: OrderPayment;
  @ApiProperty({ type: [OrderLineResponse] }) lines: OrderLineResponse[];
  @ApiProperty({ type: [OrderRefund], description: 'Each refund as it happened, oldest first.' }) refunds: OrderRefund[];
}
