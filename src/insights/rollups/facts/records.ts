import type { RawBuilder } from 'kysely';
import { stepFacts } from './fulfilment.js';
import { paidFacts } from './payments.js';
import { cancelledFacts, placedFacts, refundFacts } from './sales.js';
import { factRows, type FactParts, type WindowScope } from './statements.js';

/**
 * The facts of a store's orders within a window, computed exactly as the folds compute them, each
 * with its order's keys and customer: what the builder reads when no rollup holds the dimensions a
 * question uses. `sales` per order (placed, cancelled, refunded), `lines` per order line,
 * `placed_lines` and `placed_orders` the lines and the orders placed, `payments` the money authorised, taken, released and
 * paid back (a card declined at checkout has no order, and is not among them), `fulfilment` the
 * orders shipped, made ready and delivered, and the promises made, withdrawn, kept and broken (on the
 * day they were due).
 */
const steps = (['shipped', 'ready', 'delivered'] as const).map((step) => (scope: WindowScope) => stepFacts(scope, step));
const ORDER_RECORDS: Record<OrderRecords, { folds: ((scope: WindowScope) => FactParts)[]; facts: string[] }> = {
  sales: {
    folds: [placedFacts, cancelledFacts, refundFacts],
    facts: ['placed_sales_facts', 'cancelled_sales_facts', 'refund_sales_facts'],
  },
  lines: { folds: [placedFacts, cancelledFacts, refundFacts], facts: ['placed_line_facts', 'cancelled_line_facts', 'refund_line_facts'] },
  placed_lines: { folds: [placedFacts], facts: ['placed_line_facts'] },
  placed_orders: { folds: [placedFacts], facts: ['placed_sales_facts'] },
  payments: {
    folds: [placedFacts, paidFacts, cancelledFacts, refundFacts],
    facts: ['placed_authorisation_facts', 'capture_facts', 'cancelled_void_facts', 'refund_payment_facts'],
  },
  fulfilment: {
    folds: [...steps, placedFacts, cancelledFacts],
    facts: [
      'shipped_facts',
      'ready_facts',
      'delivered_facts',
      'ready_promise_facts',
      'delivered_promise_facts',
      'placed_promise_facts',
      'cancelled_promise_facts',
    ],
  },
};

/** The facts of `kind` within the scope's window; of each, only the `columns` asked for. */
export function orderRecords(scope: WindowScope, kind: OrderRecords, columns: readonly string[]): RawBuilder<unknown> {
  // only the folds whose facts are read: their parts are all the statement holds
  const { folds, facts } = ORDER_RECORDS[kind];
  return factRows(
    folds.flatMap((fold) => fold(scope)),
    facts,
    columns,
  );
}

export type OrderRecords = 'sales' | 'lines' | 'placed_lines' | 'placed_orders' | 'payments' | 'fulfilment';
