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

/** Insights (contract section 8): the built-in reports, the builder, measures, dimensions and status, over per-store rollups. */
@Module({
  imports: [RollupsModule],
  controllers: [ReportsController, BuilderController, InsightsCatalogueController],
  providers: [QueryEngine, StoreCalendars, DimensionValues, FreshnessService, ReportService, BuilderService],
})
export class InsightsModule {}
