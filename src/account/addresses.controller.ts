import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentSession, RequireScope } from '../auth/access/decorators.js';
import type { SessionPrincipal } from '../auth/principal.js';
import { ApiProblemResponses } from '../common/errors/openapi.js';
import { ListQueryDto } from '../common/pagination/list-query.dto.js';
import { sendRendered } from '../infra/http/rendered-json.js';
import { AddressesService, MAX_ADDRESSES } from './addresses.service.js';
import { CreateAddressDto, UpdateAddressDto } from './dto/address.dto.js';
import { AddressPage, AddressResponse } from './dto/account.response.js';

const ADDRESS_ID = { name: 'id', description: 'The address’s UUID.' };

@ApiTags('Account')
@Controller('v1/account/addresses')
export class AddressesController {
  constructor(private readonly addresses: AddressesService) {}

  @Get()
  @RequireScope('account:read')
  @ApiOperation({ summary: 'The shopper’s addresses: the default shipping address first, then the newest' })
  @ApiOkResponse({ type: AddressPage })
  @ApiProblemResponses(['VALIDATION_FAILED', 'SIGN_IN_REQUIRED'])
  async list(
    @CurrentSession() session: SessionPrincipal,
    @Query() query: ListQueryDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return sendRendered(request, reply, await this.addresses.list(session, query));
  }

  @Post()
  @RequireScope('account:write')
  @ApiOperation({ summary: `Add an address (at most ${MAX_ADDRESSES}); the first one becomes the default shipping address` })
  @ApiCreatedResponse({ type: AddressResponse })
  @ApiProblemResponses(['VALIDATION_FAILED', 'SIGN_IN_REQUIRED', 'ADDRESS_LIMIT_REACHED'])
  async create(
    @CurrentSession() session: SessionPrincipal,
    @Body() body: CreateAddressDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return sendRendered(request, reply.code(201), await this.addresses.create(session, body));
  }

  @Patch(':id')
  @RequireScope('account:write')
  @ApiOperation({ summary: 'Change an address; isDefaultShipping: true makes it the default (the previous default stops being one)' })
  @ApiParam(ADDRESS_ID)
  @ApiOkResponse({ type: AddressResponse })
  @ApiProblemResponses(['VALIDATION_FAILED', 'SIGN_IN_REQUIRED', 'NOT_FOUND'])
  async update(
    @CurrentSession() session: SessionPrincipal,
    @Param('id') id: string,
    @Body() body: UpdateAddressDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return sendRendered(request, reply, await this.addresses.update(session, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireScope('account:write')
  @ApiOperation({ summary: 'Delete an address; deleting the default makes the most recently changed remaining one the default' })
  @ApiParam(ADDRESS_ID)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblemResponses(['SIGN_IN_REQUIRED', 'NOT_FOUND'])
  async delete(@CurrentSession() session: SessionPrincipal, @Param('id') id: string): Promise<void> {
    await this.addresses.delete(session, id);
  }
}
