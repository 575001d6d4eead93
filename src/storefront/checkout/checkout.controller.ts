import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentSession, RequireScope } from '../../auth/access/decorators.js';
import type { SessionPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { IdempotencyKey } from '../../infra/idempotency/idempotency-key.decorator.js';
import { acceptedLocale } from '../../common/locale.js';
import { OrderResponse } from '../orders/dto/order.response.js';
import { CheckoutService } from './checkout.service.js';
import { ChooseFulfilmentDto } from './dto/choose-fulfilment.dto.js';
import { PlaceOrderDto } from './dto/place-order.dto.js';
import { QuoteRequestDto } from './dto/quote.dto.js';
import { QuoteResponse } from './dto/quote.response.js';
import { OrderPlacementService } from './order-placement.service.js';

@ApiTags('Checkout')
@Controller('v1/checkout')
export class CheckoutController {
  constructor(
    private readonly checkout: CheckoutService,
    private readonly placement: OrderPlacementService,
  ) {}

  @Post('quote')
  @HttpCode(200)
  @RequireScope('checkout:write')
  @ApiOperation({
    summary: 'Price the cart: totals and tax from current prices, the chosen fulfilment, and the delivery and pickup options',
  })
  @ApiOkResponse({ type: QuoteResponse })
  @ApiProblemResponses(['VALIDATION_FAILED', 'CART_EMPTY'])
  quote(@CurrentSession() session: SessionPrincipal, @Body() _body: QuoteRequestDto) {
    return this.checkout.quote(session);
  }

  @Post('fulfilment')
  @HttpCode(200)
  @RequireScope('checkout:write')
  @ApiOperation({
    summary: 'Choose delivery (method and address) or pickup (location) for the cart; answers the quote',
    description:
      'A saved address (addressId) needs a signed-in shopper; guests give the address inline. The address is stored as a snapshot.',
  })
  @ApiOkResponse({ type: QuoteResponse })
  @ApiProblemResponses([
    'VALIDATION_FAILED',
    'CART_EMPTY',
    'SIGN_IN_REQUIRED',
    'SHIPPING_METHOD_UNKNOWN',
    'PICKUP_LOCATION_UNKNOWN',
    'ADDRESS_UNKNOWN',
  ])
  chooseFulfilment(@CurrentSession() session: SessionPrincipal, @Body() body: ChooseFulfilmentDto) {
    return this.checkout.chooseFulfilment(session, body);
  }

  @Post('orders')
  @RequireScope('checkout:write')
  @ApiOperation({
    summary: 'Place the cart as an order, once per Idempotency-Key',
    description:
      'A retry with the same key and body answers the same order (201 with `Idempotent-Replayed: true`); the same key with another body is refused. ' +
      'Cards are authorised before and captured after the order is written; a declined card places nothing (it is recorded as a declined payment).',
  })
  @ApiCreatedResponse({
    type: OrderResponse,
    headers: { 'Idempotent-Replayed': { description: '`true` when the key had already placed this order.', schema: { type: 'string' } } },
  })
  @ApiProblemResponses([
    'VALIDATION_FAILED',
    'IDEMPOTENCY_KEY_REQUIRED',
    'IDEMPOTENCY_KEY_INVALID',
    'IDEMPOTENCY_KEY_REUSED',
    'CART_EMPTY',
    'FULFILMENT_REQUIRED',
    'VARIANT_UNAVAILABLE',
    'INSUFFICIENT_STOCK',
    'PRICE_CHANGED',
    'PAYMENT_DECLINED',
  ])
  async placeOrder(
    @CurrentSession() session: SessionPrincipal,
    @IdempotencyKey() key: string,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Body() body: PlaceOrderDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const placed = await this.placement.place(session, key, body, acceptedLocale(acceptLanguage));
    if (placed.replayed) reply.header('Idempotent-Replayed', 'true');
    return placed.order;
  }
}
