import { Migration0001Foundation } from './0001-foundation.js';
import { Migration0002ShoppersAndOrders } from './0002-shoppers-and-orders.js';
import { Migration0003Search } from './0003-search.js';
import { Migration0004IdempotencyClaims } from './0004-idempotency-claims.js';
import { Migration0005StaffAndSupport } from './0005-staff-and-support.js';
import { Migration0006StorefrontEvents } from './0006-storefront-events.js';
import { Migration0007InsightsRollups } from './0007-insights-rollups.js';
import { Migration0008HistorySessions } from './0008-history-sessions.js';
import { Migration0009PendingEventBatches } from './0009-pending-event-batches.js';
import { Migration0010InsightsSavedReports } from './0010-insights-saved-reports.js';
import { Migration0011InsightsSettings } from './0011-insights-settings.js';
import { Migration0012InsightsTestOrdersAndLateness } from './0012-insights-test-orders-and-lateness.js';
import { Migration0013InsightsExportsAndSchedules } from './0013-insights-exports-and-schedules.js';
import { Migration0014DataHubConnections } from './0014-data-hub-connections.js';
import { Migration0015DataHubMappings } from './0015-data-hub-mappings.js';
import { Migration0016DataHubFlows } from './0016-data-hub-flows.js';
import { Migration0017DataHubRuns } from './0017-data-hub-runs.js';
import { Migration0018DataHubRunAlerts } from './0018-data-hub-run-alerts.js';
import { Migration0019InsightsScheduleConnections } from './0019-insights-schedule-connections.js';
import { Migration0020DataHubImports } from './0020-data-hub-imports.js';
import { Migration0021DataHubFormulaSafety } from './0021-data-hub-formula-safety.js';
import { Migration0022InsightsRecordsPath } from './0022-insights-records-path.js';
import { Migration0023DataHubUndo } from './0023-data-hub-undo.js';
import { Migration0024DatabaseSettings } from './0024-database-settings.js';

/**
 * Applied in order on start. Migrations are history: once one has shipped (landed on main), databases
 * out there have run it as it was, so it is never edited again. A change to the schema is a new
 * migration appended here, and its checksum joins SHIPPED_MIGRATIONS in test/database/schema.test.ts,
 * which fails when a shipped one changes.
 */
export const MIGRATIONS = [
  { name: '0001-foundation', class: Migration0001Foundation },
  { name: '0002-shoppers-and-orders', class: Migration0002ShoppersAndOrders },
  { name: '0003-search', class: Migration0003Search },
  { name: '0004-idempotency-claims', class: Migration0004IdempotencyClaims },
  { name: '0005-staff-and-support', class: Migration0005StaffAndSupport },
  { name: '0006-storefront-events', class: Migration0006StorefrontEvents },
  { name: '0007-insights-rollups', class: Migration0007InsightsRollups },
  { name: '0008-history-sessions', class: Migration0008HistorySessions },
  { name: '0009-pending-event-batches', class: Migration0009PendingEventBatches },
  { name: '0010-insights-saved-reports', class: Migration0010InsightsSavedReports },
  { name: '0011-insights-settings', class: Migration0011InsightsSettings },
  { name: '0012-insights-test-orders-and-lateness', class: Migration0012InsightsTestOrdersAndLateness },
  { name: '0013-insights-exports-and-schedules', class: Migration0013InsightsExportsAndSchedules },
  { name: '0014-data-hub-connections', class: Migration0014DataHubConnections },
  { name: '0015-data-hub-mappings', class: Migration0015DataHubMappings },
  { name: '0016-data-hub-flows', class: Migration0016DataHubFlows },
  { name: '0017-data-hub-runs', class: Migration0017DataHubRuns },
  { name: '0018-data-hub-run-alerts', class: Migration0018DataHubRunAlerts },
  { name: '0019-insights-schedule-connections', class: Migration0019InsightsScheduleConnections },
  { name: '0020-data-hub-imports', class: Migration0020DataHubImports },
  { name: '0021-data-hub-formula-safety', class: Migration0021DataHubFormulaSafety },
  { name: '0022-insights-records-path', class: Migration0022InsightsRecordsPath },
  { name: '0023-data-hub-undo', class: Migration0023DataHubUndo },
  { name: '0024-database-settings', class: Migration0024DatabaseSettings },
];
