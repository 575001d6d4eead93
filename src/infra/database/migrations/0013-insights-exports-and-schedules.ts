import { Migration } from '@mikro-orm/migrations';

/**
 * Insights exports, delivery schedules and their deliveries (contract section 8), and attachments
 * on messages the outbox keeps.
 * - An export holds the definition it runs (a saved report's as it was when asked), the language of
 *   its header, its progress and, once written, its file in the file storage until `expires_at`.
 * - A schedule delivers a saved report at `next_run_at`, the next due time of its cadence in the
 *   store's time zone (null while paused). A delivery is one due time of one schedule: unique, so that
 *   however many instances look at a due schedule, its due time is delivered once. `sent_to` are the
 *   recipients whose email has gone out, so that a delivery tried again does not mail them twice.
 */
export class Migration0013InsightsExportsAndSchedules extends Migration {
  override name = '0013-insights-exports-and-schedules';

  override up(): void {
    this.addSql(`
      create table insights_exports (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint insights_exports_store_id_foreign references stores (id),
        requested_by uuid not null constraint insights_exports_requested_by_foreign references staff_members (id),
        definition jsonb not null,
        saved_report_id uuid null,
        areas text[] not null,
        format text check (format in ('csv', 'xlsx')) not null,
        language text check (language in ('en', 'ar')) not null,
        status text check (status in ('queued', 'running', 'succeeded', 'failed')) not null default 'queued',
        attempts int not null default 0,
        rows bigint not null default 0,
        total_rows bigint null,
        file_name text null,
        file_key text null,
        bytes bigint null,
        error jsonb null,
        created_at timestamptz not null default now(),
        started_at timestamptz null,
        finished_at timestamptz null,
        expires_at timestamptz null,
        file_deleted_at timestamptz null
      );
      create index insights_exports_store_id_created_at_index on insights_exports (store_id, created_at);
      create index insights_exports_expires_at_index on insights_exports (expires_at) where file_deleted_at is null;

      create table insights_schedules (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint insights_schedules_store_id_foreign references stores (id),
        saved_report_id uuid not null constraint insights_schedules_saved_report_id_foreign
          references insights_saved_reports (id) on delete cascade,
        name varchar(120) not null,
        frequency text check (frequency in ('daily', 'weekly', 'monthly')) not null,
        time_of_day varchar(5) not null,
        weekday text check (weekday in ('monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday')) null,
        day_of_month int null,
        format text check (format in ('csv', 'xlsx')) not null,
        destination jsonb not null,
        skip_empty boolean not null default false,
        paused boolean not null default false,
        next_run_at timestamptz null,
        created_by uuid not null constraint insights_schedules_created_by_foreign references staff_members (id),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index insights_schedules_store_id_created_at_index on insights_schedules (store_id, created_at);
      create index insights_schedules_next_run_at_index on insights_schedules (next_run_at) where not paused;

      create table insights_deliveries (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint insights_deliveries_store_id_foreign references stores (id),
        schedule_id uuid not null constraint insights_deliveries_schedule_id_foreign
          references insights_schedules (id) on delete cascade,
        due_at timestamptz not null,
        trigger text check (trigger in ('schedule', 'manual')) not null,
        status text check (status in ('queued', 'running', 'delivered', 'failed', 'skipped')) not null default 'queued',
        attempts int not null default 0,
        rows bigint null,
        bytes bigint null,
        sent_to text[] not null default '{}',
        error jsonb null,
        created_at timestamptz not null default now(),
        started_at timestamptz null,
        finished_at timestamptz null,
        constraint insights_deliveries_schedule_id_due_at_unique unique (schedule_id, due_at)
      );

      alter table notification_outbox add column attachments jsonb null;
    `);
  }
}
