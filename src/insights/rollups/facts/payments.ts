import { sql, type RawBuilder } from 'kysely';
import { COUNTED_ORDERS } from '../counted-orders.js';
import { ROLLUPS } from '../rollup-tables.js';
import { addInto, measures, scoped, statement, type FoldScope } from './statements.js';

const payments = ROLLUPS.paymentsHourly;

export function orderPaid(scope: FoldScope): RawBuilder<unknown>[] {
  return [
    statement(
      [
        [
          'capture_facts',
          sql`select o.store_id, o.paid_at as at, s.timezone as tz, o.payment_method, ${measures(payments, {
            captured_count: sql`1`,
            captured_amount: sql`o.total`,
          })} from ${COUNTED_ORDERS} o join stores s on s.id = o.store_id where ${scoped(scope, 'o', 'paid_at')} and o.paid_at is not null`,
        ],
      ],
      addInto([payments], 'capture_facts'),
    ),
  ];
}

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
