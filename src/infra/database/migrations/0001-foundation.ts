import { Migration } from '@mikro-orm/migrations';

export class Migration0001Foundation extends Migration {
  override name = '0001-foundation';

  override up(): void {
    this.addSql(`
      -- ISO 8601 UTC text for JSON built in SQL, independent of the session's time zone.
      create function iso_utc(timestamptz) returns text
        language sql immutable parallel safe
        return to_char($1 at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      -- The same with microseconds: keyset cursors must not lose precision.
      create function iso_utc_micros(timestamptz) returns text
        language sql immutable parallel safe
        return to_char($1 at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');

      create table stores (
        id uuid primary key default gen_random_uuid(),
        name varchar(200) not null,
        plan text check (plan in ('basic', 'growth', 'pro')) not null default 'basic',
        currency varchar(3) not null default 'SAR',
        created_at timestamptz not null default now()
      );

      create table api_keys (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint api_keys_store_id_foreign references stores (id),
        key_hash varchar(64) not null,
        display_prefix varchar(16) not null,
        scopes text[] not null,
        rate_limit_per_minute int not null,
        created_at timestamptz not null default now(),
        revoked_at timestamptz null,
        constraint api_keys_key_hash_unique unique (key_hash)
      );
      create index api_keys_store_id_index on api_keys (store_id);

      create table sessions (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint sessions_store_id_foreign references stores (id),
        api_key_id uuid not null constraint sessions_api_key_id_foreign references api_keys (id),
        scopes text[] not null,
        transport text check (transport in ('bearer', 'cookie')) not null,
        created_at timestamptz not null default now(),
        revoked_at timestamptz null,
        revoked_reason varchar(40) null
      );
      create index sessions_api_key_id_index on sessions (api_key_id);

      create table refresh_tokens (
        id uuid primary key default gen_random_uuid(),
        session_id uuid not null constraint refresh_tokens_session_id_foreign references sessions (id),
        token_hash varchar(64) not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        consumed_at timestamptz null,
        constraint refresh_tokens_token_hash_unique unique (token_hash)
      );
      create index refresh_tokens_session_id_index on refresh_tokens (session_id);

      create table signing_keys (
        kid varchar(64) primary key,
        algorithm varchar(16) not null,
        public_jwk jsonb not null,
        private_jwk_sealed text not null,
        created_at timestamptz not null default now(),
        retired_at timestamptz null
      );

      create table categories (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint categories_store_id_foreign references stores (id),
        parent_id uuid null constraint categories_parent_id_foreign references categories (id) on delete set null,
        path uuid[] not null,
        slug varchar(200) not null,
        name_en varchar(200) not null,
        name_ar varchar(200) not null,
        description_en text not null default '',
        description_ar text not null default '',
        position int not null default 0,
        created_at timestamptz not null default now(),
        constraint categories_store_id_slug_unique unique (store_id, slug)
      );
      create index categories_parent_id_index on categories (parent_id);
      create index categories_path_gin on categories using gin (path);

      create table brands (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint brands_store_id_foreign references stores (id),
        slug varchar(200) not null,
        name_en varchar(200) not null,
        name_ar varchar(200) not null,
        description_en text not null default '',
        description_ar text not null default '',
        created_at timestamptz not null default now(),
        constraint brands_store_id_slug_unique unique (store_id, slug)
      );

      create table products (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint products_store_id_foreign references stores (id),
        category_id uuid null constraint products_category_id_foreign references categories (id) on delete set null,
        brand_id uuid null constraint products_brand_id_foreign references brands (id) on delete set null,
        slug varchar(200) not null,
        name_en varchar(300) not null,
        name_ar varchar(300) not null,
        description_en text not null default '',
        description_ar text not null default '',
        status text check (status in ('active', 'draft', 'archived')) not null default 'active',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint products_store_id_slug_unique unique (store_id, slug)
      );
      create index products_store_id_created_at_id_index on products (store_id, created_at, id);
      create index products_store_id_category_id_index on products (store_id, category_id);
      create index products_store_id_brand_id_index on products (store_id, brand_id);

      create table product_variants (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint product_variants_store_id_foreign references stores (id),
        product_id uuid not null constraint product_variants_product_id_foreign references products (id),
        sku varchar(64) not null,
        options jsonb not null,
        price int not null check (price >= 0),
        compare_at_price int null,
        currency varchar(3) not null,
        stock int not null default 0 check (stock >= 0),
        position int not null default 0,
        created_at timestamptz not null default now(),
        constraint product_variants_store_id_sku_unique unique (store_id, sku)
      );
      create index product_variants_product_id_index on product_variants (product_id);

      -- Any committed change to a store's catalogue, whatever wrote it, tells every instance to drop
      -- that store's cached catalogue pages (NOTIFY is delivered on commit, once per store).
      create function notify_catalogue_changed() returns trigger language plpgsql as $$
      begin
        perform pg_notify('catalogue_changed', changed.store_id::text) from (select distinct store_id from changed_rows) changed;
        return null;
      end $$;
    `);
    for (const table of ['categories', 'brands', 'products', 'product_variants']) {
      this.addSql(`
        create trigger ${table}_inserted after insert on ${table}
          referencing new table as changed_rows for each statement execute function notify_catalogue_changed();
        create trigger ${table}_updated after update on ${table}
          referencing new table as changed_rows for each statement execute function notify_catalogue_changed();
        create trigger ${table}_deleted after delete on ${table}
          referencing old table as changed_rows for each statement execute function notify_catalogue_changed();
      `);
    }
  }
}
