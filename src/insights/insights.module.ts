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
import { StoresModule } from '../stores/stores.module.js';
import { InsightsSettingsController } from './settings/insights-settings.controller.js';
import { InsightsSettingsService } from './settings/insights-settings.service.js';
import { SavedReportsController } from './saved-reports/saved-reports.controller.js';
import { SavedReportsService } from './saved-reports/saved-reports.service.js';

/** Insights (contract section 8): the built-in reports, the builder, measures, dimensions and status, over per-store rollups. */
@Module({
  imports: [RollupsModule, StoresModule],
  controllers: [ReportsController, BuilderController, InsightsCatalogueController, SavedReportsController, InsightsSettingsController],
  providers: [
    QueryEngine,
    StoreCalendars,
    DimensionValues,
    FreshnessService,
    ReportService,
    BuilderService,
    SavedReportsService,
    InsightsSettingsService,
  ],
})
export class InsightsModule {}
