import { Migration } from '@mikro-orm/migrations';

/**
 * What shoppers do, per session, for the Insights funnel and searches reports: a session started,
 * a product's detail read, a cart line added, a checkout quoted, an order placed. Sessions are not a
 * foreign key: the demo's history has sessions of its own, and old sessions may be purged while
 * their events are kept.
 */
export class Migration0006StorefrontEvents extends Migration {
  override name = '0006-storefront-events';

  override up(): void {
    this.addSql(`
      create table storefront_events (
        id bigserial primary key,
        store_id uuid not null constraint storefront_events_store_id_foreign references stores (id),
        session_id uuid not null,
        kind text check (kind in ('session_started', 'product_viewed', 'cart_line_added', 'checkout_quoted', 'order_placed')) not null,
        product_id uuid null,
        order_id uuid null,
        occurred_at timestamptz not null default now()
      );
      create index storefront_events_session_id_kind_occurred_at_index on storefront_events (session_id, kind, occurred_at);
      create index storefront_events_store_id_occurred_at_index on storefront_events (store_id, occurred_at);
    `);
  }
}
