import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ANY_INSIGHTS_VIEW } from '../../auth/access/access-rule.js';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { CreateSavedReportDto, UpdateSavedReportDto } from '../dto/report-source.dto.js';
import { ReportResponseDoc, SavedReportDoc, SavedReportPageDoc } from '../dto/insights.response.js';
import { QUERY_ERRORS } from '../query/query-errors.js';
import { SavedReportsService } from './saved-reports.service.js';

@ApiTags('Insights')
@Controller('admin/insights/saved-reports')
export class SavedReportsController {
  constructor(private readonly savedReports: SavedReportsService) {}

  @Get()
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({ summary: 'List saved reports', description: 'Newest first; those whose areas the caller may view.' })
  @ApiOkResponse({ type: SavedReportPageDoc })
  @ApiProblemResponses(['VALIDATION_FAILED'], 'admin')
  list(@Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.savedReports.list(admin, query);
  }

  @Post()
  @RequirePermission('insights.reports.manage')
  @ApiOperation({
    summary: 'Save a report',
    description: 'A built-in report with its params, or a builder query; checked like the request it stands for.',
  })
  @ApiCreatedResponse({ type: SavedReportDoc })
  @ApiProblemResponses([...QUERY_ERRORS], 'admin')
  create(@Body() body: CreateSavedReportDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.savedReports.create(admin, body);
  }

  @Get(':id')
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({ summary: 'Read a saved report' })
  @ApiOkResponse({ type: SavedReportDoc })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  get(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.savedReports.get(admin, id);
  }

  @Patch(':id')
  @RequirePermission('insights.reports.manage')
  @ApiOperation({ summary: 'Change a saved report', description: 'Its name, or its whole definition.' })
  @ApiOkResponse({ type: SavedReportDoc })
  @ApiProblemResponses(['NOT_FOUND', ...QUERY_ERRORS], 'admin')
  update(@Param('id') id: string, @Body() body: UpdateSavedReportDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.savedReports.update(admin, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('insights.reports.manage')
  @ApiOperation({ summary: 'Delete a saved report' })
  @ApiNoContentResponse()
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  async remove(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    await this.savedReports.remove(admin, id);
  }

  @Get(':id/run')
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({
    summary: 'Run a saved report',
    description: 'Answers as its report or builder query would, with the same errors; `limit` and `cursor` page a report’s table.',
  })
  @ApiOkResponse({ type: ReportResponseDoc })
  @ApiProblemResponses(['NOT_FOUND', ...QUERY_ERRORS, 'over_row_limit'], 'admin')
  run(@Param('id') id: string, @Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.savedReports.run(admin, id, query);
  }
}
