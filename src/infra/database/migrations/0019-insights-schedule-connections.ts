import { Migration } from '@mikro-orm/migrations';

/**
 * Delivery schedules that write their file to a data hub connection (contract section 8, pro plan).
 * The destination names its connection in `destination`; `connection_id` holds it as a foreign key
 * too, so that a connection a schedule delivers to cannot be deleted, as one a flow uses cannot.
 */
export class Migration0019InsightsScheduleConnections extends Migration {
  override name = '0019-insights-schedule-connections';

  override up(): void {
    this.addSql(`
      alter table insights_schedules add column connection_id uuid null
        constraint insights_schedules_connection_id_foreign references data_hub_connections (id);
      create index insights_schedules_connection_id_index on insights_schedules (connection_id);
    `);
  }
}
