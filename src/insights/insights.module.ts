import { Module } from '@nestjs/common';
import { BuilderController } from './builder/builder.controller.js';
import { BuilderService } from './builder/builder.service.js';
import { InsightsCatalogueController } from './catalogue/insights-catalogue.controller.js';
import { DimensionValues } from './query/dimension-values.js';
import { FreshnessService } from './query/freshness.js';
import { QueryEngine } from './query/query-engine.js';
import { StoreCalendars } from './query/store-calendar.js';
import { ReportService } from './reports/report.service.js';
import { ReportsController } from './reports/reports.controller.js';
import { RollupsModule } from './rollups/rollups.module.js';
import { SavedReportsController } from './saved-reports/saved-reports.controller.js';
import { SavedReportsService } from './saved-reports/saved-reports.service.js';

/** Insights (contract section 8): the built-in reports, the builder, measures, dimensions and status, over per-store rollups. */
@Module({
  imports: [RollupsModule],
  controllers: [ReportsController, BuilderController, InsightsCatalogueController, SavedReportsController],
  providers: [QueryEngine, StoreCalendars, DimensionValues, FreshnessService, ReportService, BuilderService, SavedReportsService],
})
export class InsightsModule {}
