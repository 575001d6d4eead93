import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ANY_INSIGHTS_VIEW } from '../../auth/access/access-rule.js';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError } from '../../common/errors/api-error.js';
import { ApiProblemResponses, ProblemDocument } from '../../common/errors/openapi.js';
import { decodeCursor, encodeCursor } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/list-query.dto.js';
import { dimensionNamed } from '../definitions/dimensions.js';
import { ReferenceListDoc, DimensionValuesDoc, ReportListDoc, StatusDoc } from '../dto/insights.response.js';
import { DimensionValuesQueryDto } from '../dto/values-query.dto.js';
import { requireAreas } from '../query/area-access.js';
import { DimensionValues } from '../query/dimension-values.js';
import { FreshnessService } from '../query/freshness.js';
import { StoreCalendars } from '../query/store-calendar.js';
import { InsightsSettingsService } from '../settings/insights-settings.service.js';
import { dimensionReference, measureReference, reportReference } from '../definitions/reference.js';

/** What Insights can show: its reports, measures and dimensions, the values a filter can take, and how current the figures are. */
@ApiTags('Insights')
@Controller('admin/insights')
export class InsightsReferenceController {
  constructor(
    private readonly values: DimensionValues,
    private readonly freshness: FreshnessService,
    private readonly calendars: StoreCalendars,
    private readonly settings: InsightsSettingsService,
  ) {}

  @Get('reports')
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({
    summary: 'The built-in reports, each with the area whose view permission reads it and the plan that first has that area',
  })
  @ApiOkResponse({ type: ReportListDoc })
  reports() {
    return { items: reportReference() };
  }

  @Get('measures')
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({ summary: 'Every measure reports and the builder accept, with what it can be split by' })
  @ApiOkResponse({ type: ReferenceListDoc })
  measures() {
    return { items: measureReference() };
  }

  @Get('dimensions')
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({ summary: 'Every dimension reports and the builder split or filter by' })
  @ApiOkResponse({ type: ReferenceListDoc })
  dimensions() {
    return { items: dimensionReference() };
  }

  @Get('dimensions/:dimension/values')
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({ summary: 'Values of a filterable dimension, searched in English or Arabic; needs the view permission of its area' })
  @ApiOkResponse({ type: DimensionValuesDoc })
  @ApiProblemResponses(['VALIDATION_FAILED'], 'admin')
  @ApiResponse({
    status: 404,
    description: 'unknown_dimension: no filterable dimension has this name.',
    content: { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDocument) } } },
  })
  async dimensionValues(@Param('dimension') name: string, @Query() query: DimensionValuesQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    const dimension = dimensionNamed(name);
    // A name in the path that names no filterable dimension is a resource that does not exist: 404 (contract section 8).
    if (!dimension || !dimension.filterable) throw new ApiError('unknown_dimension', { status: 404, details: { dimension: name } });
    requireAreas(admin, [dimension.area]);
    const offset = query.cursor === undefined ? 0 : decodeCursor<[number]>(query.cursor, ['number'])[0];
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const { items, more } =
      query.value === undefined
        ? await this.values.search(admin.storeId, dimension, query.q, { limit, offset: Math.max(0, offset) })
        : { items: await this.values.named(admin.storeId, dimension, query.value), more: false };
    return { items, nextCursor: more ? encodeCursor([offset + limit]) : null };
  }

  @Get('status')
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({ summary: 'How current the figures are: data freshness, time zone, currency, sources' })
  @ApiOkResponse({ type: StatusDoc })
  async status(@CurrentAdmin() admin: AdminPrincipal) {
    const [freshness, sources, calendar, rebuilding] = await Promise.all([
      this.freshness.of(admin.storeId),
      this.freshness.sources(admin.storeId),
      this.calendars.of(admin.storeId),
      this.settings.rebuilding(admin.storeId),
    ]);
    return { ...freshness, rebuilding, timezone: calendar.timezone, currency: calendar.currency, sources };
  }
}
