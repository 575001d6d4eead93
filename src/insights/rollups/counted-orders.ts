import { sql, type RawBuilder } from 'kysely';

/**
 * Orders under their store's Insights settings (the defaults where it has none), the one place the
 * settings' rules about orders are applied: `counted` is false for a test order of a store that
 * leaves test orders out (by default it does), and `late_after` is the promise plus the store's grace,
 * after which a delivery (or a pickup made ready) is late and an open order is past its promise.
 * The folds and a rebuild read orders through it, and so do the reports that read orders themselves,
 * so every figure agrees.
 */
const ORDERS_UNDER_SETTINGS = sql`(
  select o.*, not (o.test and coalesce(i.exclude_test_orders, true)) as counted,
         o.promised_by + make_interval(hours => coalesce(i.late_after_hours, 0)) as late_after
  from orders o left join insights_settings i on i.store_id = o.store_id)`;

/** The orders Insights counts, each with its `late_after`: use it as `from ${COUNTED_ORDERS} o`. */
export const COUNTED_ORDERS = sql`(select * from ${ORDERS_UNDER_SETTINGS} o where o.counted)`;

/**
 * Whether `orderId` names an order Insights leaves out (a storefront event's order). Asked of the
 * order, not of its absence from COUNTED_ORDERS: no order, or one not yet visible, is not left out.
 */
export function leftOutOrder(orderId: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`exists (select 1 from ${ORDERS_UNDER_SETTINGS} o where o.id = ${orderId} and not o.counted)`;
}
