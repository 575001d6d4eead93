import type { RawBuilder } from 'kysely';
import { stepFacts } from './fulfilment.js';
import { paidFacts } from './payments.js';
import { cancelledFacts, placedFacts, refundFacts } from './sales.js';
import { factRows, type WindowScope } from './statements.js';

/**
 * The facts of a store's orders within a window, computed exactly as the folds compute them, each
 * with its order's keys and customer: what the builder reads when no rollup holds the dimensions a
 * question uses. `sales` per order (placed, cancelled, refunded), `lines` per order line,
 * `placed_lines` and `placed_orders` the lines and the orders placed, `payments` the money authorised, taken, released and
 * paid back (a card declined at checkout has no order, and is not among them), `fulfilment` the
 * orders shipped, made ready and delivered, and the promises made, withdrawn, kept and broken (on the
 * day they were due).
 */
const ORDER_RECORDS = {
  sales: ['placed_sales_facts', 'cancelled_sales_facts', 'refund_sales_facts'],
  lines: ['placed_line_facts', 'cancelled_line_facts', 'refund_line_facts'],
  placed_lines: ['placed_line_facts'],
  placed_orders: ['placed_sales_facts'],
  payments: ['placed_authorisation_facts', 'capture_facts', 'cancelled_void_facts', 'refund_payment_facts'],
  fulfilment: [
    'shipped_facts',
    'ready_facts',
    'delivered_facts',
    'ready_promise_facts',
    'delivered_promise_facts',
    'placed_promise_facts',
    'cancelled_promise_facts',
  ],
};

/** The facts of `kind` within the scope's window; of each, only the `columns` asked for. */
export function orderRecords(scope: WindowScope, kind: keyof typeof ORDER_RECORDS, columns: readonly string[]): RawBuilder<unknown> {
  const parts = [
    ...placedFacts(scope),
    ...cancelledFacts(scope),
    ...refundFacts(scope),
    ...paidFacts(scope),
    ...(['shipped', 'ready', 'delivered'] as const).flatMap((step) => stepFacts(scope, step)),
  ];
  return factRows(parts, ORDER_RECORDS[kind], columns);
}
