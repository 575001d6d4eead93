import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, StreamableFile } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { attachment } from '../../infra/http/attachment.js';
import { RAW_BODY_ROUTE } from '../../infra/http/json-body-parser.js';
import { ConnectionFieldsQueryDto, CreateConnectionDto, UpdateConnectionDto } from '../dto/connection.dto.js';
import { ConnectionDoc, ConnectionPageDoc, DropFileListDoc, SourceFieldsDoc, UploadedFileDoc } from '../dto/data-hub.response.js';
import { ConnectionsService } from './connections.service.js';
import { DropFilesService } from './drop-files.service.js';

@ApiTags('Data hub')
@Controller('admin/data-hub/connections')
export class ConnectionsController {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly files: DropFilesService,
  ) {}

  @Get()
  @RequirePermission('data.flows.manage')
  @ApiOperation({
    summary: 'List connections',
    description: 'Newest first. Credentials are never returned: `credentials` says whether they are set and which fields they hold.',
  })
  @ApiOkResponse({ type: ConnectionPageDoc })
  @ApiProblemResponses(['VALIDATION_FAILED'], 'admin')
  list(@Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.connections.list(admin, query);
  }

  @Post()
  @RequirePermission('data.connections.manage')
  @ApiOperation({ summary: 'Create a connection', description: 'Created `untested`; `database_read` needs the pro plan.' })
  @ApiCreatedResponse({ description: 'The connection.', type: ConnectionDoc })
  @ApiProblemResponses(['VALIDATION_FAILED'], 'admin')
  create(@Body() body: CreateConnectionDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.connections.create(admin, body);
  }

  @Get(':id')
  @RequirePermission('data.flows.manage')
  @ApiOperation({ summary: 'Read a connection' })
  @ApiOkResponse({ description: 'The connection.', type: ConnectionDoc })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  get(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.connections.get(admin, id);
  }

  @Put(':id')
  @RequirePermission('data.connections.manage')
  @ApiOperation({
    summary: 'Change a connection',
    description:
      'A change of config or credentials, or `hostKey: null` (clears an SFTP pin), returns it to `untested`. The connection as GET returned it is accepted back: `id`, `status`, `lastTest`, `createdAt`, `updatedAt` and `credentials` as GET describes them (`{ set, fields }`: the stored credentials stay) are ignored, `kind` and the pinned `hostKey` while unchanged; a change to either is 400 validation_failed with code `immutable`.',
  })
  @ApiOkResponse({ description: 'The connection.', type: ConnectionDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED'], 'admin')
  update(@Param('id') id: string, @Body() body: UpdateConnectionDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.connections.update(admin, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('data.connections.manage')
  @ApiOperation({ summary: 'Delete a connection', description: '409 connection_in_use while a flow or a delivery schedule uses it.' })
  @ApiNoContentResponse()
  @ApiProblemResponses(['NOT_FOUND', 'connection_in_use'], 'admin')
  async remove(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    await this.connections.remove(admin, id);
  }

  @Post(':id/test')
  @HttpCode(200)
  @RequirePermission('data.connections.manage')
  @ApiOperation({
    summary: 'Test a connection',
    description:
      'Connects for real within 10 s: lists the base path and writes and deletes a probe file, or runs the query with LIMIT 0. The outcome is recorded in `lastTest` and `status`.',
  })
  @ApiOkResponse({ description: 'The connection with the test’s outcome.', type: ConnectionDoc })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  test(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.connections.test(admin, id);
  }

  @Post(':id/activate')
  @HttpCode(200)
  @RequirePermission('data.connections.manage')
  @ApiOperation({ summary: 'Activate a connection that passed a test of its current settings' })
  @ApiOkResponse({ description: 'The connection, `active`.', type: ConnectionDoc })
  @ApiProblemResponses(['NOT_FOUND', 'connection_not_tested'], 'admin')
  activate(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.connections.activate(admin, id);
  }

  @Get(':id/fields')
  @RequirePermission('data.flows.manage')
  @ApiOperation({
    summary: 'Field names found at the source',
    description: 'The header of the newest file matching `template` (CSV, JSON lines, XLSX), or the query’s columns and types.',
  })
  @ApiOkResponse({ type: SourceFieldsDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED', 'source_unavailable'], 'admin')
  fields(@Param('id') id: string, @Query() query: ConnectionFieldsQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.connections.fields(admin, id, query);
  }

  @Get(':id/files')
  @RequirePermission('data.flows.manage')
  @ApiOperation({ summary: 'List the files of a platform_drop connection' })
  @ApiOkResponse({ type: DropFileListDoc })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  listFiles(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.files.list(admin, id);
  }

  @Put(':id/files/:name')
  @RouteConfig({ [RAW_BODY_ROUTE]: true })
  @RequirePermission('data.flows.manage')
  @ApiOperation({
    summary: 'Upload a file to a platform_drop connection',
    description: 'The raw body, streamed, up to 2 GiB; replaces a file of the same name once complete.',
  })
  @ApiConsumes('application/octet-stream')
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiOkResponse({ type: UploadedFileDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE'], 'admin')
  upload(@Param('id') id: string, @Param('name') name: string, @Req() request: FastifyRequest, @CurrentAdmin() admin: AdminPrincipal) {
    const body = request.body instanceof Readable ? request.body : Readable.from([]);
    const declared = request.headers['content-length'];
    return this.files.upload(admin, id, name, body, declared === undefined ? undefined : Number(declared));
  }

  @Get(':id/files/:name')
  @RequirePermission('data.flows.manage')
  @ApiOperation({ summary: 'Download a file of a platform_drop connection' })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The file.', schema: { type: 'string', format: 'binary' } })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  async download(@Param('id') id: string, @Param('name') name: string, @CurrentAdmin() admin: AdminPrincipal): Promise<StreamableFile> {
    const file = await this.files.download(admin, id, name);
    return new StreamableFile(file.content, { type: 'application/octet-stream', length: file.bytes, disposition: attachment(name) });
  }
}
