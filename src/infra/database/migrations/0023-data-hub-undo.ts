import { Migration } from '@mikro-orm/migrations';

/**
 * Import runs that show every change and can be undone (contract section 11). A run's lists gain
 * `changed` (each record's fields before and after) and `conflicts` (what an undo left as it was,
 * because someone changed it since). An undo is a run of the same flow (`trigger = 'undo'`) naming the
 * run it undoes: a run is undone once (a partial unique index, so two requests at once cannot both
 * start one; a failed undo can be tried again). Lists are purged after 90 days (`lists_purged_at`), the
 * run itself is kept: it records what the flow imported, which a scheduled run checks its files against.
 * Runs from before kept no values before their changes, so they cannot be undone: `changes_listed` is
 * false for them, true for every run from now on.
 */
export class Migration0023DataHubUndo extends Migration {
  override name = '0023-data-hub-undo';

  override up(): void {
    this.addSql(`
      alter table data_hub_runs drop constraint data_hub_runs_trigger_check;
      alter table data_hub_runs add constraint data_hub_runs_trigger_check check (trigger in ('manual', 'schedule', 'undo'));
      alter table data_hub_runs add column undo_of uuid null constraint data_hub_runs_undo_of_foreign references data_hub_runs (id) on delete cascade;
      alter table data_hub_runs add column lists_purged_at timestamptz null;
      alter table data_hub_runs add column changes_listed boolean not null default false;
      alter table data_hub_runs alter column changes_listed set default true;
      create unique index data_hub_runs_undone_once_index on data_hub_runs (undo_of) where not preview and status in ('queued', 'running', 'succeeded');
      create index data_hub_runs_lists_kept_index on data_hub_runs (created_at) where lists_purged_at is null;
      alter table data_hub_run_rows drop constraint data_hub_run_rows_list_check;
      alter table data_hub_run_rows add constraint data_hub_run_rows_list_check check (list in ('rejected', 'created', 'deactivated', 'changed', 'conflicts'));
    `);
  }
}
