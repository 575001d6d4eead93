import { Migration } from '@mikro-orm/migrations';

/**
 * Saved reports (contract section 8): a built-in report with its parameters, or a builder query, under
 * a name. `areas` are the Insights areas its definition reads, worked out when it is saved, so that a
 * list shows each staff member only what they may read.
 */
export class Migration0010InsightsSavedReports extends Migration {
  override name = '0010-insights-saved-reports';

  override up(): void {
    this.addSql(`
      create table insights_saved_reports (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint insights_saved_reports_store_id_foreign references stores (id),
        name varchar(120) not null,
        definition jsonb not null,
        areas text[] not null,
        created_by uuid not null constraint insights_saved_reports_created_by_foreign references staff_members (id),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index insights_saved_reports_store_id_created_at_index on insights_saved_reports (store_id, created_at);
    `);
  }
}
