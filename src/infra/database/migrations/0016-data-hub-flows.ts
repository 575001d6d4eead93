import { Migration } from '@mikro-orm/migrations';

/**
 * Data hub flows (contract section 9): a connection, a mapping, a direction, a file format and name
 * template, a mode, and an optional cron schedule in a time zone, with the switches and thresholds that
 * govern its runs (pause, mute, the missing-file alert, the shrink guard). A flow holds on to its
 * connection and mapping: neither can be deleted while a flow uses it. `next_run_at` is the next due time
 * of its schedule (null when it has none or is paused), indexed for the dispatcher.
 */
export class Migration0016DataHubFlows extends Migration {
  override name = '0016-data-hub-flows';

  override up(): void {
    this.addSql(`
      create table data_hub_flows (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint data_hub_flows_store_id_foreign references stores (id),
        name varchar(120) not null,
        connection_id uuid not null constraint data_hub_flows_connection_id_foreign references data_hub_connections (id),
        mapping_id uuid not null constraint data_hub_flows_mapping_id_foreign references data_hub_mappings (id),
        direction text check (direction in ('import', 'export')) not null,
        format text check (format in ('csv', 'jsonl', 'xlsx')) not null,
        encoding text check (encoding in ('utf-8', 'windows-1256')) not null default 'utf-8',
        file_template varchar(200) not null,
        mode text check (mode in ('upsert', 'replace')) not null default 'upsert',
        schedule_cron varchar(120) null,
        schedule_timezone varchar(64) null,
        paused boolean not null default false,
        muted boolean not null default false,
        missing_after_minutes int not null default 60,
        alert_recipients text[] not null default '{}',
        max_deactivate_percent int not null default 10,
        max_deactivate_count int not null default 500,
        next_run_at timestamptz null,
        created_by uuid not null constraint data_hub_flows_created_by_foreign references staff_members (id),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index data_hub_flows_store_id_created_at_index on data_hub_flows (store_id, created_at);
      create index data_hub_flows_connection_id_index on data_hub_flows (connection_id);
      create index data_hub_flows_mapping_id_index on data_hub_flows (mapping_id);
      create index data_hub_flows_next_run_at_index on data_hub_flows (next_run_at) where next_run_at is not null;
    `);
  }
}
