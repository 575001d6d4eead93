import { applyDecorators, Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAdmin, RequirePermission } from '../../auth/access/decorators.js';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError } from '../../common/errors/api-error.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { reportPermission, REPORTS, type ReportName } from '../definitions/reports.js';
import { ReportResponseDoc } from '../dto/insights.response.js';
import { ReportQueryDto } from '../dto/report-query.dto.js';
import { ReportService, type ReportParams } from './report.service.js';

/** One route per report, so that each declares the one permission that reads it (contract section 7). */
function Report(name: ReportName) {
  return applyDecorators(
    Get(`reports/${name}`),
    RequirePermission(reportPermission(name)),
    ApiOperation({ summary: REPORTS[name].title.en, description: REPORTS[name].title.ar }),
    ApiOkResponse({ type: ReportResponseDoc }),
    ApiProblemResponses(
      ['VALIDATION_FAILED', 'invalid_range', 'unknown_measure', 'unknown_dimension', 'unknown_dimension_value', 'query_too_heavy'],
      'admin',
    ),
  );
}

function paramsOf(query: ReportQueryDto): ReportParams {
  const last = query.last;
  if (last !== undefined && last !== 'all' && !/^\d{1,4}$/.test(last)) {
    throw new ApiError('invalid_range', {
      message: { en: 'last is a whole number of days from 1 to 366, or all.', ar: 'last عدد أيام صحيح من 1 إلى 366، أو all.' },
    });
  }
  return {
    from: query.from,
    to: query.to,
    last: last === undefined || last === 'all' ? last : Number(last),
    compare: query.compare,
    grain: query.grain,
    filters: [...(query['filter[]'] ?? []), ...(query.filter ?? [])],
    sort: query.sort,
    limit: query.limit,
    cursor: query.cursor,
  };
}

@ApiTags('Insights')
@Controller('admin/insights')
export class ReportsController {
  constructor(private readonly reports: ReportService) {}

  @Report('overview')
  overview(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('overview', paramsOf(query), admin);
  }

  @Report('products')
  products(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('products', paramsOf(query), admin);
  }

  @Report('variants')
  variants(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('variants', paramsOf(query), admin);
  }

  @Report('categories')
  categories(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('categories', paramsOf(query), admin);
  }

  @Report('brands')
  brands(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('brands', paramsOf(query), admin);
  }

  @Report('not_selling')
  notSelling(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('not_selling', paramsOf(query), admin);
  }

  @Report('customers')
  customers(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('customers', paramsOf(query), admin);
  }

  @Report('cohorts')
  cohorts(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('cohorts', paramsOf(query), admin);
  }

  @Report('top_customers')
  topCustomers(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('top_customers', paramsOf(query), admin);
  }

  @Report('customer_groups')
  customerGroups(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('customer_groups', paramsOf(query), admin);
  }

  @Report('fulfilment')
  fulfilment(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('fulfilment', paramsOf(query), admin);
  }

  @Report('late_orders')
  lateOrders(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('late_orders', paramsOf(query), admin);
  }

  @Report('payments')
  payments(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('payments', paramsOf(query), admin);
  }

  @Report('tax')
  tax(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('tax', paramsOf(query), admin);
  }

  @Report('funnel')
  funnel(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('funnel', paramsOf(query), admin);
  }

  @Report('searches')
  searches(@Query() query: ReportQueryDto, @CurrentAdmin() admin: AdminPrincipal) {
    return this.reports.run('searches', paramsOf(query), admin);
  }
}
