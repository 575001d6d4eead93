import { Migration } from '@mikro-orm/migrations';

/**
 * Shoppers and everything that follows them (addresses, carts, orders), the store settings checkout
 * reads (tax, delivery methods, pickup locations), one-time codes, the notification outbox and the
 * search log the Insights `searches` report reads.
 */
export class Migration0002ShoppersAndOrders extends Migration {
  override name = '0002-shoppers-and-orders';

  override up(): void {
    this.addSql(`
      -- Tax settings of a store. Saudi VAT is 15% and shelf prices include it, so that is the default.
      alter table stores
        add column tax_rate_bps int not null default 1500 check (tax_rate_bps >= 0 and tax_rate_bps <= 10000),
        add column prices_include_tax boolean not null default true,
        add column timezone varchar(64) not null default 'Asia/Riyadh';

      create table shoppers (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint shoppers_store_id_foreign references stores (id),
        email varchar(254) not null,
        -- lower-cased and trimmed: the identity of a shopper within a store
        email_normalized varchar(254) not null,
        password_hash text null,
        first_name varchar(100) not null default '',
        last_name varchar(100) not null default '',
        phone varchar(32) null,
        locale text check (locale in ('en', 'ar')) not null default 'ar',
        marketing_opt_in boolean not null default false,
        email_verified_at timestamptz null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint shoppers_store_id_email_normalized_unique unique (store_id, email_normalized)
      );

      alter table sessions
        add column shopper_id uuid null constraint sessions_shopper_id_foreign references shoppers (id) on delete set null,
        add column shopper_attached_at timestamptz null;
      create index sessions_shopper_id_index on sessions (shopper_id);

      create table one_time_codes (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint one_time_codes_store_id_foreign references stores (id),
        email_normalized varchar(254) not null,
        code_hash varchar(64) not null,
        purpose text check (purpose in ('sign_in', 'register')) not null,
        -- a registration waiting for its address to be proven: names, locale, password hash
        registration jsonb null,
        attempts int not null default 0,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        consumed_at timestamptz null
      );
      create index one_time_codes_store_id_email_normalized_created_at_index on one_time_codes (store_id, email_normalized, created_at);

      -- Failed password sign-ins per address, whether registered or not: the sign-in rate limit counts them.
      create table sign_in_failures (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint sign_in_failures_store_id_foreign references stores (id),
        email_normalized varchar(254) not null,
        created_at timestamptz not null default now()
      );
      create index sign_in_failures_store_id_email_normalized_created_at_index on sign_in_failures (store_id, email_normalized, created_at);

      create table addresses (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint addresses_store_id_foreign references stores (id),
        shopper_id uuid not null constraint addresses_shopper_id_foreign references shoppers (id) on delete cascade,
        label varchar(60) not null default '',
        full_name varchar(200) not null,
        phone varchar(32) not null,
        line1 varchar(200) not null,
        line2 varchar(200) not null default '',
        district varchar(100) not null default '',
        city varchar(100) not null,
        region varchar(100) not null default '',
        postal_code varchar(20) not null default '',
        country varchar(2) not null,
        is_default_shipping boolean not null default false,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index addresses_shopper_id_index on addresses (shopper_id);
      create unique index addresses_default_shipping_unique on addresses (shopper_id) where is_default_shipping;

      create table notification_outbox (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint notification_outbox_store_id_foreign references stores (id),
        recipient varchar(254) not null,
        template varchar(60) not null,
        locale text check (locale in ('en', 'ar')) not null,
        subject text not null,
        body_text text not null,
        created_at timestamptz not null default now()
      );
      create index notification_outbox_store_id_created_at_index on notification_outbox (store_id, created_at);

      create table shipping_methods (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint shipping_methods_store_id_foreign references stores (id),
        code varchar(40) not null,
        name_en varchar(200) not null,
        name_ar varchar(200) not null,
        price int not null check (price >= 0),
        -- free when the subtotal reaches this amount
        free_over int null check (free_over >= 0),
        min_days int not null check (min_days >= 0),
        max_days int not null check (max_days >= min_days),
        position int not null default 0,
        active boolean not null default true,
        constraint shipping_methods_store_id_code_unique unique (store_id, code)
      );

      create table pickup_locations (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint pickup_locations_store_id_foreign references stores (id),
        code varchar(40) not null,
        name_en varchar(200) not null,
        name_ar varchar(200) not null,
        address_en varchar(400) not null,
        address_ar varchar(400) not null,
        city varchar(100) not null,
        -- hours between placing an order and it being ready to collect
        preparation_hours int not null default 2 check (preparation_hours >= 0),
        position int not null default 0,
        active boolean not null default true,
        constraint pickup_locations_store_id_code_unique unique (store_id, code)
      );

      -- Every store can be checked out from the moment it exists, whatever created it.
      create function insert_default_fulfilment_options(store_ids uuid[]) returns void language sql as $$
        insert into shipping_methods (store_id, code, name_en, name_ar, price, free_over, min_days, max_days, position)
        select id, 'standard', 'Standard delivery', 'التوصيل العادي', 2500, 30000, 2, 5, 0 from unnest(store_ids) as id
        union all
        select id, 'express', 'Express delivery', 'التوصيل السريع', 4500, null, 1, 1, 1 from unnest(store_ids) as id;
        insert into pickup_locations (store_id, code, name_en, name_ar, address_en, address_ar, city, preparation_hours)
        select id, 'riyadh-olaya', 'Olaya store', 'فرع العليا', 'Olaya Street, Al Olaya, Riyadh', 'شارع العليا، حي العليا، الرياض', 'Riyadh', 2
        from unnest(store_ids) as id;
      $$;
      create function create_default_fulfilment_options() returns trigger language plpgsql as $$
      begin
        perform insert_default_fulfilment_options(array(select id from changed_rows));
        return null;
      end $$;
      create trigger stores_default_fulfilment after insert on stores
        referencing new table as changed_rows for each statement execute function create_default_fulfilment_options();
      select insert_default_fulfilment_options(array(select id from stores));

      create table carts (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint carts_store_id_foreign references stores (id),
        -- an anonymous cart belongs to its session; once a shopper is attached, to the shopper
        session_id uuid null constraint carts_session_id_foreign references sessions (id),
        shopper_id uuid null constraint carts_shopper_id_foreign references shoppers (id),
        currency varchar(3) not null,
        status text check (status in ('active', 'merged', 'converted')) not null default 'active',
        fulfilment_type text check (fulfilment_type in ('delivery', 'pickup')) null,
        shipping_method_id uuid null constraint carts_shipping_method_id_foreign references shipping_methods (id),
        shipping_address jsonb null,
        pickup_location_id uuid null constraint carts_pickup_location_id_foreign references pickup_locations (id),
        -- contact address of a guest checkout
        email varchar(254) null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create unique index carts_active_shopper_unique on carts (shopper_id) where status = 'active' and shopper_id is not null;
      create unique index carts_active_session_unique on carts (session_id) where status = 'active' and shopper_id is null;

      create table cart_items (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint cart_items_store_id_foreign references stores (id),
        cart_id uuid not null constraint cart_items_cart_id_foreign references carts (id) on delete cascade,
        variant_id uuid not null constraint cart_items_variant_id_foreign references product_variants (id),
        quantity int not null check (quantity between 1 and 999),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint cart_items_cart_id_variant_id_unique unique (cart_id, variant_id)
      );
      create index cart_items_variant_id_index on cart_items (variant_id);

      create sequence order_number_seq start 100001;

      create table orders (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint orders_store_id_foreign references stores (id),
        number bigint not null default nextval('order_number_seq'),
        session_id uuid null constraint orders_session_id_foreign references sessions (id),
        shopper_id uuid null constraint orders_shopper_id_foreign references shoppers (id),
        email varchar(254) not null,
        locale text check (locale in ('en', 'ar')) not null,
        currency varchar(3) not null,
        status text check (status in ('open', 'completed', 'cancelled')) not null default 'open',
        payment_method text check (payment_method in ('cash_on_delivery', 'card')) not null,
        payment_status text check (payment_status in ('pending', 'authorized', 'paid', 'partially_refunded', 'refunded', 'voided')) not null,
        fulfilment_type text check (fulfilment_type in ('delivery', 'pickup')) not null,
        fulfilment_status text check (fulfilment_status in ('unfulfilled', 'ready_for_pickup', 'shipped', 'delivered', 'returned', 'cancelled')) not null default 'unfulfilled',
        shipping_method_code varchar(40) null,
        shipping_address jsonb null,
        pickup_location_id uuid null constraint orders_pickup_location_id_foreign references pickup_locations (id),
        item_count int not null,
        subtotal int not null,
        shipping_total int not null,
        tax_total int not null,
        discount_total int not null default 0,
        total int not null,
        refunded_total int not null default 0,
        prices_include_tax boolean not null,
        -- when delivery or pickup readiness was promised: the late_orders report compares against it
        promised_by timestamptz not null,
        placed_at timestamptz not null default now(),
        paid_at timestamptz null,
        shipped_at timestamptz null,
        ready_at timestamptz null,
        delivered_at timestamptz null,
        cancelled_at timestamptz null,
        refunded_at timestamptz null,
        constraint orders_store_id_number_unique unique (store_id, number)
      );
      create index orders_store_id_shopper_id_placed_at_id_index on orders (store_id, shopper_id, placed_at, id);
      create index orders_store_id_session_id_placed_at_id_index on orders (store_id, session_id, placed_at, id);
      create index orders_store_id_placed_at_index on orders (store_id, placed_at);
      -- the few card orders whose capture is still due: the capture retry reads only these
      create index orders_authorized_placed_at_index on orders (placed_at) where payment_status = 'authorized';

      create table order_lines (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint order_lines_store_id_foreign references stores (id),
        order_id uuid not null constraint order_lines_order_id_foreign references orders (id) on delete cascade,
        product_id uuid null constraint order_lines_product_id_foreign references products (id) on delete set null,
        variant_id uuid null constraint order_lines_variant_id_foreign references product_variants (id) on delete set null,
        -- what was sold, as it was when sold
        category_id uuid null,
        brand_id uuid null,
        sku varchar(64) not null,
        product_name_en varchar(300) not null,
        product_name_ar varchar(300) not null,
        options jsonb not null,
        quantity int not null check (quantity > 0),
        unit_price int not null check (unit_price >= 0),
        line_total int not null,
        tax_amount int not null,
        returned_quantity int not null default 0 check (returned_quantity between 0 and quantity),
        position int not null default 0
      );
      create index order_lines_order_id_index on order_lines (order_id);
      create index order_lines_store_id_variant_id_index on order_lines (store_id, variant_id);

      create table payments (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint payments_store_id_foreign references stores (id),
        order_id uuid null constraint payments_order_id_foreign references orders (id),
        provider varchar(40) not null,
        method text check (method in ('cash_on_delivery', 'card')) not null,
        status text check (status in ('pending', 'authorized', 'captured', 'voided', 'refunded', 'declined')) not null,
        amount int not null,
        currency varchar(3) not null,
        provider_reference varchar(200) null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index payments_order_id_index on payments (order_id);

      -- Every refund as it happened: returned units (and perhaps the shipping charge), or a paid order
      -- cancelled. orders.refunded_total is their sum; its lines say which units the money was for.
      create table refunds (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint refunds_store_id_foreign references stores (id),
        order_id uuid not null constraint refunds_order_id_foreign references orders (id) on delete cascade,
        reason text check (reason in ('return', 'cancellation')) not null,
        amount int not null check (amount >= 0),
        -- the part of amount that refunds the shipping charge
        shipping_amount int not null default 0 check (shipping_amount >= 0),
        currency varchar(3) not null,
        restocked boolean not null,
        created_at timestamptz not null default now()
      );
      create index refunds_order_id_index on refunds (order_id);
      create index refunds_store_id_created_at_index on refunds (store_id, created_at);

      create table refund_lines (
        refund_id uuid not null constraint refund_lines_refund_id_foreign references refunds (id) on delete cascade,
        order_line_id uuid not null constraint refund_lines_order_line_id_foreign references order_lines (id) on delete cascade,
        quantity int not null check (quantity > 0),
        amount int not null check (amount >= 0),
        constraint refund_lines_pkey primary key (refund_id, order_line_id)
      );
      create index refund_lines_order_line_id_index on refund_lines (order_line_id);

      -- A placed order per (session, Idempotency-Key): a retry answers the same order.
      create table idempotency_keys (
        store_id uuid not null constraint idempotency_keys_store_id_foreign references stores (id),
        session_id uuid not null constraint idempotency_keys_session_id_foreign references sessions (id),
        key varchar(255) not null,
        request_hash varchar(64) not null,
        -- written before its order, in the same transaction: checked at commit
        order_id uuid not null constraint idempotency_keys_order_id_foreign references orders (id) deferrable initially deferred,
        created_at timestamptz not null default now(),
        primary key (store_id, session_id, key)
      );

      create table searches (
        id uuid primary key default gen_random_uuid(),
        store_id uuid not null constraint searches_store_id_foreign references stores (id),
        session_id uuid null constraint searches_session_id_foreign references sessions (id),
        shopper_id uuid null constraint searches_shopper_id_foreign references shoppers (id),
        query varchar(200) not null,
        normalized_query varchar(200) not null,
        locale text check (locale in ('en', 'ar')) not null,
        result_count int not null,
        created_at timestamptz not null default now()
      );
      create index searches_store_id_created_at_index on searches (store_id, created_at);
      create index searches_session_id_created_at_index on searches (session_id, created_at);

      -- Every order changes stock. Such a change names its products, so caches drop only the pages
      -- showing them instead of the whole store's (payloads are limited to 8000 bytes: beyond
      -- about 200 products the whole store is dropped).
      create function notify_variants_updated() returns trigger language plpgsql as $$
      declare
        stock_only boolean;
      begin
        select bool_and((to_jsonb(before) - 'stock') = (to_jsonb(after) - 'stock')) into stock_only
        from old_rows before join changed_rows after on after.id = before.id;
        if stock_only then
          perform case when length(payload) < 7900 then pg_notify('catalogue_stock_changed', payload)
                       else pg_notify('catalogue_changed', store_id::text) end
          from (select store_id, store_id::text || ':' || string_agg(distinct product_id::text, ',') as payload
                from changed_rows group by store_id) changed;
        else
          perform pg_notify('catalogue_changed', changed.store_id::text) from (select distinct store_id from changed_rows) changed;
        end if;
        return null;
      end $$;
      drop trigger product_variants_updated on product_variants;
      create trigger product_variants_updated after update on product_variants
        referencing old table as old_rows new table as changed_rows for each statement execute function notify_variants_updated();
    `);
  }
}
