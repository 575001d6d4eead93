import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MappingDoc, MappingPageDoc, MappingVersionListDoc } from '../dto/data-hub.response.js';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { CreateMappingDto, RestoreMappingDto, UpdateMappingDto } from '../dto/mapping.dto.js';
import { MappingsService } from './mappings.service.js';

@ApiTags('Data hub')
@Controller('admin/data-hub/mappings')
export class MappingsController {
  constructor(private readonly mappings: MappingsService) {}

  @Get()
  @RequirePermission('data.flows.read')
  @ApiOperation({ summary: 'List mappings', description: 'Newest first, each at its current version.' })
  @ApiOkResponse({ type: MappingPageDoc })
  @ApiProblemResponses(['VALIDATION_FAILED'], 'admin')
  list(@Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.mappings.list(admin, query);
  }

  @Post()
  @RequirePermission('data.flows.manage')
  @ApiOperation({ summary: 'Create a mapping', description: 'Version 1. 400 mapping_invalid names each field that cannot be used.' })
  @ApiCreatedResponse({ description: 'The mapping.', type: MappingDoc })
  @ApiProblemResponses(['VALIDATION_FAILED', 'mapping_invalid'], 'admin')
  create(@Body() body: CreateMappingDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.mappings.create(admin, body);
  }

  @Get(':id')
  @RequirePermission('data.flows.read')
  @ApiOperation({ summary: 'Read a mapping at its current version' })
  @ApiOkResponse({ description: 'The mapping.', type: MappingDoc })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  get(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.mappings.get(admin, id);
  }

  @Put(':id')
  @RequirePermission('data.flows.manage')
  @ApiOperation({
    summary: 'Change a mapping',
    description:
      'Writes version N+1, even when the fields are the same; every earlier version is kept. The mapping as GET returned it is accepted back: `id`, `version`, `createdAt` and `updatedAt` are ignored, `structure` and `direction` while unchanged; a change to either is 400 validation_failed with code `immutable`.',
  })
  @ApiOkResponse({ description: 'The mapping at its new version.', type: MappingDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED', 'mapping_invalid'], 'admin')
  update(@Param('id') id: string, @Body() body: UpdateMappingDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.mappings.update(admin, id, body);
  }

  @Get(':id/versions')
  @RequirePermission('data.flows.read')
  @ApiOperation({ summary: 'Every version of a mapping, with its fields', description: 'Newest first.' })
  @ApiOkResponse({ type: MappingVersionListDoc })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  versions(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.mappings.versions(admin, id);
  }

  @Post(':id/restore')
  @RequirePermission('data.flows.manage')
  @ApiOperation({ summary: 'Restore an earlier version', description: 'Writes a new version equal to it, checked again.' })
  @ApiCreatedResponse({ description: 'The mapping at its new version.', type: MappingDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED', 'mapping_invalid'], 'admin')
  restore(@Param('id') id: string, @Body() body: RestoreMappingDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.mappings.restore(admin, id, body.version);
  }
}
