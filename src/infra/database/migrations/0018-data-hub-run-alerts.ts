import { Migration } from '@mikro-orm/migrations';

/**
 * When a run's recipients were alerted (a scheduled run missing, refused or failed): set once the
 * email is sent, so that an alert goes out once however often the run's outcome is looked at again.
 */
export class Migration0018DataHubRunAlerts extends Migration {
  override name = '0018-data-hub-run-alerts';

  override up(): void {
    this.addSql(`alter table data_hub_runs add column alerted_at timestamptz null;`);
  }
}
