import { Migration } from '@mikro-orm/migrations';

/**
 * Insights reads per-store rollups, never the raw orders: additive facts per local hour or day (in
 * the store's time zone) and the dimensions reports split by. They are kept current incrementally:
 * triggers record what happened (an order placed, shipped, cancelled, a refund, a declined payment,
 * a search, a storefront event) in `insights_pending`, whatever wrote it, and the service folds the
 * pending changes into the rollups a few seconds later, off every request path. Dimensions that have
 * no value use a sentinel, so every rollup has a primary key to add into: the nil UUID for "no
 * brand", "no category" or "a deleted product", '' for "no shipping method" (pickup), and
 * '-infinity' for "no earlier order".
 *
 * Orders gain two facts that must not change after placement: the tax rate they were charged at,
 * and whether they were placed as a guest (a guest order adopted by a shopper who signs in later
 * stays a guest checkout in the figures).
 */
export class Migration0007InsightsRollups extends Migration {
  override name = '0007-insights-rollups';

  override up(): void {
    this.addSql(`
      alter table orders
        add column tax_rate_bps int null,
        add column placed_as_guest boolean not null default false;
      update orders o set tax_rate_bps = s.tax_rate_bps, placed_as_guest = o.shopper_id is null from stores s where s.id = o.store_id;
      alter table orders alter column tax_rate_bps set not null;
      -- a customer is an email address (as Shopify links orders to customers): their earlier orders
      create index orders_customer_index on orders (store_id, lower(email), placed_at);
      -- the orders still open past their promise: the late_orders report reads these live
      create index orders_open_promised_by_index on orders (store_id, promised_by) where status = 'open';
      -- the orders fulfilled after their promise, by how late: the late_orders report lists these, latest first
      create index orders_lateness_index on orders
        (store_id, ((case fulfilment_type when 'delivery' then delivered_at else ready_at end) - promised_by))
        where (fulfilment_type = 'delivery' and delivered_at > promised_by) or (fulfilment_type = 'pickup' and ready_at > promised_by);

      -- a × b / c rounded half up, for non-negative integers (as pricing.ts's mulDivHalfUp); 0 when c is 0
      create function insights_share(a bigint, b bigint, c bigint) returns bigint
        language sql immutable parallel safe
        return case when c = 0 then 0 else (2 * a * b + c) / (2 * c) end;

      create table insights_pending (
        id bigserial primary key,
        store_id uuid not null,
        kind text not null,
        ref_id uuid null,
        event_id bigint null,
        due_at timestamptz not null default now(),
        created_at timestamptz not null default now()
      );
      create index insights_pending_due_at_index on insights_pending (due_at);
      create index insights_pending_store_id_created_at_index on insights_pending (store_id, created_at);

      create table insights_sales_daily (
        store_id uuid not null, day date not null,
        payment_method text not null, fulfilment_type text not null, shipping_method text not null,
        customer_type text not null, customer_kind text not null, locale text not null, tax_rate_bps int not null,
        orders int not null default 0, gross_sales bigint not null default 0, discounts bigint not null default 0,
        returns bigint not null default 0, shipping bigint not null default 0, taxes_collected bigint not null default 0,
        taxes_refunded bigint not null default 0, units_sold int not null default 0, units_returned int not null default 0,
        cancelled_orders int not null default 0,
        primary key (store_id, day, payment_method, fulfilment_type, shipping_method, customer_type, customer_kind, locale, tax_rate_bps)
      );
      create table insights_sales_hourly (
        store_id uuid not null, hour timestamp not null,
        payment_method text not null, fulfilment_type text not null, shipping_method text not null,
        customer_type text not null, customer_kind text not null, locale text not null, tax_rate_bps int not null,
        orders int not null default 0, gross_sales bigint not null default 0, discounts bigint not null default 0,
        returns bigint not null default 0, shipping bigint not null default 0, taxes_collected bigint not null default 0,
        taxes_refunded bigint not null default 0, units_sold int not null default 0, units_returned int not null default 0,
        cancelled_orders int not null default 0,
        primary key (store_id, hour, payment_method, fulfilment_type, shipping_method, customer_type, customer_kind, locale, tax_rate_bps)
      );

      -- The same sales by month (whole months of a long range are read from here), and per day without any
      -- dimension (what the overview and every series without a split read).
      create table insights_sales_monthly (
        store_id uuid not null, month date not null,
        payment_method text not null, fulfilment_type text not null, shipping_method text not null,
        customer_type text not null, customer_kind text not null, locale text not null, tax_rate_bps int not null,
        orders int not null default 0, gross_sales bigint not null default 0, discounts bigint not null default 0,
        returns bigint not null default 0, shipping bigint not null default 0, taxes_collected bigint not null default 0,
        taxes_refunded bigint not null default 0, units_sold int not null default 0, units_returned int not null default 0,
        cancelled_orders int not null default 0,
        primary key (store_id, month, payment_method, fulfilment_type, shipping_method, customer_type, customer_kind, locale, tax_rate_bps)
      );
      create table insights_sales_totals_daily (
        store_id uuid not null, day date not null,
        orders int not null default 0, gross_sales bigint not null default 0, discounts bigint not null default 0,
        returns bigint not null default 0, shipping bigint not null default 0, taxes_collected bigint not null default 0,
        taxes_refunded bigint not null default 0, units_sold int not null default 0, units_returned int not null default 0,
        cancelled_orders int not null default 0,
        primary key (store_id, day)
      );

      create table insights_products_daily (
        store_id uuid not null, day date not null,
        variant_id uuid not null, product_id uuid not null, category_id uuid not null, brand_id uuid not null,
        units_sold int not null default 0, units_returned int not null default 0, gross_sales bigint not null default 0,
        returns bigint not null default 0,
        -- orders that contained the variant, the product, the category, the brand, the category and brand: each order
        -- counted once per level
        variant_orders int not null default 0, product_orders int not null default 0, category_orders int not null default 0,
        brand_orders int not null default 0, category_brand_orders int not null default 0,
        primary key (store_id, day, variant_id, product_id, category_id, brand_id)
      );
      create index insights_products_daily_last_sale_index on insights_products_daily (store_id, product_id, day);
      create table insights_products_monthly (
        store_id uuid not null, month date not null,
        variant_id uuid not null, product_id uuid not null, category_id uuid not null, brand_id uuid not null,
        units_sold int not null default 0, units_returned int not null default 0, gross_sales bigint not null default 0,
        returns bigint not null default 0,
        variant_orders int not null default 0, product_orders int not null default 0, category_orders int not null default 0,
        brand_orders int not null default 0, category_brand_orders int not null default 0,
        primary key (store_id, month, variant_id, product_id, category_id, brand_id)
      );

      -- Distinct customers over any range, additively. An order counts its customer in a period starting on
      -- day S when its customer's previous order (within the grouping) is before S, i.e. when it has none or
      -- when the gap back to it is more than day − S days. Per day, the orders and, of those with a previous
      -- order, how many have a gap of at most 0, 1, 2… days (cumulative counts, the last repeated beyond):
      -- one row per day answers for any period start.
      create table insights_customers_daily (
        store_id uuid not null, grouping text not null, day date not null, group_value text not null,
        orders int not null default 0,
        -- orders that were their customer's first of all
        first_orders int not null default 0,
        -- element i: orders with a previous order in the grouping at most i − 1 days before
        repeat_gaps int[] not null default '{}',
        -- the same for orders that were their customer's second in the grouping, the first being their first of all
        second_gaps int[] not null default '{}',
        primary key (store_id, grouping, day, group_value)
      );
      -- Cumulative counts of gaps (days) from the list of gaps: element i counts the gaps of at most i − 1.
      create function insights_cumulative(gaps int[]) returns int[] language sql immutable parallel safe return (
        select coalesce(array_agg(running order by i), '{}')
        from (
          select i, (sum(coalesce(counted.n, 0)) over (order by i))::int as running
          from generate_series(0, (select max(g) from unnest(gaps) g)) as i
          left join (select g, count(*) as n from unnest(gaps) g group by g) counted on counted.g = i
        ) cumulative
      );
      -- Two cumulative counts added, the shorter one's last count repeated beyond its end.
      create function insights_add_cumulative(a int[], b int[]) returns int[] language sql immutable parallel safe return (
        select coalesce(array_agg(coalesce(a[least(i, cardinality(a))], 0) + coalesce(b[least(i, cardinality(b))], 0) order by i), '{}')
        from generate_series(1, greatest(cardinality(a), cardinality(b))) as i
      );

      create table insights_cohorts_monthly (
        store_id uuid not null, cohort_month date not null, month date not null,
        customers int not null default 0, orders int not null default 0, gross_sales bigint not null default 0,
        returns bigint not null default 0,
        primary key (store_id, cohort_month, month)
      );

      create table insights_customers (
        id bigserial primary key,
        store_id uuid not null,
        email text not null,
        constraint insights_customers_store_id_email_unique unique (store_id, email)
      );
      -- what each customer has bought of all time: an upper bound of what they bought in any range, by which the top
      -- customers of a range are found without adding up every customer's range
      create table insights_customer_totals (
        store_id uuid not null, customer_id bigint not null,
        orders int not null default 0, gross_sales bigint not null default 0,
        primary key (store_id, customer_id)
      );
      create index insights_customer_totals_gross_sales_index on insights_customer_totals (store_id, gross_sales desc, customer_id);
      create index insights_customer_totals_orders_index on insights_customer_totals (store_id, orders desc, customer_id);
      create table insights_customer_sales_daily (
        store_id uuid not null, day date not null, customer_id bigint not null,
        orders int not null default 0, gross_sales bigint not null default 0, discounts bigint not null default 0,
        returns bigint not null default 0,
        primary key (store_id, day, customer_id)
      );
      -- a customer's days, with their figures: the top customers of a range are read from the index alone
      create index insights_customer_sales_daily_customer_index on insights_customer_sales_daily (store_id, customer_id, day)
        include (orders, gross_sales, discounts, returns);

      create table insights_fulfilment_hourly (
        store_id uuid not null, hour timestamp not null, fulfilment_type text not null, shipping_method text not null,
        shipped_orders int not null default 0, ship_seconds bigint not null default 0,
        delivered_orders int not null default 0, deliver_seconds bigint not null default 0,
        ready_orders int not null default 0, ready_seconds bigint not null default 0,
        -- counted in the hour of the promise: orders due, and those fulfilled after it or by it
        promised_orders int not null default 0, late_orders int not null default 0, kept_orders int not null default 0,
        primary key (store_id, hour, fulfilment_type, shipping_method)
      );

      create table insights_payments_hourly (
        store_id uuid not null, hour timestamp not null, payment_method text not null,
        authorised_count int not null default 0, authorised_amount bigint not null default 0,
        captured_count int not null default 0, captured_amount bigint not null default 0,
        refunded_count int not null default 0, refunded_amount bigint not null default 0,
        voided_count int not null default 0, voided_amount bigint not null default 0,
        failed_count int not null default 0, failed_amount bigint not null default 0,
        primary key (store_id, hour, payment_method)
      );

      create table insights_searches_daily (
        store_id uuid not null, day date not null, query text not null,
        searches int not null default 0, zero_result_searches int not null default 0,
        followed_by_add int not null default 0, followed_by_order int not null default 0,
        primary key (store_id, day, query)
      );
      create table insights_searches_monthly (
        store_id uuid not null, month date not null, query text not null,
        searches int not null default 0, zero_result_searches int not null default 0,
        followed_by_add int not null default 0, followed_by_order int not null default 0,
        primary key (store_id, month, query)
      );
      create table insights_searches_hourly (
        store_id uuid not null, hour timestamp not null,
        searches int not null default 0, zero_result_searches int not null default 0,
        followed_by_add int not null default 0, followed_by_order int not null default 0,
        primary key (store_id, hour)
      );
      -- a search counted as followed by an add-to-cart (or an order) once
      create table insights_search_credits (
        search_id uuid not null, kind text not null, store_id uuid not null,
        primary key (search_id, kind)
      );
      create index insights_search_credits_store_id_index on insights_search_credits (store_id);

      create table insights_funnel_hourly (
        store_id uuid not null, hour timestamp not null,
        sessions int not null default 0, product_viewed int not null default 0, added_to_cart int not null default 0,
        reached_checkout int not null default 0, ordered int not null default 0,
        primary key (store_id, hour)
      );
      -- the steps each session has reached, so that a session counts once per step
      create table insights_funnel_sessions (
        session_id uuid primary key,
        store_id uuid not null,
        started_hour timestamp not null,
        steps int not null default 0
      );
      create index insights_funnel_sessions_store_id_index on insights_funnel_sessions (store_id);

      -- Change capture. Order lifecycle steps already set when an order is inserted count as happening
      -- then; later ones when their timestamp is first set. A new order waits 5 seconds, so that an
      -- earlier order of the same customer still committing is seen when its place in the customer's
      -- history is worked out.
      create function insights_orders_inserted() returns trigger language plpgsql as $$
      begin
        insert into insights_pending (store_id, kind, ref_id, due_at)
        select n.store_id, k.kind, n.id, case when k.kind = 'order_placed' then now() + interval '5 seconds' else now() end
        from new_rows n
        cross join lateral (values ('order_placed', true), ('order_paid', n.paid_at is not null), ('order_shipped', n.shipped_at is not null),
                                   ('order_ready', n.ready_at is not null), ('order_delivered', n.delivered_at is not null),
                                   ('order_cancelled', n.cancelled_at is not null)) as k(kind, happened)
        where k.happened;
        return null;
      end $$;
      create function insights_orders_updated() returns trigger language plpgsql as $$
      begin
        insert into insights_pending (store_id, kind, ref_id)
        select n.store_id, k.kind, n.id
        from old_rows o join new_rows n on n.id = o.id
        cross join lateral (values ('order_paid', o.paid_at is null and n.paid_at is not null),
                                   ('order_shipped', o.shipped_at is null and n.shipped_at is not null),
                                   ('order_ready', o.ready_at is null and n.ready_at is not null),
                                   ('order_delivered', o.delivered_at is null and n.delivered_at is not null),
                                   ('order_cancelled', o.cancelled_at is null and n.cancelled_at is not null)) as k(kind, happened)
        where k.happened;
        return null;
      end $$;
      create trigger insights_orders_inserted after insert on orders
        referencing new table as new_rows for each statement execute function insights_orders_inserted();
      create trigger insights_orders_updated after update on orders
        referencing old table as old_rows new table as new_rows for each statement execute function insights_orders_updated();

      create function insights_refunds_inserted() returns trigger language plpgsql as $$
      begin
        insert into insights_pending (store_id, kind, ref_id) select store_id, 'refund', id from new_rows;
        return null;
      end $$;
      create trigger insights_refunds_inserted after insert on refunds
        referencing new table as new_rows for each statement execute function insights_refunds_inserted();

      create function insights_payments_inserted() returns trigger language plpgsql as $$
      begin
        insert into insights_pending (store_id, kind, ref_id) select store_id, 'payment_declined', id from new_rows where status = 'declined';
        return null;
      end $$;
      create trigger insights_payments_inserted after insert on payments
        referencing new table as new_rows for each statement execute function insights_payments_inserted();

      create function insights_searches_inserted() returns trigger language plpgsql as $$
      begin
        insert into insights_pending (store_id, kind, ref_id) select store_id, 'search', id from new_rows;
        return null;
      end $$;
      create trigger insights_searches_inserted after insert on searches
        referencing new table as new_rows for each statement execute function insights_searches_inserted();

      create function insights_storefront_events_inserted() returns trigger language plpgsql as $$
      begin
        insert into insights_pending (store_id, kind, event_id) select store_id, 'storefront_event', id from new_rows;
        return null;
      end $$;
      create trigger insights_storefront_events_inserted after insert on storefront_events
        referencing new table as new_rows for each statement execute function insights_storefront_events_inserted();
    `);
  }
}
