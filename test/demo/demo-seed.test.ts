import { beforeAll, describe, expect, it } from 'vitest';
import { CatalogueNotEmptyError } from '../../src/storefront/catalogue/catalogue-writer.js';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { StoreHasActivityError } from '../../src/demo/activity-seeder.js';
import { SearchService } from '../../src/storefront/search/search.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import type { Row } from '../support/database.js';
import { useTestApp } from '../support/harness.js';

const ANCHOR = new Date('2026-11-21T00:00:00Z');
const WINDOW_START = new Date('2025-05-21T00:00:00Z');
const ORDERS = 1500;
const PRODUCTS = 120;
const DAY = 86_400_000;

describe('demo seed: shoppers, orders and searches (issue 3)', () => {
  const t = useTestApp();
  /** a and b: the same seed; c: another seed. */
  let a: string;
  let b: string;
  let c: string;

  const one = async <T = Row>(text: string, values: unknown[] = []): Promise<T> => (await t.db.rows<T>(text, values))[0];
  const newStore = async () => (await t.app.get(StoreService).create(`Demo ${Math.random().toString(36).slice(2, 8)}`)).store.id;
  const seed = (storeId: string, seedNumber: number) =>
    t.app.get(DemoStoreService).seed(storeId, { seed: seedNumber, orders: ORDERS, productCount: PRODUCTS, anchor: ANCHOR });

  /** Everything seeded into a store, without its ids: equal for equal seeds. */
  const fingerprint = (storeId: string) =>
    one<{ orders: string; shoppers: string; searches: string; events: string; sessions: string }>(
      `select
         (select md5(string_agg(concat_ws('|', o.email, o.locale, o.status, o.payment_method, o.payment_status, o.fulfilment_type,
                  o.fulfilment_status, o.shipping_method_code, o.shipping_address::text, o.item_count, o.subtotal, o.shipping_total,
                  o.tax_total, o.total, o.refunded_total, o.placed_at, o.paid_at, o.shipped_at, o.ready_at, o.delivered_at,
                  o.cancelled_at, o.refunded_at, o.promised_by, lines.text, pays.text), ';' order by o.number))
          from orders o
          cross join lateral (select string_agg(concat_ws(',', l.sku, l.quantity, l.unit_price, l.line_total, l.tax_amount, l.returned_quantity),
                                                ',' order by l.position) as text from order_lines l where l.order_id = o.id) lines
          cross join lateral (select string_agg(concat_ws(',', p.method, p.status, p.amount, p.created_at, p.updated_at), ',' order by p.created_at, p.status)
                                as text from payments p where p.order_id = o.id) pays
          where o.store_id = $1) as orders,
         (select md5(string_agg(concat_ws('|', s.email, s.first_name, s.last_name, s.phone, s.locale, s.marketing_opt_in, s.email_verified_at,
                  s.created_at, addresses.text), ';' order by s.email))
          from shoppers s
          cross join lateral (select string_agg(concat_ws(',', a.label, a.line1, a.line2, a.district, a.city, a.country, a.is_default_shipping),
                                                ',' order by a.created_at, a.label) as text from addresses a where a.shopper_id = s.id) addresses
          where s.store_id = $1) as shoppers,
         (select md5(string_agg(concat_ws('|', q.query, q.normalized_query, q.locale, q.result_count, q.created_at, s.email, ss.created_at), ';'
                  order by q.created_at, q.query, s.email, ss.created_at))
          from searches q left join shoppers s on s.id = q.shopper_id left join sessions ss on ss.id = q.session_id
          where q.store_id = $1) as searches,
         (select md5(string_agg(line, ';' order by line)) from (
            select concat_ws('|', min(e.occurred_at) over (partition by e.session_id), e.kind, e.occurred_at, p.slug, o.email, o.placed_at) as line
            from storefront_events e left join products p on p.id = e.product_id left join orders o on o.id = e.order_id
            where e.store_id = $1) events) as events,
         (select md5(string_agg(concat_ws('|', ss.created_at, ss.revoked_at, sh.email), ';' order by ss.created_at, ss.revoked_at, sh.email))
          from sessions ss left join shoppers sh on sh.id = ss.shopper_id where ss.store_id = $1) as sessions`,
      [storeId],
    );

  beforeAll(async () => {
    [a, b, c] = [await newStore(), await newStore(), await newStore()];
    await seed(a, 7);
    await seed(b, 7);
    await seed(c, 8);
  }, 120_000);

  it('is deterministic: the same seed gives the same data, another seed other data', async () => {
    const [fa, fb, fc] = [await fingerprint(a), await fingerprint(b), await fingerprint(c)];
    expect(fa.orders).toBeTruthy();
    expect(fb).toEqual(fa);
    expect(fc.orders).not.toBe(fa.orders);
    expect(fc.shoppers).not.toBe(fa.shoppers);
    expect(fc.searches).not.toBe(fa.searches);
    expect(fc.events).not.toBe(fa.events);
    expect(fc.sessions).not.toBe(fa.sessions);
  });

  it('writes the counts it reports, with about one shopper for every 2 to 4 orders', async () => {
    const counts = await one(
      `select (select count(*)::int from orders where store_id = $1) as orders,
              (select count(*)::int from shoppers where store_id = $1) as shoppers,
              (select count(*)::int from searches where store_id = $1) as searches`,
      [a],
    );
    expect(counts.orders).toBe(ORDERS);
    expect(counts.shoppers).toBeGreaterThan(ORDERS / 4);
    expect(counts.shoppers).toBeLessThan(ORDERS / 2);
    expect(counts.searches).toBeGreaterThan(ORDERS);
  });

  it('numbers orders in the order they were placed', async () => {
    const out = await one(
      `select count(*)::int as inversions from (
         select placed_at, lag(placed_at) over (order by number) as previous from orders where store_id = $1) x
       where placed_at < previous`,
      [a],
    );
    expect(out.inversions).toBe(0);
  });

  it('computes totals like checkout: VAT included in prices, half-up per line and on shipping, free shipping over the threshold', async () => {
    const lines = await one(
      `select count(*)::int as lines,
              count(*) filter (where l.line_total <> l.unit_price * l.quantity)::int as wrong_total,
              count(*) filter (where l.tax_amount <> floor((2 * l.line_total::bigint * 1500 + 11500) / (2 * 11500)))::int as wrong_tax,
              count(*) filter (where l.unit_price <> v.price or l.sku <> v.sku or l.product_id <> v.product_id)::int as not_the_variant
       from order_lines l join product_variants v on v.id = l.variant_id where l.store_id = $1`,
      [a],
    );
    expect(lines.lines).toBeGreaterThan(ORDERS);
    expect(lines).toMatchObject({ wrong_total: 0, wrong_tax: 0, not_the_variant: 0 });

    const orders = await one(
      `with sums as (
         select order_id, sum(line_total) as subtotal, sum(tax_amount) as tax, sum(quantity) as items, count(*) as lines
         from order_lines where store_id = $1 group by order_id)
       select count(*)::int as orders,
              count(*) filter (where s.lines not between 1 and 5)::int as wrong_line_count,
              count(*) filter (where o.subtotal <> s.subtotal or o.item_count <> s.items)::int as wrong_subtotal,
              count(*) filter (where o.total <> o.subtotal + o.shipping_total or o.discount_total <> 0)::int as wrong_total,
              count(*) filter (where o.tax_total <> s.tax + floor((2 * o.shipping_total::bigint * 1500 + 11500) / (2 * 11500)))::int as wrong_tax,
              count(*) filter (where o.fulfilment_type = 'pickup' and (o.shipping_total <> 0 or o.pickup_location_id is null
                                 or o.shipping_address is not null))::int as wrong_pickup,
              count(*) filter (where o.fulfilment_type = 'delivery' and (o.shipping_address is null or o.shipping_total <>
                                 case when m.free_over is not null and o.subtotal >= m.free_over then 0 else m.price end))::int as wrong_shipping,
              count(*) filter (where o.refunded_total < 0 or o.refunded_total > o.total)::int as wrong_refund,
              count(*) filter (where o.currency <> 'SAR' or not o.prices_include_tax or o.session_id is null)::int as wrong_settings,
              count(*) filter (where o.shipping_total = 0 and o.fulfilment_type = 'delivery')::int as free_deliveries
       from orders o join sums s on s.order_id = o.id
       left join shipping_methods m on m.store_id = o.store_id and m.code = o.shipping_method_code
       where o.store_id = $1`,
      [a],
    );
    expect(orders).toMatchObject({
      orders: ORDERS,
      wrong_line_count: 0,
      wrong_subtotal: 0,
      wrong_total: 0,
      wrong_tax: 0,
      wrong_pickup: 0,
      wrong_shipping: 0,
      wrong_refund: 0,
      wrong_settings: 0,
    });
    expect(orders.free_deliveries).toBeGreaterThan(0);

    const payments = await one(
      `select count(*) filter (where o.paid_at is not null and coalesce(captured.amount, 0) <> o.total)::int as wrong_capture,
              count(*) filter (where o.paid_at is null and captured.amount is not null)::int as captured_unpaid,
              count(*) filter (where coalesce(refunded.amount, 0) <> o.refunded_total)::int as wrong_refund,
              count(*) filter (where main.count <> 1 or main.method <> o.payment_method)::int as wrong_payment_row
       from orders o
       left join lateral (select sum(amount) as amount from payments p where p.order_id = o.id and p.status = 'captured') captured on true
       left join lateral (select sum(amount) as amount from payments p where p.order_id = o.id and p.status = 'refunded') refunded on true
       left join lateral (select count(*) as count, min(method) as method from payments p where p.order_id = o.id and p.status <> 'refunded') main on true
       where o.store_id = $1`,
      [a],
    );
    expect(payments).toEqual({ wrong_capture: 0, captured_unpaid: 0, wrong_refund: 0, wrong_payment_row: 0 });
  });

  it('keeps every order life in time order, with states that fit the time', async () => {
    const out = await one(
      `select
         count(*) filter (where not (o.placed_at <= coalesce(o.paid_at, o.placed_at)
                                     and o.placed_at <= coalesce(o.shipped_at, o.ready_at, o.delivered_at, o.placed_at)
                                     and coalesce(o.shipped_at, o.ready_at, o.placed_at) <= coalesce(o.delivered_at, 'infinity')
                                     and coalesce(o.delivered_at, o.cancelled_at, o.placed_at) <= coalesce(o.refunded_at, 'infinity')))::int as out_of_order,
         count(*) filter (where o.payment_method = 'card' and o.paid_at > o.placed_at + interval '2 minutes')::int as card_paid_late,
         count(*) filter (where o.payment_method = 'card' and o.paid_at > coalesce(o.shipped_at, o.ready_at, 'infinity'))::int as card_paid_after_shipping,
         count(*) filter (where o.payment_method = 'cash_on_delivery' and o.paid_at is distinct from o.delivered_at)::int as cash_not_at_delivery,
         count(*) filter (where greatest(o.placed_at, o.paid_at, o.shipped_at, o.ready_at, o.delivered_at, o.cancelled_at, o.refunded_at) > $2)::int as future,
         count(*) filter (where (o.status = 'completed') <> (o.delivered_at is not null))::int as completed_mismatch,
         count(*) filter (where (o.status = 'cancelled') <> (o.cancelled_at is not null))::int as cancelled_mismatch,
         count(*) filter (where o.status = 'cancelled' and (o.shipped_at is not null or o.ready_at is not null or o.fulfilment_status <> 'cancelled'
                                  or o.payment_status not in ('voided', 'refunded')))::int as bad_cancel,
         count(*) filter (where o.status = 'open' and o.fulfilment_status not in ('unfulfilled', 'shipped', 'ready_for_pickup'))::int as bad_open,
         count(*) filter (where o.fulfilment_type = 'delivery' and (o.ready_at is not null or o.shipping_method_code is null
                                  or o.promised_by <> o.placed_at + make_interval(days => m.max_days))
                            or o.fulfilment_type = 'pickup' and (o.shipped_at is not null or o.shipping_method_code is not null
                                  or o.promised_by <> o.placed_at + make_interval(hours => pl.preparation_hours)))::int as bad_promise,
         count(*) filter (where o.status = 'open' and o.placed_at < $2::timestamptz - interval '14 days')::int as old_open,
         count(*) filter (where o.status = 'open')::int as open
       from orders o
       left join shipping_methods m on m.store_id = o.store_id and m.code = o.shipping_method_code
       left join pickup_locations pl on pl.id = o.pickup_location_id
       where o.store_id = $1`,
      [a, ANCHOR],
    );
    expect(out).toMatchObject({
      out_of_order: 0,
      card_paid_late: 0,
      card_paid_after_shipping: 0,
      cash_not_at_delivery: 0,
      future: 0,
      completed_mismatch: 0,
      cancelled_mismatch: 0,
      bad_cancel: 0,
      bad_open: 0,
      bad_promise: 0,
      old_open: 0,
    });
    // The last days' orders are still on their way.
    expect(out.open).toBeGreaterThan(0);

    const shoppers = await one(
      `select count(*) filter (where s.created_at > first.placed_at)::int as signed_up_after_ordering,
              count(*) filter (where s.email_verified_at < s.created_at)::int as verified_before_signing_up,
              count(*) filter (where s.created_at > $2)::int as future
       from shoppers s left join lateral (select min(placed_at) as placed_at from orders o where o.shopper_id = s.id) first on true
       where s.store_id = $1`,
      [a, ANCHOR],
    );
    expect(shoppers).toEqual({ signed_up_after_ordering: 0, verified_before_signing_up: 0, future: 0 });
  });

  it('spreads orders and searches over the 18 months before the anchor', async () => {
    for (const table of ['orders', 'searches']) {
      const column = table === 'orders' ? 'placed_at' : 'created_at';
      const span = await one(`select min(${column}) as first, max(${column}) as last from ${table} where store_id = $1`, [a]);
      expect(span.first.getTime()).toBeGreaterThanOrEqual(WINDOW_START.getTime());
      expect(span.first.getTime()).toBeLessThan(WINDOW_START.getTime() + 3 * DAY);
      expect(span.last.getTime()).toBeLessThan(ANCHOR.getTime());
      expect(span.last.getTime()).toBeGreaterThan(ANCHOR.getTime() - 2 * DAY);
    }
    const months = await t.db.rows(
      `select date_trunc('month', placed_at) as month, count(*)::int as orders from orders where store_id = $1 group by 1 order by 1`,
      [a],
    );
    expect(months).toHaveLength(19);
    // Growth: the last full quarter sells clearly more than the first one.
    const quarter = (list: Row[]) => list.reduce((sum, month) => sum + month.orders, 0);
    expect(quarter(months.slice(-4, -1))).toBeGreaterThan(1.4 * quarter(months.slice(1, 4)));
  });

  it('shows the seasons: Ramadan, the mega sales, Thursday and Friday, the evening', async () => {
    const weeks = await t.db.rows<{ week: Date; orders: number }>(
      `select date_trunc('week', placed_at at time zone 'Asia/Riyadh') as week, count(*)::int as orders
       from orders where store_id = $1 group by 1 order by 1`,
      [a],
    );
    const full = weeks.slice(1, -1).map((week) => week.orders);
    const median = [...full].sort((x, y) => x - y)[Math.floor(full.length / 2)];
    // Ramadan 1447: 18 February to 19 March 2026.
    const ramadan = weeks.filter((week) => week.week >= new Date('2026-02-16') && week.week < new Date('2026-03-16'));
    expect(ramadan).toHaveLength(4);
    for (const week of ramadan) expect(week.orders, week.week.toISOString()).toBeGreaterThan(median);
    expect(Math.max(...full) / median).toBeGreaterThan(1.5);

    const days = await one(
      `with daily as (select (placed_at at time zone 'Asia/Riyadh')::date as day, count(*) as orders from orders where store_id = $1 group by 1)
       select (select avg(orders) from daily where day in ('2025-11-11', '2025-11-28', '2025-11-29', '2025-11-30', '2025-12-01')) as sales,
              (select percentile_cont(0.5) within group (order by orders) from daily where day between '2025-10-01' and '2026-01-31') as median`,
      [a],
    );
    expect(Number(days.sales)).toBeGreaterThan(1.5 * Number(days.median));

    const rhythm = await one(
      `select count(*) filter (where extract(dow from placed_at at time zone 'Asia/Riyadh') in (4, 5))::float / count(*) as thursday_friday,
              count(*) filter (where extract(hour from placed_at at time zone 'Asia/Riyadh') between 19 and 23)::float / count(*) as evening,
              count(*) filter (where extract(hour from placed_at at time zone 'Asia/Riyadh') between 3 and 6)::float / count(*) as small_hours
       from orders where store_id = $1`,
      [a],
    );
    expect(rhythm.thursday_friday).toBeGreaterThan(2 / 7 + 0.02);
    expect(rhythm.evening).toBeGreaterThan(0.3);
    expect(rhythm.small_hours).toBeLessThan(0.04);
  });

  it('has believable returns, late deliveries, cancellations and payment and delivery mixes', async () => {
    const out = await one(
      `select count(*) filter (where status = 'completed')::float as completed,
              count(*) filter (where status = 'completed' and exists (
                select 1 from order_lines l where l.order_id = o.id and l.returned_quantity > 0)) as returned,
              count(*) filter (where status = 'completed' and (delivered_at > promised_by and fulfilment_type = 'delivery'
                                 or ready_at > promised_by and fulfilment_type = 'pickup')) as late,
              count(*) filter (where status = 'cancelled')::float / count(*) as cancelled,
              count(*) filter (where payment_method = 'cash_on_delivery')::float / count(*) as cash,
              count(*) filter (where fulfilment_type = 'pickup')::float / count(*) as pickup,
              count(*) filter (where shopper_id is null)::float / count(*) as guests,
              count(*) filter (where payment_status = 'partially_refunded') as partial,
              count(*) filter (where payment_status = 'refunded' and status = 'completed') as full,
              count(*) filter (where refunded_total > 0 and refunded_at is null) as refund_without_time
       from orders o where store_id = $1`,
      [a],
    );
    expect(out.returned / out.completed).toBeGreaterThanOrEqual(0.05);
    expect(out.returned / out.completed).toBeLessThanOrEqual(0.08);
    expect(out.late / out.completed).toBeGreaterThanOrEqual(0.08);
    expect(out.late / out.completed).toBeLessThanOrEqual(0.12);
    expect(out.cancelled).toBeGreaterThan(0.015);
    expect(out.cancelled).toBeLessThan(0.045);
    expect(out.cash).toBeGreaterThan(0.3);
    expect(out.cash).toBeLessThan(0.55);
    expect(out.pickup).toBeGreaterThan(0.05);
    expect(out.pickup).toBeLessThan(0.25);
    expect(out.guests).toBeGreaterThan(0.05);
    expect(out.guests).toBeLessThan(0.2);
    expect(Number(out.partial)).toBeGreaterThan(0);
    expect(Number(out.full)).toBeGreaterThan(0);
    expect(Number(out.refund_without_time)).toBe(0);

    // Refunds are records too, as the order lifecycle writes them: one per refunded order here, at its
    // refund time, whose lines are the returned units (every unit for a cancellation) and add up with
    // the shipping part to the order's refunded total.
    const refunds = await one(
      `select count(*)::int as orders,
              count(*) filter (where r.id is null)::int as without_record,
              count(*) filter (where r.created_at <> o.refunded_at or r.amount <> o.refunded_total)::int as wrong_record,
              count(*) filter (where r.amount <> r.shipping_amount + coalesce(
                (select sum(rl.amount) from refund_lines rl where rl.refund_id = r.id), 0))::int as not_adding_up,
              count(*) filter (where r.reason = 'return' and exists (
                select 1 from order_lines l left join refund_lines rl on rl.refund_id = r.id and rl.order_line_id = l.id
                where l.order_id = o.id and l.returned_quantity <> coalesce(rl.quantity, 0)))::int as wrong_units,
              count(*) filter (where r.reason = 'cancellation' and o.status <> 'cancelled')::int as wrong_reason,
              count(*) filter (where r.reason = 'cancellation')::int as cancellations
       from orders o left join refunds r on r.order_id = o.id
       where o.store_id = $1 and o.refunded_total > 0`,
      [a],
    );
    expect(refunds.orders).toBeGreaterThan(0);
    expect(refunds.cancellations).toBeGreaterThan(0);
    expect(refunds).toMatchObject({ without_record: 0, wrong_record: 0, not_adding_up: 0, wrong_units: 0, wrong_reason: 0 });
  });

  it('has shoppers like a real store: a long tail of buyers, both languages, 1 to 3 addresses with one default', async () => {
    const buyers = await one(
      `with per as (select shopper_id, count(*) as orders from orders where store_id = $1 and shopper_id is not null group by 1)
       select count(*) as buyers, count(*) filter (where orders = 1)::float / count(*) as once, max(orders) as most,
              (select sum(orders) from (select orders from per order by orders desc limit greatest(1, (select count(*) from per) / 20)) top)::float
                / (select sum(orders) from per) as top_twentieth_share
       from per`,
      [a],
    );
    expect(buyers.once).toBeGreaterThan(0.5);
    expect(buyers.once).toBeLessThan(0.8);
    expect(Number(buyers.most)).toBeGreaterThanOrEqual(6);
    expect(buyers.top_twentieth_share).toBeGreaterThan(0.15);

    const people = await one(
      `select count(*) filter (where locale = 'ar')::float / count(*) as arabic,
              count(*) filter (where marketing_opt_in)::float / count(*) as opted_in,
              count(*) filter (where locale = 'ar' and first_name ~ '[\u0600-\u06FF]')::float / nullif(count(*) filter (where locale = 'ar'), 0) as arabic_names,
              count(*) filter (where email <> email_normalized or email !~ '^[a-z0-9._]+@[a-z]+\\.example$')::int as odd_emails
       from shoppers where store_id = $1`,
      [a],
    );
    expect(people.arabic).toBeGreaterThan(0.5);
    expect(people.arabic).toBeLessThan(0.8);
    expect(people.opted_in).toBeGreaterThan(0.2);
    expect(people.opted_in).toBeLessThan(0.6);
    expect(people.arabic_names).toBeGreaterThan(0.9);
    expect(people.odd_emails).toBe(0);

    const addresses = await one(
      `select count(*) filter (where n not between 1 and 3)::int as wrong_count, count(*) filter (where defaults <> 1)::int as wrong_default,
              count(distinct city)::int as cities, count(*) filter (where country <> 'SA')::int as gulf
       from (select s.id, count(a.id) as n, count(a.id) filter (where a.is_default_shipping) as defaults, min(a.city) as city, min(a.country) as country
             from shoppers s left join addresses a on a.shopper_id = s.id where s.store_id = $1 group by s.id) x`,
      [a],
    );
    expect(addresses).toMatchObject({ wrong_count: 0, wrong_default: 0 });
    expect(addresses.cities).toBeGreaterThan(10);
    expect(addresses.gulf).toBeGreaterThan(0);
  });

  it('logs searches in both languages, with typos, zero-result queries and result counts of this catalogue', async () => {
    const out = await one(
      `select count(*) filter (where locale = 'ar')::float / count(*) as arabic,
              count(*) filter (where result_count = 0)::float / count(*) as zero,
              count(*) filter (where shopper_id is not null)::float / count(*) as by_shoppers,
              count(distinct normalized_query)::int as distinct_queries,
              count(*) filter (where normalized_query <> lower(btrim(normalized_query)))::int as not_normalized
       from searches where store_id = $1`,
      [a],
    );
    expect(out.arabic).toBeGreaterThan(0.45);
    expect(out.arabic).toBeLessThan(0.8);
    expect(out.zero).toBeGreaterThan(0.04);
    expect(out.zero).toBeLessThan(0.25);
    expect(out.by_shoppers).toBeGreaterThan(0.2);
    expect(out.distinct_queries).toBeGreaterThan(100);
    expect(out.not_normalized).toBe(0);

    // A brand's name finds that brand's products (no product of another brand carries the name).
    const brands = await t.db.rows(
      `select q.normalized_query, min(q.result_count) as logged, max(q.result_count) as logged_max,
              (select count(*) from products p where p.brand_id = b.id and p.status = 'active')::int as actual
       from searches q join brands b on b.store_id = q.store_id and lower(b.name_en) = q.normalized_query
       where q.store_id = $1 group by q.normalized_query, b.id`,
      [a],
    );
    expect(brands.length).toBeGreaterThan(3);
    for (const brand of brands) expect([brand.logged, brand.logged_max], brand.normalized_query).toEqual([brand.actual, brand.actual]);

    // What the live search answers for the same query, typos corrected as it corrects them: the
    // fewest-result queries first, where correction decides.
    const sample = await t.db.rows<{ query: string; logged: number }>(
      `select normalized_query as query, min(result_count)::int as logged from searches where store_id = $1
       group by normalized_query order by min(result_count), normalized_query limit 40`,
      [a],
    );
    const live = t.app.get(SearchService);
    for (const { query, logged } of sample) expect((await live.search(a, { q: query })).total, query).toBe(logged);
  });

  it('starts sessions every day with the funnel’s drop-off, the day’s orders at its end', async () => {
    const days = await t.db.rows<{
      day: string;
      sessions: number;
      viewed: number;
      carted: number;
      quoted: number;
      ordered: number;
      orders: number;
    }>(
      `with per_session as (
         select session_id, min(occurred_at) as started, bool_or(kind = 'product_viewed') as viewed, bool_or(kind = 'cart_line_added') as carted,
                bool_or(kind = 'checkout_quoted') as quoted, bool_or(kind = 'order_placed') as ordered
         from storefront_events where store_id = $1 group by session_id),
       funnel as (
         select (started at time zone 'Asia/Riyadh')::date as day, count(*)::int as sessions, count(*) filter (where viewed)::int as viewed,
                count(*) filter (where carted)::int as carted, count(*) filter (where quoted)::int as quoted,
                count(*) filter (where ordered)::int as ordered
         from per_session group by 1),
       placed as (select (placed_at at time zone 'Asia/Riyadh')::date as day, count(*)::int as orders from orders where store_id = $1 group by 1)
       select coalesce(f.day, p.day)::text as day, coalesce(f.sessions, 0) as sessions, coalesce(f.viewed, 0) as viewed,
              coalesce(f.carted, 0) as carted, coalesce(f.quoted, 0) as quoted, coalesce(f.ordered, 0) as ordered, coalesce(p.orders, 0) as orders
       from funnel f full join placed p on p.day = f.day order by 1`,
      [a],
    );
    // Every local day of the history, none missing.
    expect(days[0].day).toBe('2025-05-22');
    expect(days.at(-1)!.day).toBe('2026-11-20');
    expect(days).toHaveLength((Date.parse('2026-11-20') - Date.parse('2025-05-22')) / DAY + 1);
    for (const day of days) {
      const steps = [day.sessions, day.viewed, day.carted, day.quoted, day.ordered];
      expect(steps, day.day).toEqual([...steps].sort((x, y) => y - x));
      expect(day.ordered, day.day).toBe(day.orders);
      expect(day.sessions, day.day).toBeGreaterThan(0);
    }

    const sum = (pick: (day: (typeof days)[number]) => number) => days.reduce((total, day) => total + pick(day), 0);
    const sessions = sum((day) => day.sessions);
    expect(sum((day) => day.ordered)).toBe(ORDERS);
    expect(sum((day) => day.viewed) / sessions).toBeGreaterThan(0.55);
    expect(sum((day) => day.viewed) / sessions).toBeLessThan(0.65);
    expect(sum((day) => day.carted) / sessions).toBeGreaterThan(0.08);
    expect(sum((day) => day.carted) / sessions).toBeLessThan(0.13);
    expect(sum((day) => day.quoted) / sessions).toBeGreaterThan(0.04);
    expect(sum((day) => day.quoted) / sessions).toBeLessThan(0.065);
    expect(ORDERS / sessions).toBeGreaterThan(0.028);
    expect(ORDERS / sessions).toBeLessThan(0.032);

    // Each day converts at 2-4 % or near it (a day's few orders are whole numbers), sales days better.
    const conversion = (list: typeof days) => list.reduce((n, day) => n + day.ordered, 0) / list.reduce((n, day) => n + day.sessions, 0);
    const usual = days.filter((day) => day.ordered / day.sessions >= 0.015 && day.ordered / day.sessions <= 0.05);
    expect(usual.length / days.length).toBeGreaterThan(0.9);
    const sales = days.filter((day) => ['2025-11-11', '2025-11-28', '2025-11-29', '2025-11-30', '2025-12-01'].includes(day.day));
    const around = days.filter((day) => day.day >= '2025-10-01' && day.day <= '2026-01-31' && !sales.includes(day));
    expect(sales).toHaveLength(5);
    expect(conversion(sales)).toBeGreaterThan(1.1 * conversion(around));
  });

  it('keeps each session’s events together: minutes apart, in funnel order, within its day; each order ends a session that took every step', async () => {
    const sessions = await one(
      `with gaps as (
         select session_id, kind, occurred_at, product_id,
                occurred_at - lag(occurred_at) over (partition by session_id order by occurred_at, id) as gap
         from storefront_events where store_id = $1),
       per_session as (
         select session_id, min(occurred_at) as started, max(occurred_at) as ended, max(gap) as longest_gap,
                count(*) filter (where kind = 'session_started') as starts, min(occurred_at) filter (where kind = 'session_started') as started_event,
                count(*) filter (where kind = 'product_viewed') as views, count(distinct product_id) filter (where kind = 'product_viewed') as products,
                count(*) filter (where kind = 'order_placed') as orders
         from gaps group by session_id)
       select count(*)::int as sessions,
              count(*) filter (where starts <> 1 or started_event <> started)::int as bad_start,
              count(*) filter (where (started at time zone 'Asia/Riyadh')::date <> (ended at time zone 'Asia/Riyadh')::date)::int as across_days,
              count(*) filter (where longest_gap > interval '10 minutes' or ended - started > interval '2 hours')::int as too_long,
              count(*) filter (where views <> products)::int as viewed_twice,
              count(*) filter (where orders > 1)::int as ordered_twice,
              count(*) filter (where ended >= $2)::int as future,
              (select percentile_cont(0.5) within group (order by extract(epoch from gap)) from gaps where gap is not null) as median_gap
       from per_session`,
      [a, ANCHOR],
    );
    expect(sessions).toMatchObject({ bad_start: 0, across_days: 0, too_long: 0, viewed_twice: 0, ordered_twice: 0, future: 0 });
    expect(sessions.median_gap).toBeGreaterThan(30);
    expect(sessions.median_gap).toBeLessThan(180);

    const steps = await one(
      `select count(*) filter (where e.kind = 'cart_line_added' and not exists (
                select 1 from storefront_events v where v.session_id = e.session_id and v.kind = 'product_viewed'
                  and v.product_id = e.product_id and v.occurred_at <= e.occurred_at))::int as carted_unseen,
              count(*) filter (where e.kind = 'checkout_quoted' and not exists (
                select 1 from storefront_events c where c.session_id = e.session_id and c.kind = 'cart_line_added'
                  and c.occurred_at <= e.occurred_at))::int as quoted_empty_cart,
              count(*) filter (where e.kind = 'order_placed' and not exists (
                select 1 from storefront_events q where q.session_id = e.session_id and q.kind = 'checkout_quoted'
                  and q.occurred_at <= e.occurred_at))::int as ordered_unquoted,
              count(*) filter (where e.kind in ('product_viewed', 'cart_line_added') and e.product_id is null
                                  or e.kind not in ('product_viewed', 'cart_line_added') and e.product_id is not null
                                  or (e.kind = 'order_placed') <> (e.order_id is not null))::int as wrong_columns,
              count(*) filter (where e.product_id is not null and not exists (
                select 1 from products p where p.id = e.product_id and p.store_id = e.store_id and p.created_at <= e.occurred_at))::int as unknown_products
       from storefront_events e where e.store_id = $1`,
      [a],
    );
    expect(steps).toEqual({ carted_unseen: 0, quoted_empty_cart: 0, ordered_unquoted: 0, wrong_columns: 0, unknown_products: 0 });

    const orders = await one(
      `select count(*)::int as orders, count(e.id)::int as events,
              count(*) filter (where e.occurred_at <> o.placed_at or e.session_id <> o.session_id)::int as wrong_event,
              count(*) filter (where e.occurred_at < (select max(x.occurred_at) from storefront_events x where x.session_id = e.session_id))::int as not_last,
              count(*) filter (where (select array_agg(distinct l.product_id order by l.product_id) from order_lines l where l.order_id = o.id)
                                  <> (select array_agg(distinct c.product_id order by c.product_id) from storefront_events c
                                      where c.session_id = e.session_id and c.kind = 'cart_line_added'))::int as other_products,
              count(*) filter (where s.id is null or s.api_key_id is not null or s.revoked_reason <> 'history'
                                  or s.shopper_id is distinct from o.shopper_id
                                  or s.created_at <> (select min(x.occurred_at) from storefront_events x where x.session_id = o.session_id)
                                  or s.revoked_at <> e.occurred_at)::int as wrong_session_row
       from orders o
       left join storefront_events e on e.order_id = o.id and e.kind = 'order_placed'
       left join sessions s on s.id = o.session_id
       where o.store_id = $1`,
      [a],
    );
    expect(orders).toEqual({ orders: ORDERS, events: ORDERS, wrong_event: 0, not_last: 0, other_products: 0, wrong_session_row: 0 });
  });

  it('gives every search a session, and a believable share of searching sessions adds to the cart or orders after searching', async () => {
    const searches = await one(
      `select count(*)::int as searches,
              count(*) filter (where s.id is null)::int as without_session,
              count(*) filter (where s.api_key_id is not null or s.revoked_reason is distinct from 'history' or s.store_id <> q.store_id)::int as not_history,
              count(*) filter (where q.created_at < s.created_at or q.created_at > s.revoked_at)::int as outside_session,
              count(*) filter (where q.shopper_id is distinct from s.shopper_id and q.shopper_id is not null)::int as other_shopper,
              count(*) filter (where q.shopper_id is not null)::float / count(*) as by_shoppers,
              count(*) filter (where not exists (
                select 1 from storefront_events e where e.session_id = q.session_id and e.kind = 'session_started'
                  and e.occurred_at <= q.created_at))::int as not_after_start
       from searches q left join sessions s on s.id = q.session_id where q.store_id = $1`,
      [a],
    );
    expect(searches).toMatchObject({ without_session: 0, not_history: 0, outside_session: 0, other_shopper: 0, not_after_start: 0 });
    expect(searches.by_shoppers).toBeGreaterThan(0.2);

    // Session rows are there for what names them, and nothing can act in them.
    const rows = await one(
      `select count(*)::int as rows,
              count(*) filter (where not exists (select 1 from searches q where q.session_id = s.id)
                                 and not exists (select 1 from orders o where o.session_id = s.id))::int as unnamed,
              count(*) filter (where s.revoked_at is null or s.api_key_id is not null or cardinality(s.scopes) > 0)::int as usable,
              (select count(*) from refresh_tokens r join sessions x on x.id = r.session_id where x.store_id = $1)::int as refresh_tokens
       from sessions s where s.store_id = $1`,
      [a],
    );
    expect(rows).toMatchObject({ unnamed: 0, usable: 0, refresh_tokens: 0 });
    expect(rows.rows).toBeGreaterThan(ORDERS);

    const followed = await one(
      `with searching as (select distinct session_id from searches where store_id = $1),
       after as (
         select s.session_id,
                exists (select 1 from searches q join storefront_events e on e.session_id = q.session_id and e.kind = 'cart_line_added'
                          and e.occurred_at between q.created_at and q.created_at + interval '30 minutes'
                        where q.session_id = s.session_id) as carted,
                exists (select 1 from searches q join storefront_events e on e.session_id = q.session_id and e.kind = 'order_placed'
                          and e.occurred_at between q.created_at and q.created_at + interval '30 minutes'
                        where q.session_id = s.session_id) as ordered,
                exists (select 1 from storefront_events e where e.session_id = s.session_id and e.kind = 'order_placed') as ordered_at_all
         from searching s)
       select count(*)::int as sessions, count(*) filter (where carted)::float / count(*) as carted, count(*) filter (where ordered)::float / count(*) as ordered,
              count(*) filter (where ordered_at_all)::float / count(*) as conversion
       from after`,
      [a],
    );
    expect(followed.carted).toBeGreaterThan(0.15);
    expect(followed.carted).toBeLessThan(0.3);
    expect(followed.ordered).toBeGreaterThan(0.03);
    expect(followed.ordered).toBeLessThan(0.12);
    // Searchers convert better than the 3 % of all sessions.
    expect(followed.conversion).toBeGreaterThan(0.06);
  });

  it('scales the sessions per order down for huge seeds, with the same funnel rules', async () => {
    const d = await newStore();
    await expect(t.app.get(DemoStoreService).seed(d, { orders: 10, sessionsPerOrder: 0, anchor: ANCHOR })).rejects.toBeInstanceOf(
      RangeError,
    );
    expect(await t.db.rows('select 1 from products where store_id = $1', [d])).toEqual([]);

    const seeded = await t.app
      .get(DemoStoreService)
      .seed(d, { seed: 7, orders: 300, productCount: 40, anchor: ANCHOR, sessionsPerOrder: 2 });
    expect(seeded.sessions).toBeGreaterThanOrEqual(600);
    expect(seeded.sessions).toBeLessThan(620);
    const out = await one(
      `with per_session as (
         select session_id, bool_or(kind = 'product_viewed') as viewed, bool_or(kind = 'cart_line_added') as carted,
                bool_or(kind = 'checkout_quoted') as quoted, bool_or(kind = 'order_placed') as ordered
         from storefront_events where store_id = $1 group by session_id)
       select count(*)::int as sessions, count(*) filter (where ordered and not (viewed and carted and quoted))::int as skipped_steps,
              count(*) filter (where quoted and not carted or carted and not viewed)::int as out_of_order,
              count(*) filter (where ordered)::int as ordered,
              (select count(*)::int from storefront_events where store_id = $1) as events
       from per_session`,
      [d],
    );
    expect(out).toMatchObject({
      sessions: seeded.sessions,
      skipped_steps: 0,
      out_of_order: 0,
      ordered: 300,
      events: seeded.storefrontEvents,
    });
  }, 60_000);

  it('keeps every store to itself: lines of its own variants, rows of its own shoppers and orders', async () => {
    const out = await one(
      `select
         (select count(*) from order_lines l join orders o on o.id = l.order_id where o.store_id = $1
            and (l.store_id <> o.store_id or l.variant_id is null
                 or not exists (select 1 from product_variants v where v.id = l.variant_id and v.store_id = o.store_id)))::int as foreign_lines,
         (select count(*) from orders o join shoppers s on s.id = o.shopper_id where o.store_id = $1 and s.store_id <> o.store_id)::int as foreign_buyers,
         (select count(*) from orders o join shoppers s on s.id = o.shopper_id where o.store_id = $1 and s.email <> o.email)::int as wrong_emails,
         (select count(*) from orders o join pickup_locations l on l.id = o.pickup_location_id where o.store_id = $1 and l.store_id <> o.store_id)::int as foreign_pickups,
         (select count(*) from addresses a join shoppers s on s.id = a.shopper_id where s.store_id = $1 and a.store_id <> s.store_id)::int as foreign_addresses,
         (select count(*) from payments p join orders o on o.id = p.order_id where o.store_id = $1 and p.store_id <> o.store_id)::int as foreign_payments,
         (select count(*) from searches q join shoppers s on s.id = q.shopper_id where q.store_id = $1 and s.store_id <> q.store_id)::int as foreign_searches`,
      [a],
    );
    expect(out).toEqual({
      foreign_lines: 0,
      foreign_buyers: 0,
      wrong_emails: 0,
      foreign_pickups: 0,
      foreign_addresses: 0,
      foreign_payments: 0,
      foreign_searches: 0,
    });
    const shared = await one(
      `select (select count(*) from (select email from shoppers where store_id = $1 intersect select email from shoppers where store_id = $2) x)::int as same_emails,
              (select count(*) from orders o1 join orders o2 on o2.id = o1.id where o1.store_id = $1 and o2.store_id = $2)::int as shared_orders,
              (select count(*) from order_lines l join product_variants v on v.id = l.variant_id where l.store_id = $1 and v.store_id = $2)::int as cross_variants`,
      [a, b],
    );
    // Same seed, same people, but each store has rows of its own.
    expect(shared.same_emails).toBeGreaterThan(0);
    expect(shared).toMatchObject({ shared_orders: 0, cross_variants: 0 });
  });

  it('refuses a store that already has a catalogue or activity, writing nothing', async () => {
    const before = await fingerprint(a);
    await expect(seed(a, 7)).rejects.toBeInstanceOf(CatalogueNotEmptyError);
    expect(await fingerprint(a)).toEqual(before);

    // Activity without a catalogue (a shopper signed up): refused before the catalogue is written.
    const d = await newStore();
    await t.db.query(`insert into shoppers (store_id, email, email_normalized) values ($1, 'x@example.com', 'x@example.com')`, [d]);
    await expect(seed(d, 7)).rejects.toBeInstanceOf(StoreHasActivityError);
    const written = await one(`select (select count(*) from products where store_id = $1)::int as products`, [d]);
    expect(written.products).toBe(0);
  });
});
