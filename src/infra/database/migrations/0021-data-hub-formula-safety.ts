import { Migration } from '@mikro-orm/migrations';

/**
 * A flow's formula safety (contract section 11): what its exported CSV and XLSX cells do with text a
 * spreadsheet would run as a formula. Every flow, existing ones included, escapes it unless set to
 * `raw`. Each run records the setting it wrote its file with; the exports made before this wrote every
 * value as it was, so they record `raw`, and imports record none.
 */
export class Migration0021DataHubFormulaSafety extends Migration {
  override name = '0021-data-hub-formula-safety';

  override up(): void {
    this.addSql(`
      alter table data_hub_flows add column formula_safety text check (formula_safety in ('escape', 'raw')) not null default 'escape';
      alter table data_hub_runs add column formula_safety text check (formula_safety in ('escape', 'raw')) null;
      update data_hub_runs r set formula_safety = 'raw' from data_hub_flows f where f.id = r.flow_id and f.direction = 'export';
    `);
  }
}
