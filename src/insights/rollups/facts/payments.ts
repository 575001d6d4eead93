import { sql, type RawBuilder } from 'kysely';
import { ROLLUPS } from '../rollup-tables.js';
import { ORDER_KEYS, orders } from './sales.js';
import { addInto, measures, scoped, statement, type FactParts, type FoldScope } from './statements.js';

const payments = ROLLUPS.paymentsHourly;

/** The facts of the scope's orders paid: the money taken, with the order's keys. */
export function paidFacts(scope: FoldScope): FactParts {
  return [
    ['paid', orders(sql`${scoped(scope, 'o', 'paid_at')} and o.paid_at is not null`, scope, true)],
    [
      'capture_facts',
      sql`select o.store_id, o.paid_at as at, o.tz, ${ORDER_KEYS}, ${measures(payments, {
        captured_count: sql`1`,
        captured_amount: sql`o.total`,
      })} from paid o`,
    ],
  ];
}

export function orderPaid(scope: FoldScope): RawBuilder<unknown>[] {
  return [statement(paidFacts(scope), addInto([payments], 'capture_facts'))];
}

/** A card declined at checkout: no order was placed, so it has no keys but its method. */
export function paymentDeclined(scope: FoldScope): RawBuilder<unknown>[] {
  return [
    statement(
      [
        [
          'failure_facts',
          sql`select p.store_id, p.created_at as at, s.timezone as tz, p.method as payment_method, ${measures(payments, {
            failed_count: sql`1`,
            failed_amount: sql`p.amount`,
          })} from payments p join stores s on s.id = p.store_id where ${scoped(scope, 'p', 'created_at')} and p.status = 'declined'`,
        ],
      ],
      addInto([payments], 'failure_facts'),
    ),
  ];
}
