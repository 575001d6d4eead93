import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { FlowDoc, FlowPageDoc } from '../dto/data-hub.response.js';
import { CreateFlowDto, UpdateFlowDto } from '../dto/flow.dto.js';
import { FlowsService } from './flows.service.js';

@ApiTags('Data hub')
@Controller('admin/data-hub/flows')
export class FlowsController {
  constructor(private readonly flows: FlowsService) {}

  @Get()
  @RequirePermission('data.flows.read')
  @ApiOperation({ summary: 'List flows', description: 'Newest first.' })
  @ApiOkResponse({ type: FlowPageDoc })
  @ApiProblemResponses(['VALIDATION_FAILED'], 'admin')
  list(@Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.flows.list(admin, query);
  }

  @Post()
  @RequirePermission('data.flows.manage')
  @ApiOperation({
    summary: 'Create a flow',
    description:
      'A connection and a mapping of the store, the mapping’s direction, a file format and name template, and optionally a schedule.',
  })
  @ApiCreatedResponse({ description: 'The flow, with `nextRunAt`.', type: FlowDoc })
  @ApiProblemResponses(['VALIDATION_FAILED'], 'admin')
  create(@Body() body: CreateFlowDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.flows.create(admin, body);
  }

  @Get(':id')
  @RequirePermission('data.flows.read')
  @ApiOperation({ summary: 'Read a flow' })
  @ApiOkResponse({ description: 'The flow.', type: FlowDoc })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  get(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.flows.get(admin, id);
  }

  @Put(':id')
  @RequirePermission('data.flows.manage')
  @ApiOperation({
    summary: 'Change a flow',
    description:
      'What is given changes (pause and mute included); the rest stays. The flow as GET returned it is accepted back: `id`, `nextRunAt`, `lastRun`, `createdAt` and `updatedAt` are ignored, `direction` while unchanged; a change of direction is 400 validation_failed with code `immutable`.',
  })
  @ApiOkResponse({ description: 'The flow.', type: FlowDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED'], 'admin')
  update(@Param('id') id: string, @Body() body: UpdateFlowDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.flows.update(admin, id, body);
  }
}
