import type { RawBuilder } from 'kysely';
import { searched, storefrontEvents } from './facts/behaviour.js';
import { fulfilmentStep } from './facts/fulfilment.js';
import { orderPaid, paymentDeclined } from './facts/payments.js';
import { orderCancelled, orderPlaced, refunded } from './facts/sales.js';
import type { FoldScope } from './facts/statements.js';

/**
 * What each kind of change adds to the rollups: the one definition of every figure Insights shows,
 * used both to fold in pending changes and to rebuild a store's rollups from its records (a rebuild
 * is every fold applied to the whole store), so the two cannot disagree.
 *
 * Sales follow Shopify's definitions. Amounts are in minor units and without tax (prices that
 * include tax are reported without it). An order adds its gross sales, discounts, shipping and taxes
 * on the day it is placed; a return takes the value of the returned goods (its share of the line's
 * tax taken out) back on the day of the refund, with the refunded shipping and taxes; a cancellation
 * counts as placed and then fully returned on the day it was cancelled. Refunds of cancelled orders
 * are money only (payments), never returns a second time.
 *
 * Orders are read as COUNTED_ORDERS: a store's test orders are in no figure (sales, lines, refunds,
 * payments, fulfilment, customers and their histories, cohorts, the funnel's order step) unless its
 * settings count them, and lateness is measured against the store's grace. A change of either
 * setting rebuilds the store's rollups.
 */

export const PENDING_KINDS = [
  'order_placed',
  'order_paid',
  'order_shipped',
  'order_ready',
  'order_delivered',
  'order_cancelled',
  'refund',
  'payment_declined',
  'search',
  'storefront_event',
] as const;
export type PendingKind = (typeof PENDING_KINDS)[number];

/** What each kind of pending change adds to the rollups: statements to run in order, in one transaction. */
export const FOLDS: Record<PendingKind, (scope: FoldScope) => RawBuilder<unknown>[]> = {
  order_placed: orderPlaced,
  order_paid: orderPaid,
  order_shipped: (scope) => fulfilmentStep(scope, 'shipped'),
  order_ready: (scope) => fulfilmentStep(scope, 'ready'),
  order_delivered: (scope) => fulfilmentStep(scope, 'delivered'),
  order_cancelled: orderCancelled,
  refund: refunded,
  payment_declined: paymentDeclined,
  search: searched,
  storefront_event: storefrontEvents,
};
