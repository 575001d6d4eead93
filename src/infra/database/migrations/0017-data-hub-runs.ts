import { Migration } from '@mikro-orm/migrations';

/**
 * Data hub runs (contract section 9): one execution of a flow, recorded whatever its outcome (refusals
 * by the shrink guard and previews included), with its counts, its file, the mapping version it used
 * and who asked. At most one run of a flow is queued or running at a time (a partial unique index, so
 * two requests at once cannot both start one); a scheduled due time is run once (`unique (flow_id,
 * due_at)`). The rows a run rejected, created and deactivated are kept in `data_hub_run_rows`, numbered
 * in order, so each list pages by position.
 */
export class Migration0017DataHubRuns extends Migration {
  override name = '0017-data-hub-runs';

  override up(): void {
    this.addSql(`
      create table data_hub_runs (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint data_hub_runs_store_id_foreign references stores (id),
        flow_id uuid not null constraint data_hub_runs_flow_id_foreign references data_hub_flows (id) on delete cascade,
        trigger text check (trigger in ('manual', 'schedule')) not null,
        preview boolean not null default false,
        status text check (status in ('queued', 'running', 'succeeded', 'failed', 'refused', 'missing')) not null,
        due_at timestamptz null,
        requested_file varchar(200) null,
        mapping_version int not null,
        counts jsonb not null default '{"read": 0, "changed": 0, "created": 0, "deactivated": 0, "rejected": 0, "unchanged": 0, "sent": 0}',
        file jsonb null,
        refusal jsonb null,
        override jsonb null,
        error jsonb null,
        attempts int not null default 0,
        requested_by uuid null constraint data_hub_runs_requested_by_foreign references staff_members (id) on delete set null,
        created_at timestamptz not null default now(),
        started_at timestamptz null,
        finished_at timestamptz null,
        constraint data_hub_runs_flow_id_due_at_unique unique (flow_id, due_at)
      );
      create index data_hub_runs_flow_id_created_at_index on data_hub_runs (flow_id, created_at);
      create unique index data_hub_runs_one_at_a_time_index on data_hub_runs (flow_id) where status in ('queued', 'running') and not preview;

      create table data_hub_run_rows (
        run_id uuid not null constraint data_hub_run_rows_run_id_foreign references data_hub_runs (id) on delete cascade,
        list text check (list in ('rejected', 'created', 'deactivated')) not null,
        position int not null,
        line int null,
        key text null,
        record_id uuid null,
        "values" jsonb null,
        errors jsonb null,
        constraint data_hub_run_rows_pkey primary key (run_id, list, position)
      );
    `);
  }
}
