import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ANY_INSIGHTS_VIEW } from '../../auth/access/access-rule.js';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { InsightsSettingsDoc, UpdateInsightsSettingsDto } from '../dto/settings.dto.js';
import { InsightsSettingsService } from './insights-settings.service.js';

@ApiTags('Insights')
@Controller('admin/insights/settings')
export class InsightsSettingsController {
  constructor(private readonly settings: InsightsSettingsService) {}

  @Get()
  @RequirePermission(ANY_INSIGHTS_VIEW)
  @ApiOperation({
    summary: 'Read the Insights settings',
    description:
      'The time zone, currency, week start and language figures are given in, whether test orders are left out of them, ' +
      'and the grace after a promise before an order is late.',
  })
  @ApiOkResponse({ type: InsightsSettingsDoc })
  get(@CurrentAdmin() admin: AdminPrincipal) {
    return this.settings.get(admin.storeId);
  }

  @Patch()
  @RequirePermission('insights.settings.manage')
  @ApiOperation({
    summary: 'Change the Insights settings',
    description:
      'A new time zone is the store’s, and rebuilds the figures in it; counting test orders or not, and a new grace before an order is ' +
      'late, rebuild the figures too: `GET /status` says `rebuilding` until done.',
  })
  @ApiOkResponse({ type: InsightsSettingsDoc })
  @ApiProblemResponses(['VALIDATION_FAILED', 'MALFORMED_BODY'], 'admin')
  update(@Body() body: UpdateInsightsSettingsDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.settings.update(admin.storeId, body);
  }
}
