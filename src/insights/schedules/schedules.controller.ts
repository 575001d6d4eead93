import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ANY_INSIGHTS_VIEW } from '../../auth/access/access-rule.js';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { QUERY_ERRORS } from '../query/query-errors.js';
import {
  ConnectionDestinationDto,
  CreateScheduleDto,
  DeliveryDoc,
  DeliveryPageDoc,
  EmailDestinationDto,
  ScheduleDoc,
  SchedulePageDoc,
  UpdateScheduleDto,
} from '../dto/schedules.dto.js';
import { SchedulesService } from './schedules.service.js';

@ApiTags('Insights')
@ApiExtraModels(EmailDestinationDto, ConnectionDestinationDto)
@Controller('admin/insights/schedules')
export class SchedulesController {
  constructor(private readonly schedules: SchedulesService) {}

  @Get()
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({ summary: 'List delivery schedules', description: 'Newest first; those whose report’s areas the caller may view.' })
  @ApiOkResponse({ type: SchedulePageDoc })
  @ApiProblemResponses(['VALIDATION_FAILED'], 'admin')
  list(@Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.schedules.list(admin, query);
  }

  @Post()
  @RequirePermission('insights.reports.manage')
  @ApiOperation({
    summary: 'Schedule a report delivery',
    description:
      'A saved report delivered as CSV or XLSX daily, weekly or monthly at a local time in the store’s time zone: emailed, or (pro plan) written to one of the store’s data hub file connections. Needs the growth plan; the saved report must run as it stands.',
  })
  @ApiCreatedResponse({ type: ScheduleDoc })
  @ApiProblemResponses(['NOT_FOUND', ...QUERY_ERRORS], 'admin')
  create(@Body() body: CreateScheduleDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.schedules.create(admin, body);
  }

  @Get(':id')
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({ summary: 'Read a schedule', description: 'With its next due time and its last delivery.' })
  @ApiOkResponse({ type: ScheduleDoc })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  get(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.schedules.get(admin, id);
  }

  @Patch(':id')
  @RequirePermission('insights.reports.manage')
  @ApiOperation({ summary: 'Change a schedule', description: 'Its report, name, cadence, format, destination; pause or resume it.' })
  @ApiOkResponse({ type: ScheduleDoc })
  @ApiProblemResponses(['NOT_FOUND', ...QUERY_ERRORS], 'admin')
  update(@Param('id') id: string, @Body() body: UpdateScheduleDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.schedules.update(admin, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('insights.reports.manage')
  @ApiOperation({ summary: 'Delete a schedule', description: 'With its deliveries’ record.' })
  @ApiNoContentResponse()
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  async remove(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    await this.schedules.remove(admin, id);
  }

  @Get(':id/deliveries')
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({
    summary: 'What a schedule delivered',
    description:
      'Every due time: due, started, finished, status, attempts, rows, bytes, the recipients mailed (or the file written) and the error of a failure.',
  })
  @ApiOkResponse({ type: DeliveryPageDoc })
  @ApiProblemResponses(['NOT_FOUND', 'VALIDATION_FAILED'], 'admin')
  deliveries(@Param('id') id: string, @Query() query: ListQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.schedules.deliveries(admin, id, query);
  }

  @Post(':id/deliveries')
  @HttpCode(202)
  @RequirePermission('insights.reports.manage')
  @ApiOperation({
    summary: 'Deliver now',
    description: 'A delivery of its own, outside the cadence, queued at once (a paused schedule’s too).',
  })
  @ApiAcceptedResponse({ type: DeliveryDoc })
  @ApiProblemResponses(['NOT_FOUND'], 'admin')
  deliverNow(@Param('id') id: string, @CurrentAdmin() admin: AdminPrincipal) {
    return this.schedules.deliverNow(admin, id);
  }
}
