import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Locale } from '../../common/locale.js';
import type { PaymentMethod } from '../payments/payment-methods.js';

export type OrderStatus = 'open' | 'completed' | 'cancelled';
export type OrderPaymentStatus = 'pending' | 'authorized' | 'paid' | 'partially_refunded' | 'refunded' | 'voided';
export type FulfilmentStatus = 'unfulfilled' | 'ready_for_pickup' | 'shipped' | 'delivered' | 'returned' | 'cancelled';

/** An order to insert. Times are epoch seconds; a null `placedAt` means the transaction's `now()`. */
export interface NewOrder {
  id: string;
  /** The storefront session that placed it; null for orders that come from elsewhere (demo history, imports). */
  sessionId: string | null;
  shopperId: string | null;
  email: string;
  locale: Locale;
  status: OrderStatus;
  paymentMethod: PaymentMethod;
  paymentStatus: OrderPaymentStatus;
  fulfilmentType: 'delivery' | 'pickup';
  fulfilmentStatus: FulfilmentStatus;
  shippingMethodCode: string | null;
  /** The delivery address as JSON text: a copy, so later edits of an address book do not rewrite history. */
  shippingAddress: string | null;
  pickupLocationId: string | null;
  itemCount: number;
  subtotal: number;
  shippingTotal: number;
  taxTotal: number;
  total: number;
  refundedTotal: number;
  placedAt: number | null;
  /** The promise, counted from the placing time: delivered or ready for pickup by then. */
  promisedAfterSeconds: number;
  paidAt: number | null;
  shippedAt: number | null;
  readyAt: number | null;
  deliveredAt: number | null;
  cancelledAt: number | null;
  refundedAt: number | null;
  /** Placed by a storefront's staging or QA run (checkout's `test`); false when left out. */
  test?: boolean;
}

/** A line of a NewOrder. What was sold (product, category, brand, names, SKU, options) is copied from the variant as it is now. */
export interface NewOrderLine {
  orderId: string;
  variantId: string;
  quantity: number;
  unitPrice: number;
  lineTotal: number;
  taxAmount: number;
  returnedQuantity: number;
  position: number;
}

/** What every order of one write shares: its store, the store's currency and its tax settings at the time. */
export interface OrderBatch {
  storeId: string;
  currency: string;
  pricesIncludeTax: boolean;
  taxRateBps: number;
}

/**
 * The one way orders and their lines are inserted (checkout one at a time, the demo by the thousand):
 * two parts of a WITH statement, `new_orders` (returning id, number) and `new_lines` (returning id,
 * order_id, position), over unnest()ed arrays, so a batch of any size is one statement. Order numbers
 * follow the orders' positions in the batch. A caller adds its own parts (payments, refunds…) and
 * must check, as `insertOrders` does, that every line found its variant.
 */
export function orderInserts(batch: OrderBatch, orders: NewOrder[], lines: NewOrderLine[]): RawBuilder<unknown> {
  return sql`
    new_orders as (
      insert into orders (id, store_id, session_id, shopper_id, email, locale, currency, status, payment_method, payment_status,
                          fulfilment_type, fulfilment_status, shipping_method_code, shipping_address, pickup_location_id, item_count,
                          subtotal, shipping_total, tax_total, total, refunded_total, prices_include_tax, tax_rate_bps, placed_as_guest,
                          promised_by, placed_at, paid_at, shipped_at, ready_at, delivered_at, cancelled_at, refunded_at, test)
      select o.id, ${batch.storeId}, o.session_id, o.shopper_id, o.email, o.locale, ${batch.currency}, o.status, o.payment_method,
             o.payment_status, o.fulfilment_type, o.fulfilment_status, o.shipping_method_code, o.shipping_address::jsonb,
             o.pickup_location_id, o.item_count, o.subtotal, o.shipping_total, o.tax_total, o.total, o.refunded_total,
             ${batch.pricesIncludeTax}, ${batch.taxRateBps}::int, o.shopper_id is null,
             coalesce(to_timestamp(o.placed_at), now()) + make_interval(secs => o.promised_after),
             coalesce(to_timestamp(o.placed_at), now()), to_timestamp(o.paid_at), to_timestamp(o.shipped_at), to_timestamp(o.ready_at),
             to_timestamp(o.delivered_at), to_timestamp(o.cancelled_at), to_timestamp(o.refunded_at), o.test
      from unnest(${orders.map((o) => o.id)}::uuid[], ${orders.map((o) => o.sessionId)}::uuid[], ${orders.map((o) => o.shopperId)}::uuid[],
                  ${orders.map((o) => o.email)}::text[], ${orders.map((o) => o.locale)}::text[], ${orders.map((o) => o.status)}::text[],
                  ${orders.map((o) => o.paymentMethod)}::text[], ${orders.map((o) => o.paymentStatus)}::text[],
                  ${orders.map((o) => o.fulfilmentType)}::text[], ${orders.map((o) => o.fulfilmentStatus)}::text[],
                  ${orders.map((o) => o.shippingMethodCode)}::text[], ${orders.map((o) => o.shippingAddress)}::text[],
                  ${orders.map((o) => o.pickupLocationId)}::uuid[], ${orders.map((o) => o.itemCount)}::int[], ${orders.map((o) => o.subtotal)}::int[],
                  ${orders.map((o) => o.shippingTotal)}::int[], ${orders.map((o) => o.taxTotal)}::int[], ${orders.map((o) => o.total)}::int[],
                  ${orders.map((o) => o.refundedTotal)}::int[], ${orders.map((o) => o.promisedAfterSeconds)}::float8[],
                  ${orders.map((o) => o.placedAt)}::float8[], ${orders.map((o) => o.paidAt)}::float8[], ${orders.map((o) => o.shippedAt)}::float8[],
                  ${orders.map((o) => o.readyAt)}::float8[], ${orders.map((o) => o.deliveredAt)}::float8[],
                  ${orders.map((o) => o.cancelledAt)}::float8[], ${orders.map((o) => o.refundedAt)}::float8[],
                  ${orders.map((o) => o.test ?? false)}::boolean[]) with ordinality
        as o(id, session_id, shopper_id, email, locale, status, payment_method, payment_status, fulfilment_type, fulfilment_status,
             shipping_method_code, shipping_address, pickup_location_id, item_count, subtotal, shipping_total, tax_total, total,
             refunded_total, promised_after, placed_at, paid_at, shipped_at, ready_at, delivered_at, cancelled_at, refunded_at, test,
             position)
      order by o.position
      returning id, number
    ), new_lines as (
      insert into order_lines (store_id, order_id, product_id, variant_id, category_id, brand_id, sku, product_name_en, product_name_ar,
                               options, quantity, unit_price, line_total, tax_amount, returned_quantity, position)
      select ${batch.storeId}, l.order_id, p.id, v.id, p.category_id, p.brand_id, v.sku, p.name_en, p.name_ar, v.options, l.quantity,
             l.unit_price, l.line_total, l.tax_amount, l.returned_quantity, l.position
      from unnest(${lines.map((l) => l.orderId)}::uuid[], ${lines.map((l) => l.variantId)}::uuid[], ${lines.map((l) => l.quantity)}::int[],
                  ${lines.map((l) => l.unitPrice)}::int[], ${lines.map((l) => l.lineTotal)}::int[], ${lines.map((l) => l.taxAmount)}::int[],
                  ${lines.map((l) => l.returnedQuantity)}::int[], ${lines.map((l) => l.position)}::int[])
        as l(order_id, variant_id, quantity, unit_price, line_total, tax_amount, returned_quantity, position)
      join product_variants v on v.id = l.variant_id and v.store_id = ${batch.storeId}
      join products p on p.id = v.product_id
      returning id, order_id, position
    )`;
}

/** A refund of an order written in the same statement (order history, imports). Times are epoch seconds. */
export interface NewRefund {
  id: string;
  orderId: string;
  reason: 'return' | 'cancellation';
  amount: number;
  shippingAmount: number;
  restocked: boolean;
  createdAt: number;
}

/** The units of an order line (by its position in its order) a NewRefund paid for. */
export interface NewRefundLine {
  refundId: string;
  orderId: string;
  position: number;
  quantity: number;
  amount: number;
}

/**
 * Refunds of the orders that `orderInserts` writes in the same statement: the `new_refunds` and
 * `new_refund_lines` parts, to follow it in the WITH list. (The lifecycle records a refund of an
 * existing order its own way.)
 */
export function refundInserts(batch: OrderBatch, refunds: NewRefund[], refundLines: NewRefundLine[]): RawBuilder<unknown> {
  return sql`
    new_refunds as (
      insert into refunds (id, store_id, order_id, reason, amount, shipping_amount, currency, restocked, created_at)
      select r.id, ${batch.storeId}, r.order_id, r.reason, r.amount, r.shipping_amount, ${batch.currency}, r.restocked, to_timestamp(r.created_at)
      from unnest(${refunds.map((r) => r.id)}::uuid[], ${refunds.map((r) => r.orderId)}::uuid[], ${refunds.map((r) => r.reason)}::text[],
                  ${refunds.map((r) => r.amount)}::int[], ${refunds.map((r) => r.shippingAmount)}::int[],
                  ${refunds.map((r) => r.restocked)}::boolean[], ${refunds.map((r) => r.createdAt)}::float8[])
        as r(id, order_id, reason, amount, shipping_amount, restocked, created_at)
    ), new_refund_lines as (
      -- the order lines of this statement are only visible through what their insert returned
      insert into refund_lines (refund_id, order_line_id, quantity, amount)
      select rl.refund_id, nl.id, rl.quantity, rl.amount
      from unnest(${refundLines.map((r) => r.refundId)}::uuid[], ${refundLines.map((r) => r.orderId)}::uuid[],
                  ${refundLines.map((r) => r.position)}::int[], ${refundLines.map((r) => r.quantity)}::int[], ${refundLines.map((r) => r.amount)}::int[])
        as rl(refund_id, order_id, position, quantity, amount)
      join new_lines nl on nl.order_id = rl.order_id and nl.position = rl.position
    )`;
}

/** The orders a session placed as a guest become its shopper's, when the session signs in. */
export async function adoptGuestOrders(em: EntityManager, owner: { storeId: string; sessionId: string; shopperId: string }): Promise<void> {
  await sql`
    update orders set shopper_id = ${owner.shopperId}
    where store_id = ${owner.storeId} and session_id = ${owner.sessionId} and shopper_id is null`.execute(em.getKysely());
}

/** Fails a write some of whose lines named no variant of the store: such a line would silently go missing. */
export function assertLinesWritten(batch: OrderBatch, expected: number, written: number): void {
  if (written !== expected) throw new Error(`${expected - written} order lines found no variant of store ${batch.storeId}`);
}

/**
 * Inserts orders and their lines in one statement, with the caller's `alongside` parts (another
 * table's inserts, e.g. the orders' payments); returns each order's number by id.
 */
export async function insertOrders(
  db: Kysely<any>,
  batch: OrderBatch,
  orders: NewOrder[],
  lines: NewOrderLine[],
  alongside: RawBuilder<unknown>[] = [],
): Promise<Map<string, string>> {
  const { rows } = await sql<{ id: string; number: string; lines: number }>`
    with ${sql.join([orderInserts(batch, orders, lines), ...alongside])}
    select o.id, o.number::text, (select count(*)::int from new_lines) as lines from new_orders o`.execute(db);
  assertLinesWritten(batch, lines.length, rows[0]?.lines ?? 0);
  return new Map(rows.map((row) => [row.id, row.number]));
}
