import { Migration } from '@mikro-orm/migrations';

/**
 * The dashboard's principals (contract section 7): staff members of a store with their sessions and
 * single-use refresh tokens, support sessions (every one kept: agent, reason, store, opened,
 * expires, closed), and failed staff sign-ins, counted per address and per client.
 */
export class Migration0005StaffAndSupport extends Migration {
  override name = '0005-staff-and-support';

  override up(): void {
    this.addSql(`
      create table staff_members (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint staff_members_store_id_foreign references stores (id),
        email varchar(254) not null,
        -- lower-cased and trimmed: the identity of a member within a store
        email_normalized varchar(254) not null,
        name varchar(200) not null,
        role text check (role in ('owner', 'admin', 'analyst', 'data_manager', 'viewer', 'custom')) not null,
        -- role custom only: the permissions given
        permissions text[] not null,
        password_hash text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        removed_at timestamptz null,
        constraint staff_members_store_id_email_normalized_unique unique (store_id, email_normalized)
      );

      create table staff_sessions (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint staff_sessions_store_id_foreign references stores (id),
        staff_member_id uuid not null constraint staff_sessions_staff_member_id_foreign references staff_members (id),
        transport text check (transport in ('bearer', 'cookie')) not null,
        created_at timestamptz not null default now(),
        revoked_at timestamptz null,
        revoked_reason varchar(40) null
      );
      create index staff_sessions_staff_member_id_index on staff_sessions (staff_member_id);

      create table staff_refresh_tokens (
        id uuid primary key default gen_random_uuid(),
        session_id uuid not null constraint staff_refresh_tokens_session_id_foreign references staff_sessions (id),
        token_hash varchar(64) not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        consumed_at timestamptz null,
        constraint staff_refresh_tokens_token_hash_unique unique (token_hash)
      );
      create index staff_refresh_tokens_session_id_index on staff_refresh_tokens (session_id);

      create table support_sessions (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint support_sessions_store_id_foreign references stores (id),
        agent_email varchar(254) not null,
        reason varchar(500) not null,
        opened_at timestamptz not null default now(),
        expires_at timestamptz not null,
        closed_at timestamptz null
      );
      create index support_sessions_store_id_opened_at_index on support_sessions (store_id, opened_at);

      -- Not a foreign key to stores: a sign-in naming an unknown store fails, and counts, like any other.
      create table staff_sign_in_failures (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null,
        email_normalized varchar(254) not null,
        client_address varchar(64) not null,
        created_at timestamptz not null default now()
      );
      create index staff_sign_in_failures_account_index on staff_sign_in_failures (store_id, email_normalized, created_at);
      create index staff_sign_in_failures_client_index on staff_sign_in_failures (client_address, created_at);
    `);
  }
}
