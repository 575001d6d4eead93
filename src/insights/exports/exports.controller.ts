import { attachment } from '../../infra/http/attachment.js';
import { Body, Controller, Get, HttpCode, Param, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ANY_INSIGHTS_VIEW } from '../../auth/access/access-rule.js';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { QUERY_ERRORS } from '../query/query-errors.js';
import { CreateExportDto, ExportDoc, ExportPageDoc } from '../dto/exports.dto.js';
import { ExportsService } from './exports.service.js';
import { CONTENT_TYPES } from './report-file.js';

@ApiTags('Insights')
@Controller('admin/insights/exports')
export class ExportsController {
  constructor(private readonly exports: ExportsService) {}

  @Post()
  @HttpCode(202)
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({
    summary: 'Start an export',
    description:
      'Every row of a report, a builder query or a saved report as a CSV or XLSX file, written in the background: poll GET /exports/{id} for its progress. Needs what running the source needs (the view permissions of its areas; a builder query also insights.builder.use); XLSX needs the growth plan. The header row is in the caller’s language (Accept-Language).',
  })
  @ApiAcceptedResponse({ type: ExportDoc })
  @ApiProblemResponses(['NOT_FOUND', ...QUERY_ERRORS], 'admin')
  create(@Body() body: CreateExportDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.exports.create(admin, body);
  }

  @Get()
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({ summary: 'List exports', description: 'The store’s exports, newest first: those whose areas the caller may view.' })
  @ApiOkResponse({ type: ExportPageDoc })
  @ApiProblemResponses(['VALIDATION_FAILED'], 'admin')
  list(@Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.exports.list(admin, query);
  }

  @Get(':id')
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({
    summary: 'An export’s progress',
    description: 'Its status, the rows written of all it will hold, and its file once done.',
  })
  @ApiOkResponse({ type: ExportDoc })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  get(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.exports.get(admin, id);
  }

  @Get(':id/file')
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({
    summary: 'Download an export’s file',
    description: 'Streamed, with its length and a file name. 409 export_not_ready until it is written; 410 export_expired after 7 days.',
  })
  @ApiProduces(CONTENT_TYPES.csv, CONTENT_TYPES.xlsx)
  @ApiOkResponse({ description: 'The file.', schema: { type: 'string', format: 'binary' } })
  @ApiProblemResponses(['NOT_FOUND', 'export_not_ready', 'export_failed', 'export_expired'], 'admin')
  async file(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<StreamableFile> {
    const file = await this.exports.file(admin, id);
    return new StreamableFile(file.content, { type: file.contentType, length: file.bytes, disposition: attachment(file.name) });
  }
}
