import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentSession, RequireScope } from '../../auth/access/decorators.js';
import type { SessionPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { sendRendered } from '../../infra/http/rendered-json.js';
import { OrderPage, OrderResponse } from './dto/order.response.js';
import { OrdersService } from './orders.service.js';

@ApiTags('Orders')
@Controller('v1/orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Get()
  @RequireScope('orders:read')
  @ApiOperation({
    summary: 'The signed-in shopper’s orders (including guest orders of sessions they signed in on), else the session’s; newest first',
  })
  @ApiOkResponse({ type: OrderPage })
  @ApiProblemResponses(['VALIDATION_FAILED'])
  async list(
    @CurrentSession() session: SessionPrincipal,
    @Query() query: ListQueryDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return sendRendered(request, reply, await this.orders.list(session, query));
  }

  @Get(':id')
  @RequireScope('orders:read')
  @ApiOperation({ summary: 'One order in full: lines, totals, states and their times, fulfilment and payment' })
  @ApiOkResponse({ type: OrderResponse })
  @ApiProblemResponses(['NOT_FOUND'])
  async get(
    @CurrentSession() session: SessionPrincipal,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return sendRendered(request, reply, await this.orders.get(session, id));
  }
}
