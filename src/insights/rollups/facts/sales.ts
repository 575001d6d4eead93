import { sql, type RawBuilder } from 'kysely';
import { COUNTED_ORDERS } from '../counted-orders.js';
import { NONE_ID, ROLLUPS } from '../rollup-tables.js';
import { addInto, measures, scoped, statement, type FactParts, type FoldScope } from './statements.js';

// An order placed, cancelled or refunded: its sales, lines, customers, cohorts and customers' sales, and from
// the same snapshot the promise it makes or withdraws (fulfilment) and the money authorised, voided or paid back.

/**
 * The customers rollup: per store, grouping, day and group value, the orders, the first orders, and
 * the cumulative counts of the gaps (in days) back to each order's previous one (in the grouping),
 * for all repeat orders and for second orders. The facts carry `gap` (null without a previous order),
 * `first_orders` and `second`.
 */
function customerFold(facts: string): RawBuilder<unknown> {
  return sql`
    insert into insights_customers_daily (store_id, grouping, day, group_value, orders, first_orders, repeat_gaps, second_gaps)
    select f.store_id, f.grouping, (f.at at time zone f.tz)::date, f.group_value, count(*), sum(f.first_orders),
           insights_cumulative(coalesce(array_agg(f.gap) filter (where f.gap is not null), '{}')),
           insights_cumulative(coalesce(array_agg(f.gap) filter (where f.second), '{}'))
    from ${sql.table(facts)} f group by 1, 2, 3, 4
    on conflict (store_id, grouping, day, group_value) do update set
      orders = insights_customers_daily.orders + excluded.orders,
      first_orders = insights_customers_daily.first_orders + excluded.first_orders,
      repeat_gaps = insights_add_cumulative(insights_customers_daily.repeat_gaps, excluded.repeat_gaps),
      second_gaps = insights_add_cumulative(insights_customers_daily.second_gaps, excluded.second_gaps)`;
}

// ---------------------------------------------------------------------------------------------
// Orders: each order with what its facts need, computed once.

/**
 * The scoped orders with their store's time zone, their place in their customer's history (a
 * customer is an email address) and their money without tax: goods, discounts, shipping. Facts that
 * read the history only for the records path (`lookedUp`) look it up order by order, so that a fold,
 * which never reads it, never computes it, even for a whole store.
 */
export function orders(where: RawBuilder<unknown>, scope: FoldScope, lookedUp = false): RawBuilder<unknown> {
  return sql`
    select o.id, o.store_id, s.timezone as tz, o.email, o.placed_at, o.paid_at, o.shipped_at, o.ready_at, o.delivered_at,
           o.cancelled_at, o.promised_by, o.late_after, o.payment_method, o.fulfilment_type, coalesce(o.shipping_method_code, '') as shipping_method,
           o.locale, o.tax_rate_bps, o.prices_include_tax, o.item_count, o.total, o.tax_total, o.shipping_total,
           case when o.placed_as_guest then 'guest' else 'registered' end as customer_kind,
           case when history.earlier_any > 0 then 'returning' else 'new' end as customer_type,
           history.first_at, history.previous_any, history.earlier_any, history.first_kind, history.previous_kind,
           history.earlier_kind, history.first_locale, history.previous_locale, history.earlier_locale,
           date_trunc('month', coalesce(history.first_at, o.placed_at) at time zone s.timezone)::date as cohort_month,
           customer.id as customer_id,
           lines.gross, o.tax_total - lines.tax as shipping_tax,
           o.shipping_total - case when o.prices_include_tax then o.tax_total - lines.tax else 0 end as shipping_net,
           case when o.prices_include_tax then o.discount_total - insights_share(o.discount_total, o.tax_rate_bps, 10000 + o.tax_rate_bps)
                else o.discount_total end as discounts
    from ${COUNTED_ORDERS} o
    join stores s on s.id = o.store_id
    left join lateral (
      select coalesce(sum(l.line_total - case when o.prices_include_tax then l.tax_amount else 0 end), 0)::bigint as gross,
             coalesce(sum(l.tax_amount), 0)::bigint as tax
      from order_lines l where l.order_id = o.id
    ) lines on true
    ${'storeId' in scope && !('window' in scope) && !lookedUp ? storeHistory(scope.storeId) : orderHistory}
    left join insights_customers customer on customer.store_id = o.store_id and customer.email = lower(o.email)
    where ${where}`;
}

/**
 * Each order's place in its customer's history, among all of them, those placed the same way (signed
 * in or as a guest) and those in the same language: the first and the latest earlier order, and how
 * many came before (counted up to 2: none, one, more is all that matters). `orderHistory` looks up
 * a few orders' customers through the customer index, a handful of rows each however long their
 * history; `storeHistory` walks a whole store's orders once, for a rebuild. The rollups test proves
 * the two agree.
 */
const EARLIER = sql`p.store_id = o.store_id and lower(p.email) = lower(o.email) and (p.placed_at, p.id) < (o.placed_at, o.id)`;

function lookup(alike: RawBuilder<unknown>) {
  return {
    first: sql`(select p.placed_at from ${COUNTED_ORDERS} p where ${EARLIER} and ${alike} order by p.placed_at, p.id limit 1)`,
    previous: sql`(select p.placed_at from ${COUNTED_ORDERS} p where ${EARLIER} and ${alike} order by p.placed_at desc, p.id desc limit 1)`,
    earlier: sql`(select count(*) from (select 1 from ${COUNTED_ORDERS} p where ${EARLIER} and ${alike} limit 2) capped)`,
  };
}

const orderHistory = (() => {
  const any = lookup(sql`true`);
  const kind = lookup(sql`p.placed_as_guest = o.placed_as_guest`);
  const locale = lookup(sql`p.locale = o.locale`);
  return sql`cross join lateral (
    select ${any.first} as first_at, ${any.previous} as previous_any, ${any.earlier} as earlier_any,
           ${kind.first} as first_kind, ${kind.previous} as previous_kind, ${kind.earlier} as earlier_kind,
           ${locale.first} as first_locale, ${locale.previous} as previous_locale, ${locale.earlier} as earlier_locale
  ) history`;
})();

function storeHistory(storeId: string): RawBuilder<unknown> {
  const within = (partition: RawBuilder<unknown>) => ({
    first: sql`min(p.placed_at) over (partition by ${partition} order by p.placed_at, p.id rows between unbounded preceding and 1 preceding)`,
    previous: sql`lag(p.placed_at) over (partition by ${partition} order by p.placed_at, p.id)`,
    earlier: sql`least(row_number() over (partition by ${partition} order by p.placed_at, p.id) - 1, 2)`,
  });
  const any = within(sql`lower(p.email)`);
  const kind = within(sql`lower(p.email), p.placed_as_guest`);
  const locale = within(sql`lower(p.email), p.locale`);
  return sql`join (
    select p.id, ${any.first} as first_at, ${any.previous} as previous_any, ${any.earlier} as earlier_any,
           ${kind.first} as first_kind, ${kind.previous} as previous_kind, ${kind.earlier} as earlier_kind,
           ${locale.first} as first_locale, ${locale.previous} as previous_locale, ${locale.earlier} as earlier_locale
    from ${COUNTED_ORDERS} p where p.store_id = ${storeId}::uuid
  ) history on history.id = o.id`;
}

/** An order line's value without tax. */
const LINE_GROSS = sql`(l.line_total - case when o.prices_include_tax then l.tax_amount else 0 end)`;

/**
 * The returned units of the scoped refunds (not cancellations), each with its value without tax:
 * what was paid back for it minus its share of the line's tax, the share of units returned before
 * taken into account so that a line returned in parts gives back exactly its tax.
 */
function returnedLines(scope: FoldScope): RawBuilder<unknown> {
  return sql`
    with scoped as (
      select r.id, r.created_at, rl.order_line_id, rl.quantity, rl.amount
      from refunds r join refund_lines rl on rl.refund_id = r.id
      where ${scoped(scope, 'r', 'created_at')} and r.reason = 'return'
    ), returned_before as (
      -- every refund of the lines concerned, with the units of the line refunded before it
      select rl.refund_id, rl.order_line_id,
             coalesce(sum(rl.quantity) over (partition by rl.order_line_id order by r.created_at, r.id
                                             rows between unbounded preceding and 1 preceding), 0) as quantity
      from refund_lines rl join refunds r on r.id = rl.refund_id
      where rl.order_line_id in (select order_line_id from scoped)
    )
    select x.id as refund_id, x.created_at as at, l.order_id, x.quantity, ${LINE_KEYS}, x.amount - tax.part as value, tax.part as tax
    from scoped x
    join returned_before before on before.refund_id = x.id and before.order_line_id = x.order_line_id
    join order_lines l on l.id = x.order_line_id
    cross join lateral (
      select insights_share(l.tax_amount, before.quantity + x.quantity, l.quantity) - insights_share(l.tax_amount, before.quantity, l.quantity) as part
    ) tax`;
}

/** The shipping part of the scoped refunds (not cancellations), split into its value without tax and its tax. */
function refundedShipping(scope: FoldScope): RawBuilder<unknown> {
  return sql`
    select r.id as refund_id, r.order_id, r.created_at as at, r.shipping_amount - tax.part as value, tax.part as tax
    from refunds r
    cross join lateral (
      select insights_share(r.shipping_amount, o.shipping_tax, o.shipping_total + case when o.prices_include_tax then 0 else o.shipping_tax end) as part
      from (select shipping_total, prices_include_tax, tax_total - (select coalesce(sum(tax_amount), 0) from order_lines where order_id = r.order_id) as shipping_tax
            from orders where id = r.order_id) o
    ) tax
    where ${scoped(scope, 'r', 'created_at')} and r.reason = 'return' and r.shipping_amount > 0`;
}

/**
 * 1 for the line `l` that is its order's first (by position) with the same `keys`, else 0: summed, the
 * orders that contained each group of that level. Asked of the order's lines one line at a time (not
 * with a window over all of them), so that the records path computes it only for the lines its
 * question keeps, and not at all when it does not count orders.
 */
function firstOfOrder(keys: string[]): RawBuilder<unknown> {
  const same = keys.map((key) => sql`${sql.ref(`e.${key}`)} is not distinct from ${sql.ref(`l.${key}`)}`);
  return sql`(not exists (select 1 from order_lines e where e.order_id = l.order_id and ${sql.join(same, sql` and `)}
                and (e.position, e.id) < (l.position, l.id)))::int`;
}

/** A line's product keys, "none" for what it does not have (or no longer has). */
const LINE_KEYS = sql`coalesce(l.variant_id, ${NONE_ID}::uuid) as variant_id, coalesce(l.product_id, ${NONE_ID}::uuid) as product_id,
                      coalesce(l.category_id, ${NONE_ID}::uuid) as category_id, coalesce(l.brand_id, ${NONE_ID}::uuid) as brand_id`;

const SALES_KEYS = sql`o.payment_method, o.fulfilment_type, o.shipping_method, o.customer_type, o.customer_kind, o.locale, o.tax_rate_bps`;
/**
 * What an order's facts carry beyond the keys of the tables they are added into, for the records path
 * to split and filter by: the order's sales keys on its lines, and its customer on both.
 */
export const ORDER_KEYS = sql`${SALES_KEYS}, o.customer_id`;
const SALES_TABLES = [ROLLUPS.salesDaily, ROLLUPS.salesHourly, ROLLUPS.salesMonthly, ROLLUPS.salesTotalsDaily];
const PRODUCT_TABLES = [ROLLUPS.productsDaily, ROLLUPS.productsMonthly];
const CUSTOMER_SALES_TABLES = [ROLLUPS.customerSalesDaily, ROLLUPS.customerTotals];
const sales = ROLLUPS.salesDaily;
const products = ROLLUPS.productsDaily;
const customerSales = ROLLUPS.customerSalesDaily;
const cohorts = ROLLUPS.cohortsMonthly;
const fulfilment = ROLLUPS.fulfilmentHourly;
const payments = ROLLUPS.paymentsHourly;

/**
 * Customers the orders belong to, known by a number in the rollups of customers' sales: registered
 * by whichever of an order's changes is folded first.
 */
function registerCustomers(where: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    insert into insights_customers (store_id, email)
    select distinct o.store_id, lower(o.email) from ${COUNTED_ORDERS} o where ${where}
    on conflict (store_id, email) do nothing`;
}

/** The facts of the scope's orders as placed: sales, lines, customers, cohorts, customers' sales, promises and authorisations. */
export function placedFacts(scope: FoldScope): FactParts {
  return [
    ['placed', orders(scoped(scope, 'o', 'placed_at'), scope)],
    [
      'placed_sales_facts',
      sql`select o.store_id, o.placed_at as at, o.tz, ${ORDER_KEYS}, ${measures(sales, {
        orders: sql`1`,
        gross_sales: sql`o.gross`,
        discounts: sql`o.discounts`,
        shipping: sql`o.shipping_net`,
        taxes_collected: sql`o.tax_total`,
        units_sold: sql`o.item_count`,
      })} from placed o`,
    ],
    [
      'placed_line_facts',
      sql`select o.store_id, o.placed_at as at, o.tz, ${LINE_KEYS}, ${ORDER_KEYS}, ${measures(products, {
        units_sold: sql`l.quantity`,
        gross_sales: LINE_GROSS,
        variant_orders: firstOfOrder(['variant_id']),
        product_orders: firstOfOrder(['product_id']),
        category_orders: firstOfOrder(['category_id']),
        brand_orders: firstOfOrder(['brand_id']),
        category_brand_orders: firstOfOrder(['category_id', 'brand_id']),
      })} from placed o join order_lines l on l.order_id = o.id`,
    ],
    // The customer counts once in a range when this order is in it and their previous order (in the grouping) is not.
    // New: the order is their first of all. Second: their second in the grouping, whose first was their first of all.
    [
      'placed_customer_facts',
      sql`select o.store_id, o.placed_at as at, o.tz, g.grouping, g.group_value,
                 (o.placed_at at time zone o.tz)::date - (g.previous at time zone o.tz)::date as gap,
                 (o.earlier_any = 0)::int as first_orders, g.earlier = 1 and g.first = o.first_at as second
          from placed o
          cross join lateral (values ('all', '', o.first_at, o.previous_any, o.earlier_any),
                                     ('customer_kind', o.customer_kind, o.first_kind, o.previous_kind, o.earlier_kind),
                                     ('locale', o.locale, o.first_locale, o.previous_locale, o.earlier_locale))
            as g(grouping, group_value, first, previous, earlier)`,
    ],
    [
      'placed_cohort_facts',
      sql`select o.store_id, o.placed_at as at, o.tz, o.cohort_month, ${measures(cohorts, {
        // once per customer and month: when their latest earlier order is in an earlier month
        customers: sql`(o.previous_any is null
          or date_trunc('month', o.previous_any at time zone o.tz) < date_trunc('month', o.placed_at at time zone o.tz))::int`,
        orders: sql`1`,
        gross_sales: sql`o.gross - o.discounts`,
      })} from placed o`,
    ],
    [
      'placed_customer_sales_facts',
      sql`select o.store_id, o.placed_at as at, o.tz, o.customer_id, ${measures(customerSales, {
        orders: sql`1`,
        gross_sales: sql`o.gross`,
        discounts: sql`o.discounts`,
      })} from placed o`,
    ],
    // a promise is counted on the day it is due: its orders are the scope's by when that is
    ['promising', orders(scoped(scope, 'o', 'promised_by'), scope, true)],
    [
      'placed_promise_facts',
      sql`select o.store_id, o.promised_by as at, o.tz, ${ORDER_KEYS}, ${measures(fulfilment, {
        promised_orders: sql`1`,
      })} from promising o`,
    ],
    [
      'placed_authorisation_facts',
      sql`select o.store_id, o.placed_at as at, o.tz, ${ORDER_KEYS}, ${measures(payments, {
        authorised_count: sql`1`,
        authorised_amount: sql`o.total`,
      })} from placed o where o.payment_method = 'card'`,
    ],
  ];
}

export function orderPlaced(scope: FoldScope): RawBuilder<unknown>[] {
  return [
    registerCustomers(scoped(scope, 'o', 'placed_at')),
    statement(placedFacts(scope), [
      ...addInto(SALES_TABLES, 'placed_sales_facts'),
      ...addInto(PRODUCT_TABLES, 'placed_line_facts'),
      customerFold('placed_customer_facts'),
      ...addInto([cohorts], 'placed_cohort_facts'),
      ...addInto(CUSTOMER_SALES_TABLES, 'placed_customer_sales_facts'),
      ...addInto([fulfilment], 'placed_promise_facts'),
      ...addInto([payments], 'placed_authorisation_facts'),
    ]),
  ];
}

/** The facts of the scope's cancelled orders: all they sold taken back, their promises withdrawn, unpaid money released. */
export function cancelledFacts(scope: FoldScope): FactParts {
  return [
    ['cancelled', orders(sql`${scoped(scope, 'o', 'cancelled_at')} and o.cancelled_at is not null`, scope)],
    [
      'cancelled_sales_facts',
      sql`select o.store_id, o.cancelled_at as at, o.tz, ${ORDER_KEYS}, ${measures(sales, {
        returns: sql`o.gross - o.discounts`,
        shipping: sql`-o.shipping_net`,
        taxes_refunded: sql`o.tax_total`,
        units_returned: sql`o.item_count`,
        cancelled_orders: sql`1`,
      })} from cancelled o`,
    ],
    [
      'cancelled_line_facts',
      sql`select o.store_id, o.cancelled_at as at, o.tz, ${LINE_KEYS}, ${ORDER_KEYS}, ${measures(products, {
        units_returned: sql`l.quantity`,
        returns: LINE_GROSS,
      })} from cancelled o join order_lines l on l.order_id = o.id`,
    ],
    [
      'cancelled_cohort_facts',
      sql`select o.store_id, o.cancelled_at as at, o.tz, o.cohort_month, ${measures(cohorts, {
        returns: sql`o.gross - o.discounts`,
      })} from cancelled o`,
    ],
    [
      'cancelled_customer_sales_facts',
      sql`select o.store_id, o.cancelled_at as at, o.tz, o.customer_id, ${measures(customerSales, {
        returns: sql`o.gross - o.discounts`,
      })} from cancelled o`,
    ],
    // a cancelled order is no longer a promise to keep
    ['withdrawn', orders(sql`${scoped(scope, 'o', 'promised_by')} and o.cancelled_at is not null`, scope, true)],
    [
      'cancelled_promise_facts',
      sql`select o.store_id, o.promised_by as at, o.tz, ${ORDER_KEYS}, ${measures(fulfilment, {
        promised_orders: sql`-1`,
      })} from withdrawn o`,
    ],
    // money that was never taken is released
    [
      'cancelled_void_facts',
      sql`select o.store_id, o.cancelled_at as at, o.tz, ${ORDER_KEYS}, ${measures(payments, {
        voided_count: sql`1`,
        voided_amount: sql`o.total`,
      })} from cancelled o where o.paid_at is null`,
    ],
  ];
}

export function orderCancelled(scope: FoldScope): RawBuilder<unknown>[] {
  return [
    registerCustomers(sql`${scoped(scope, 'o', 'cancelled_at')} and o.cancelled_at is not null`),
    statement(cancelledFacts(scope), [
      ...addInto(SALES_TABLES, 'cancelled_sales_facts'),
      ...addInto(PRODUCT_TABLES, 'cancelled_line_facts'),
      ...addInto([cohorts], 'cancelled_cohort_facts'),
      ...addInto(CUSTOMER_SALES_TABLES, 'cancelled_customer_sales_facts'),
      ...addInto([fulfilment], 'cancelled_promise_facts'),
      ...addInto([payments], 'cancelled_void_facts'),
    ]),
  ];
}

/** The facts of the scope's refunds: returned goods and shipping, and every refund as money paid back. */
export function refundFacts(scope: FoldScope): FactParts {
  return [
    ['returned', returnedLines(scope)],
    ['shipping_back', refundedShipping(scope)],
    [
      'refunded',
      orders(sql`o.id in (select r.order_id from refunds r where ${scoped(scope, 'r', 'created_at')} and r.reason = 'return')`, scope),
    ],
    [
      'refund_sales_facts',
      sql`select o.store_id, x.at, o.tz, ${ORDER_KEYS}, ${measures(sales, {
        returns: sql`x.returns`,
        shipping: sql`-x.shipping`,
        taxes_refunded: sql`x.tax`,
        units_returned: sql`x.units`,
      })}
          from (select order_id, at, value as returns, 0::bigint as shipping, tax, quantity as units from returned
                union all
                select order_id, at, 0, value, tax, 0 from shipping_back) x
          join refunded o on o.id = x.order_id`,
    ],
    [
      'refund_line_facts',
      sql`select o.store_id, l.at, o.tz, ${LINE_KEYS}, ${ORDER_KEYS}, ${measures(products, {
        units_returned: sql`l.quantity`,
        returns: sql`l.value`,
      })} from returned l join refunded o on o.id = l.order_id`,
    ],
    [
      'refund_cohort_facts',
      sql`select o.store_id, l.at, o.tz, o.cohort_month, ${measures(cohorts, { returns: sql`l.value` })}
          from returned l join refunded o on o.id = l.order_id`,
    ],
    [
      'refund_customer_sales_facts',
      sql`select o.store_id, l.at, o.tz, o.customer_id, ${measures(customerSales, { returns: sql`l.value` })}
          from returned l join refunded o on o.id = l.order_id`,
    ],
    // every refund is money paid back, a cancellation's included
    ['paid_back', orders(sql`o.id in (select r.order_id from refunds r where ${scoped(scope, 'r', 'created_at')})`, scope, true)],
    [
      'refund_payment_facts',
      sql`select r.store_id, r.created_at as at, o.tz, ${ORDER_KEYS}, ${measures(payments, {
        refunded_count: sql`1`,
        refunded_amount: sql`r.amount`,
      })}
          from refunds r join paid_back o on o.id = r.order_id
          where ${scoped(scope, 'r', 'created_at')}`,
    ],
  ];
}

export function refunded(scope: FoldScope): RawBuilder<unknown>[] {
  return [
    registerCustomers(sql`o.id in (select r.order_id from refunds r where ${scoped(scope, 'r', 'created_at')})`),
    statement(refundFacts(scope), [
      ...addInto(SALES_TABLES, 'refund_sales_facts'),
      ...addInto(PRODUCT_TABLES, 'refund_line_facts'),
      ...addInto([cohorts], 'refund_cohort_facts'),
      ...addInto(CUSTOMER_SALES_TABLES, 'refund_customer_sales_facts'),
      ...addInto([payments], 'refund_payment_facts'),
    ]),
  ];
}
