import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError } from '../../common/errors/api-error.js';
import { createValidationPipe } from '../../common/errors/validation.js';
import type { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import type { InsightsArea } from '../../common/permissions.js';
import { BuilderService } from '../builder/builder.service.js';
import { REPORTS } from '../definitions/reports.js';
import { reportDefinition, ReportDefinitionDto, type ReportDefinition } from '../dto/report-source.dto.js';
import { requireAreas } from '../query/area-access.js';
import { notEntitled } from '../../auth/access/plan-refusal.js';
import type { ReportRows } from '../query/report-rows.js';
import { ReportService } from '../reports/report.service.js';

/**
 * What saved reports, exports and deliveries run: a built-in report with its params, or a builder
 * query. Checked, run and read as a file exactly as the request it stands for, so that one that has
 * become invalid (a measure gone, a plan downgraded) answers with that request's own error.
 */
@Injectable()
export class ReportDefinitions {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly reports: ReportService,
    private readonly builder: BuilderService,
  ) {}

  /**
   * Everything its request would check, answering the areas it reads: the areas' permissions and
   * plan, and for a builder query the plan's builder. A builder query the caller writes (saves,
   * exports) needs the builder's permission too; running a saved one needs the view permissions only,
   * as a built-in report does.
   */
  async check(definition: ReportDefinition, admin: AdminPrincipal, composing: boolean): Promise<InsightsArea[]> {
    if ('builder' in definition) {
      if (composing && !admin.permissions.includes('insights.builder.use')) {
        throw new ApiError('missing_permission', { details: { requiredPermission: 'insights.builder.use' } });
      }
      if (!admin.entitlements.includes('feature:builder')) throw notEntitled('feature:builder');
      return this.builder.validate(definition.builder, admin);
    }
    const area = REPORTS[definition.report].area;
    requireAreas(admin, [area]);
    await this.reports.validate(definition.report, { ...definition.params }, admin);
    return [area];
  }

  /** A stored definition, checked against today's shape of one (a field since removed is refused, not run). */
  async parse(stored: unknown): Promise<ReportDefinition> {
    return reportDefinition(await this.validation.transform(stored, { type: 'body', metatype: ReportDefinitionDto }));
  }

  /** The answer its request gives, page by page for a report's table. */
  run(definition: ReportDefinition, admin: AdminPrincipal, page: ListQueryDto) {
    if ('builder' in definition) return this.builder.run(definition.builder, admin);
    return this.reports.run(
      definition.report,
      { ...definition.params, limit: page.limit ?? definition.params?.limit, cursor: page.cursor },
      admin,
    );
  }

  /** Its whole table, for a file: every row (a builder query's `limit` at most), a batch at a time. */
  rows(definition: ReportDefinition, admin: AdminPrincipal): Promise<ReportRows> {
    if ('builder' in definition) return this.builder.table(definition.builder, admin);
    return this.reports.table(definition.report, { ...definition.params }, admin);
  }
}
