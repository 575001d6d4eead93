import { sql, type RawBuilder } from 'kysely';
import { COUNTED_ORDERS } from '../counted-orders.js';
import { ROLLUPS } from '../rollup-tables.js';
import { addInto, measures, scoped, statement, type FoldScope } from './statements.js';

const fulfilment = ROLLUPS.fulfilmentHourly;

/**
 * An order shipped, ready for pickup or delivered: counted in the hour it happened with the seconds
 * it took from placement. A delivery delivered, or a pickup made ready, after its promise and the
 * store's grace (`late_after`) is late, by then kept; either is counted in the hour of the promise.
 */
export function fulfilmentStep(scope: FoldScope, step: 'shipped' | 'ready' | 'delivered'): RawBuilder<unknown>[] {
  const at = sql.ref(`o.${step}_at`);
  const counted: Record<string, RawBuilder<unknown>> = {
    shipped: { shipped_orders: sql`1`, ship_seconds: sql`round(extract(epoch from o.shipped_at - o.placed_at))::bigint` },
    ready: { ready_orders: sql`1`, ready_seconds: sql`round(extract(epoch from o.ready_at - o.placed_at))::bigint` },
    delivered: { delivered_orders: sql`1`, deliver_seconds: sql`round(extract(epoch from o.delivered_at - o.placed_at))::bigint` },
  }[step];
  // Kept or late: a delivery delivered, or a pickup made ready, by its promise (and grace) or after it.
  const promiseKind = { shipped: null, ready: 'pickup', delivered: 'delivery' }[step];
  const promise = promiseKind
    ? sql`union all
          select o.store_id, o.promised_by as at, o.tz, o.fulfilment_type, o.shipping_method, ${measures(fulfilment, {
            late_orders: sql`(${at} > o.late_after)::int`,
            kept_orders: sql`(${at} <= o.late_after)::int`,
          })}
          from stepped o where o.fulfilment_type = ${promiseKind}`
    : sql``;
  return [
    statement(
      [
        [
          'stepped',
          sql`select o.*, s.timezone as tz, coalesce(o.shipping_method_code, '') as shipping_method
              from ${COUNTED_ORDERS} o join stores s on s.id = o.store_id where ${scoped(scope, 'o', `${step}_at`)} and ${at} is not null`,
        ],
        [
          'step_facts',
          sql`select o.store_id, ${at} as at, o.tz, o.fulfilment_type, o.shipping_method, ${measures(fulfilment, counted)}
              from stepped o ${promise}`,
        ],
      ],
      addInto([fulfilment], 'step_facts'),
    ),
  ];
}
