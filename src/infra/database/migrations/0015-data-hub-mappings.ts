import { Migration } from '@mikro-orm/migrations';

/**
 * Data hub mappings (contract section 9): how a structure's fields are filled from a source's fields
 * through transforms (an import), or written out as a file's columns (an export). Every change is a new
 * version, and every version is kept whole: a run records the version it used, and a restore makes a
 * new version equal to an old one. `version` on the mapping is its current one; the row is locked while
 * a new version is written, so two changes at once get two numbers.
 */
export class Migration0015DataHubMappings extends Migration {
  override name = '0015-data-hub-mappings';

  override up(): void {
    this.addSql(`
      create table data_hub_mappings (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint data_hub_mappings_store_id_foreign references stores (id),
        name varchar(120) not null,
        structure text not null,
        direction text check (direction in ('import', 'export')) not null,
        version int not null default 1,
        created_by uuid not null constraint data_hub_mappings_created_by_foreign references staff_members (id),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index data_hub_mappings_store_id_created_at_index on data_hub_mappings (store_id, created_at);

      create table data_hub_mapping_versions (
        mapping_id uuid not null constraint data_hub_mapping_versions_mapping_id_foreign references data_hub_mappings (id) on delete cascade,
        version int not null,
        name varchar(120) not null,
        fields jsonb not null,
        restored_from int null,
        created_by uuid not null constraint data_hub_mapping_versions_created_by_foreign references staff_members (id),
        created_at timestamptz not null default now(),
        constraint data_hub_mapping_versions_pkey primary key (mapping_id, version)
      );
    `);
  }
}
