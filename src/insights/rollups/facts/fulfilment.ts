import { sql, type RawBuilder } from 'kysely';
import { ROLLUPS } from '../rollup-tables.js';
import { ORDER_KEYS, orders } from './sales.js';
import { addInto, measures, scoped, statement, type FactParts, type FoldScope } from './statements.js';

const fulfilment = ROLLUPS.fulfilmentHourly;

/**
 * An order shipped, ready for pickup or delivered: counted in the hour it happened with the seconds
 * it took from placement, with the order's keys and customer. A delivery delivered, or a pickup made
 * ready, after its promise and the store's grace (`late_after`) is late, by then kept; either is
 * counted in the hour of the promise.
 */
export function stepFacts(scope: FoldScope, step: FulfilmentStep): FactParts {
  const at = sql.ref(`o.${step}_at`);
  const counted: Record<string, RawBuilder<unknown>> = {
    shipped: { shipped_orders: sql`1`, ship_seconds: sql`round(extract(epoch from o.shipped_at - o.placed_at))::bigint` },
    ready: { ready_orders: sql`1`, ready_seconds: sql`round(extract(epoch from o.ready_at - o.placed_at))::bigint` },
    delivered: { delivered_orders: sql`1`, deliver_seconds: sql`round(extract(epoch from o.delivered_at - o.placed_at))::bigint` },
  }[step];
  const stepped = sql`${scoped(scope, 'o', `${step}_at`)} and ${at} is not null`;
  const parts: FactParts = [
    [`${step}_orders`, orders(stepped, scope, true)],
    [
      `${step}_facts`,
      sql`select o.store_id, ${at} as at, o.tz, ${ORDER_KEYS}, ${measures(fulfilment, counted)} from ${sql.table(`${step}_orders`)} o`,
    ],
  ];
  // Kept or late: a delivery delivered, or a pickup made ready, by its promise (and grace) or after it.
  const promiseKind = { shipped: null, ready: 'pickup', delivered: 'delivery' }[step];
  if (!promiseKind) return parts;
  return [
    ...parts,
    // counted on the day of the promise: its orders are the scope's by when that is
    [
      `${step}_promised_orders`,
      orders(sql`${scoped(scope, 'o', 'promised_by')} and ${at} is not null and o.fulfilment_type = ${promiseKind}`, scope, true),
    ],
    [
      `${step}_promise_facts`,
      sql`select o.store_id, o.promised_by as at, o.tz, ${ORDER_KEYS}, ${measures(fulfilment, {
        late_orders: sql`(${at} > o.late_after)::int`,
        kept_orders: sql`(${at} <= o.late_after)::int`,
      })} from ${sql.table(`${step}_promised_orders`)} o`,
    ],
  ];
}

export type FulfilmentStep = 'shipped' | 'ready' | 'delivered';

export function fulfilmentStep(scope: FoldScope, step: FulfilmentStep): RawBuilder<unknown>[] {
  const parts = stepFacts(scope, step);
  const facts = parts.map(([name]) => name).filter((name) => name.endsWith('_facts'));
  // one insert per table and statement: the step's facts and its promise's, together
  const all: FactParts = [
    [
      `${step}_all_facts`,
      sql.join(
        facts.map((name) => sql`select * from ${sql.table(name)}`),
        sql` union all `,
      ),
    ],
  ];
  return [statement([...parts, ...all], addInto([fulfilment], `${step}_all_facts`))];
}
