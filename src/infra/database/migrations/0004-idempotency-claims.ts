import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys for any kind of request, not only order placement: a claim belongs to a store and
 * a scope (who may reuse the key: `checkout:<session id>` today; staff members for data hub runs and
 * exports later) and names the record it produced. The keys checkout stored so far move over.
 */
export class Migration0004IdempotencyClaims extends Migration {
  override name = '0004-idempotency-claims';

  override up(): void {
    this.addSql(`
      create table idempotency_claims (
        store_id uuid not null,
        scope varchar(100) not null,
        key varchar(255) not null,
        request_hash varchar(64) not null,
        result_id uuid not null,
        created_at timestamptz not null default now(),
        primary key (store_id, scope, key)
      );

      insert into idempotency_claims (store_id, scope, key, request_hash, result_id, created_at)
      select store_id, 'checkout:' || session_id, key, request_hash, order_id, created_at from idempotency_keys;

      drop table idempotency_keys;
    `);
  }
}
