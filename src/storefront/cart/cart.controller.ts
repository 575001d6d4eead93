import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentSession, RequireScope } from '../../auth/access/decorators.js';
import type { SessionPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { CartService } from './cart.service.js';
import { AddCartItemDto, UpdateCartItemDto } from './dto/cart-item.dto.js';
import { CartResponse } from './dto/cart.response.js';

@ApiTags('Cart')
@Controller('v1/cart')
export class CartController {
  constructor(private readonly carts: CartService) {}

  @Get()
  @RequireScope('cart:read')
  @ApiOperation({ summary: 'The session’s cart (the signed-in shopper’s); an empty cart when none exists yet' })
  @ApiOkResponse({ type: CartResponse })
  view(@CurrentSession() session: SessionPrincipal) {
    return this.carts.view(session);
  }

  @Post('items')
  @HttpCode(200)
  @RequireScope('cart:write')
  @ApiOperation({
    summary: 'Add a variant; one already in the cart has its quantity increased. Answers the whole cart',
    description: 'Stock and purchasability are checked on every change. At most 100 lines, 999 units per line.',
  })
  @ApiOkResponse({ type: CartResponse })
  @ApiProblemResponses(['VALIDATION_FAILED', 'VARIANT_UNAVAILABLE', 'INSUFFICIENT_STOCK', 'CART_LIMIT_REACHED'])
  add(@CurrentSession() session: SessionPrincipal, @Body() body: AddCartItemDto) {
    return this.carts.addItem(session, body.variantId, body.quantity ?? 1);
  }

  @Patch('items/:id')
  @RequireScope('cart:write')
  @ApiOperation({ summary: 'Set the quantity of a line. Answers the whole cart' })
  @ApiOkResponse({ type: CartResponse })
  @ApiProblemResponses(['VALIDATION_FAILED', 'NOT_FOUND', 'VARIANT_UNAVAILABLE', 'INSUFFICIENT_STOCK'])
  update(@CurrentSession() session: SessionPrincipal, @Param('id') id: string, @Body() body: UpdateCartItemDto) {
    return this.carts.setQuantity(session, id, body.quantity);
  }

  @Delete('items/:id')
  @RequireScope('cart:write')
  @ApiOperation({ summary: 'Remove a line. Answers the whole cart' })
  @ApiOkResponse({ type: CartResponse })
  @ApiProblemResponses(['NOT_FOUND'])
  remove(@CurrentSession() session: SessionPrincipal, @Param('id') id: string) {
    return this.carts.removeItem(session, id);
  }
}
