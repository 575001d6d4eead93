import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ReportResponseDoc } from '../dto/insights.response.js';
import { BuilderRunDto } from '../dto/builder-run.dto.js';
import { QUERY_ERRORS } from '../query/query-errors.js';
import { BuilderService } from './builder.service.js';

@ApiTags('Insights')
@Controller('admin/insights/builder')
export class BuilderController {
  constructor(private readonly builder: BuilderService) {}

  @Post('run')
  @HttpCode(200)
  @RequirePermission('insights.builder.use')
  @ApiOperation({
    summary: 'Run a custom report',
    description:
      'Measures split by up to 3 dimensions, filtered, compared and sorted; also needs the view permission of every area its measures and dimensions belong to. Read from a rollup when one holds the question, else from the records (orders, lines, refunds) by the same definitions. Over 5,000 rows: 422 over_row_limit with `rowCount` and the export to run instead. A records question over INSIGHTS_RECORDS_MAX_ORDERS orders or INSIGHTS_RECORDS_TIMEOUT_SECONDS: 422 query_too_heavy with what to ask instead. A dimension a measure has no meaning with: 400 unsupported_combination.',
  })
  @ApiOkResponse({ type: ReportResponseDoc })
  @ApiProblemResponses([...QUERY_ERRORS, 'over_row_limit', 'query_too_heavy'], 'admin')
  run(@Body() body: BuilderRunDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.builder.run(body, admin);
  }
}
