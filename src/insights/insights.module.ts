import { Global, Module } from '@nestjs/common';
import { MERCHANT_LANGUAGE } from '../common/merchant-language.js';
import { BuilderController } from './builder/builder.controller.js';
import { BuilderService } from './builder/builder.service.js';
import { InsightsReferenceController } from './reference/insights-reference.controller.js';
import { DimensionValues } from './query/dimension-values.js';
import { FreshnessService } from './query/freshness.js';
import { QueryEngine } from './query/query-engine.js';
import { RecordsLimits } from './query/records-limits.js';
import { StoreCalendars } from './query/store-calendar.js';
import { ReportService } from './reports/report.service.js';
import { ReportsController } from './reports/reports.controller.js';
import { RollupsModule } from './rollups/rollups.module.js';
import { StoresModule } from '../stores/stores.module.js';
import { InsightsSettingsController } from './settings/insights-settings.controller.js';
import { InsightsSettingsService } from './settings/insights-settings.service.js';
import { SavedReportsController } from './saved-reports/saved-reports.controller.js';
import { SavedReportsService } from './saved-reports/saved-reports.service.js';
import { ReportDefinitions } from './saved-reports/report-definitions.js';
import { ExportsController } from './exports/exports.controller.js';
import { ExportsService } from './exports/exports.service.js';
import { SchedulesController } from './schedules/schedules.controller.js';
import { SchedulesService } from './schedules/schedules.service.js';
import { DeliveriesService } from './schedules/deliveries.service.js';
import { DashboardModule } from '../auth/dashboard/dashboard.module.js';
import { ConnectionsModule } from '../data-hub/connections/connections.module.js';
import { NotificationsModule } from '../notifications/notifications.module.js';

/**
 * Insights (contract section 8): the built-in reports, the builder, measures, dimensions and status, over
 * per-store rollups; saved reports, exports, delivery schedules (to email, or to the data hub's
 * connections) and settings. Global only for the merchants' language its settings own (MERCHANT_LANGUAGE).
 */
@Global()
@Module({
  imports: [RollupsModule, StoresModule, DashboardModule, NotificationsModule, ConnectionsModule],
  controllers: [
    ReportsController,
    BuilderController,
    InsightsReferenceController,
    SavedReportsController,
    InsightsSettingsController,
    ExportsController,
    SchedulesController,
  ],
  providers: [
    QueryEngine,
    RecordsLimits,
    StoreCalendars,
    DimensionValues,
    FreshnessService,
    ReportService,
    BuilderService,
    ReportDefinitions,
    SavedReportsService,
    InsightsSettingsService,
    ExportsService,
    SchedulesService,
    DeliveriesService,
    { provide: MERCHANT_LANGUAGE, useExisting: InsightsSettingsService },
  ],
  exports: [MERCHANT_LANGUAGE],
})
export class InsightsModule {}
