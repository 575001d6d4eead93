import { Migration } from '@mikro-orm/migrations';

/**
 * Data hub connections (contract section 9): where a store's data comes from and goes to. Credentials
 * are sealed (AES-256-GCM under SECRET_KEY, bound to the connection's id), with the names of the fields
 * they hold kept beside them in the clear so that a response can say which are set. `revision` counts
 * changes of config, credentials and host key: a test records its outcome only for the revision it
 * tested, so activation always follows a passed test of what the connection is now.
 */
export class Migration0014DataHubConnections extends Migration {
  override name = '0014-data-hub-connections';

  override up(): void {
    this.addSql(`
      create table data_hub_connections (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint data_hub_connections_store_id_foreign references stores (id),
        name varchar(120) not null,
        kind text check (kind in ('sftp', 'object_storage', 'database_read', 'platform_drop')) not null,
        config jsonb not null,
        credentials_sealed text null,
        credential_fields text[] not null default '{}',
        status text check (status in ('untested', 'tested', 'failed', 'active')) not null default 'untested',
        revision int not null default 1,
        last_test jsonb null,
        host_key jsonb null,
        created_by uuid not null constraint data_hub_connections_created_by_foreign references staff_members (id),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index data_hub_connections_store_id_created_at_index on data_hub_connections (store_id, created_at);
    `);
  }
}
