import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import { Payments, type LockedPayment } from '../payments/payments.service.js';
import { returnStock } from '../catalogue/stock.js';
import { mulDivHalfUp, withTax } from '../pricing/pricing.js';
import type { Bilingual } from '../../common/bilingual.js';

export type LifecycleAction = 'ship' | 'ready_for_pickup' | 'deliver' | 'cancel' | 'refund';

export interface RefundRequest {
  lines: { lineId: string; quantity: number }[];
  /** Puts the returned units back in stock (variants that still exist). */
  restock: boolean;
  /** Also refunds the shipping charge (once per order). */
  includeShipping?: boolean;
}

/** An order's states, money and timestamps, as operators and the Insights reports read them. */
export interface OrderState {
  id: string;
  number: string;
  status: string;
  paymentMethod: string;
  paymentStatus: string;
  fulfilmentType: string;
  fulfilmentStatus: string;
  currency: string;
  total: number;
  refundedTotal: number;
  placedAt: string;
  paidAt: string | null;
  shippedAt: string | null;
  readyAt: string | null;
  deliveredAt: string | null;
  cancelledAt: string | null;
  refundedAt: string | null;
  lines: { id: string; sku: string; quantity: number; returnedQuantity: number; unitPrice: number }[];
}

interface LockedOrder extends LockedPayment {
  number: string;
  status: string;
  fulfilment_type: 'delivery' | 'pickup';
  fulfilment_status: string;
  total: number;
  refunded_total: number;
  shipping_total: number;
  tax_total: number;
  prices_include_tax: boolean;
}

interface LockedLine {
  id: string;
  variant_id: string | null;
  quantity: number;
  returned_quantity: number;
  line_total: number;
  tax_amount: number;
}

const STATE = sql`json_build_object(
  'id', o.id, 'number', o.number::text, 'status', o.status,
  'paymentMethod', o.payment_method, 'paymentStatus', o.payment_status,
  'fulfilmentType', o.fulfilment_type, 'fulfilmentStatus', o.fulfilment_status,
  'currency', o.currency, 'total', o.total, 'refundedTotal', o.refunded_total,
  'placedAt', iso_utc(o.placed_at), 'paidAt', iso_utc(o.paid_at), 'shippedAt', iso_utc(o.shipped_at),
  'readyAt', iso_utc(o.ready_at), 'deliveredAt', iso_utc(o.delivered_at), 'cancelledAt', iso_utc(o.cancelled_at),
  'refundedAt', iso_utc(o.refunded_at),
  'lines', (select coalesce(json_agg(json_build_object(
              'id', ol.id, 'sku', ol.sku, 'quantity', ol.quantity, 'returnedQuantity', ol.returned_quantity,
              'unitPrice', ol.unit_price) order by ol.position), '[]'::json)
            from order_lines ol where ol.order_id = o.id))`;

/**
 * What happens to an order after it is placed: shipping or readiness for pickup, delivery,
 * cancellation and refunds of returns. Each transition is one transaction that locks the order row,
 * checks the current states under the lock and writes states, timestamps, payment and stock together,
 * so concurrent transitions of one order are serialised and an illegal one writes nothing.
 *
 * Payment provider calls (capture, void, refund) happen under the order lock, before the writes: a
 * provider failure rolls the transition back, and two racing refunds cannot both pass the amount check.
 */
@Injectable()
export class OrderLifecycle {
  private readonly logger = new Logger(OrderLifecycle.name);

  constructor(
    private readonly em: EntityManager,
    private readonly payments: Payments,
  ) {}

  /** A delivery order leaves the warehouse: unfulfilled → shipped. */
  ship(storeId: string, orderId: string): Promise<OrderState> {
    return this.transition(storeId, orderId, 'ship', async (em, order) => {
      if (order.status !== 'open' || order.fulfilment_type !== 'delivery' || order.fulfilment_status !== 'unfulfilled') {
        throw conflict('ship', order, {
          en: 'Only an open, unfulfilled delivery order can be shipped.',
          ar: 'لا يُشحن إلا طلب توصيل مفتوح لم يُجهّز بعد.',
        });
      }
      await this.payments.captureIfAuthorized(em, order);
      await sql`update orders set fulfilment_status = 'shipped', shipped_at = ${order.at}::timestamptz where id = ${order.id}`.execute(
        em.getKysely(),
      );
    });
  }

  /** A pickup order is packed and waiting at its location: unfulfilled → ready_for_pickup. */
  readyForPickup(storeId: string, orderId: string): Promise<OrderState> {
    return this.transition(storeId, orderId, 'ready_for_pickup', async (em, order) => {
      if (order.status !== 'open' || order.fulfilment_type !== 'pickup' || order.fulfilment_status !== 'unfulfilled') {
        throw conflict('ready_for_pickup', order, {
          en: 'Only an open, unfulfilled pickup order can be made ready for pickup.',
          ar: 'لا يُجهّز للاستلام إلا طلب استلام مفتوح لم يُجهّز بعد.',
        });
      }
      await this.payments.captureIfAuthorized(em, order);
      await sql`update orders set fulfilment_status = 'ready_for_pickup', ready_at = ${order.at}::timestamptz where id = ${order.id}`.execute(
        em.getKysely(),
      );
    });
  }

  /** The shopper has the goods: shipped or ready_for_pickup → delivered, and the order is completed. Cash is collected now. */
  deliver(storeId: string, orderId: string): Promise<OrderState> {
    return this.transition(storeId, orderId, 'deliver', async (em, order) => {
      if (order.status !== 'open' || !['shipped', 'ready_for_pickup'].includes(order.fulfilment_status)) {
        throw conflict('deliver', order, {
          en: 'Only a shipped order, or one ready for pickup, can be delivered.',
          ar: 'لا يُسلَّم إلا طلب مشحون أو جاهز للاستلام.',
        });
      }
      await this.payments.captureIfAuthorized(em, order);
      await this.payments.collectCash(em, order);
      await sql`
        update orders set status = 'completed', fulfilment_status = 'delivered', delivered_at = ${order.at}::timestamptz
        where id = ${order.id}`.execute(em.getKysely());
    });
  }

  /**
   * Cancels an order that has not left yet: its stock goes back, an authorised card is voided, a
   * captured one refunded in full, and cash on delivery that was never collected is voided.
   */
  cancel(storeId: string, orderId: string): Promise<OrderState> {
    return this.transition(storeId, orderId, 'cancel', async (em, order) => {
      const settled = ['authorized', 'paid', 'pending'].includes(order.payment_status);
      if (order.status !== 'open' || order.fulfilment_status !== 'unfulfilled' || !settled) {
        throw conflict('cancel', order, {
          en: 'Only an open order that has not been shipped or made ready for pickup can be cancelled.',
          ar: 'لا يُلغى إلا طلب مفتوح لم يُشحن ولم يُجهّز للاستلام.',
        });
      }
      const db = em.getKysely();
      const lines = await this.lines(em, order.id);
      if (order.payment_status === 'paid') {
        const amount = order.total - order.refunded_total;
        await this.payments.refund(em, order, amount, true);
        await recordRefund(em, order, {
          reason: 'cancellation',
          amount,
          shippingAmount: shippingPaid(order, lines),
          restocked: true,
          lines: lines.map((line) => ({
            id: line.id,
            variantId: line.variant_id,
            quantity: line.quantity,
            amount: paidFor(line, order.prices_include_tax),
          })),
        });
        await sql`update orders set refunded_total = total, refunded_at = ${order.at}::timestamptz where id = ${order.id}`.execute(db);
      } else {
        await this.payments.voidUncollected(em, order);
      }
      await returnStock(
        em,
        lines.map((line) => ({ variantId: line.variant_id, quantity: line.quantity - line.returned_quantity })),
      );
      await sql`
        update orders set status = 'cancelled', fulfilment_status = 'cancelled', cancelled_at = ${order.at}::timestamptz
        where id = ${order.id}`.execute(db);
    });
  }

  /**
   * Refunds returned units of a delivered order (and its shipping charge when asked): each unit at
   * what the shopper paid for it, tax included. The refunded total never passes the order total.
   */
  async refund(storeId: string, orderId: string, request: RefundRequest): Promise<OrderState> {
    checkRefundShape(request);
    return this.transition(storeId, orderId, 'refund', async (em, order) => {
      if (
        order.status !== 'completed' ||
        order.fulfilment_status !== 'delivered' ||
        !['paid', 'partially_refunded'].includes(order.payment_status)
      ) {
        throw conflict('refund', order, {
          en: 'Only a delivered order with items still to return can be refunded.',
          ar: 'لا يُسترد إلا طلب مُسلَّم ما زالت فيه أصناف يمكن إرجاعها.',
        });
      }
      const lines = await this.lines(em, order.id);
      const byId = new Map(lines.map((line) => [line.id, line]));
      const returned: RefundedUnits[] = [];
      request.lines.forEach(({ lineId, quantity }, index) => {
        const line = byId.get(lineId.toLowerCase());
        if (!line) {
          throw invalidField(`lines[${index}].lineId`, 'unknownLine', {
            en: 'This order has no line with this id.',
            ar: 'لا يوجد في هذا الطلب بند بهذا المعرّف.',
          });
        }
        const returnable = line.quantity - line.returned_quantity;
        if (quantity > returnable) {
          throw conflict('refund', order, {
            en: `Line ${line.id} has ${returnable} unit(s) left to return.`,
            ar: `بقي في البند ${line.id} ${returnable} وحدة يمكن إرجاعها.`,
          });
        }
        const paid = paidFor(line, order.prices_include_tax);
        const amount =
          mulDivHalfUp(paid, line.returned_quantity + quantity, line.quantity) - mulDivHalfUp(paid, line.returned_quantity, line.quantity);
        returned.push({ id: line.id, variantId: line.variant_id, quantity, amount });
      });
      let shippingAmount = 0;
      if (request.includeShipping) {
        const shipping = shippingPaid(order, lines);
        const { rows: earlier } = await sql<{ shipping: number }>`
          select coalesce(sum(shipping_amount), 0)::int as shipping from refunds where order_id = ${order.id}`.execute(em.getKysely());
        if (shipping > 0 && earlier[0].shipping >= shipping) {
          throw conflict('refund', order, { en: 'The shipping charge was already refunded.', ar: 'سبق استرداد رسوم الشحن.' });
        }
        shippingAmount = shipping;
      }
      shippingAmount = capRefund(returned, shippingAmount, order.total - order.refunded_total);
      const amount = returned.reduce((sum, units) => sum + units.amount, 0) + shippingAmount;

      const db = em.getKysely();
      await this.payments.refund(em, order, amount, order.refunded_total + amount >= order.total);
      await recordRefund(em, order, { reason: 'return', amount, shippingAmount, restocked: request.restock, lines: returned });
      const changes = JSON.stringify(returned.map(({ id, quantity }) => ({ id, quantity })));
      await sql`
        update order_lines ol set returned_quantity = ol.returned_quantity + r.quantity
        from jsonb_to_recordset(${changes}::jsonb) as r(id uuid, quantity int)
        where ol.id = r.id and ol.order_id = ${order.id}`.execute(db);
      await sql`
        update orders set
          refunded_total = refunded_total + ${amount},
          refunded_at = ${order.at}::timestamptz,
          fulfilment_status = case
            when exists (select 1 from order_lines where order_id = ${order.id} and returned_quantity < quantity) then 'delivered'
            else 'returned' end
        where id = ${order.id}`.execute(db);
      if (request.restock) {
        await returnStock(
          em,
          returned.map(({ variantId, quantity }) => ({ variantId, quantity })),
        );
      }
    });
  }

  /** The store's most recent orders, newest first. */
  async list(storeId: string, limit: number): Promise<OrderState[]> {
    const { rows } = await sql<{ state: OrderState }>`
      select ${STATE} as state from orders o where o.store_id = ${storeId}
      order by o.placed_at desc, o.id desc limit ${limit}`.execute(this.em.getKysely());
    return rows.map((row) => row.state);
  }

  private async transition(
    storeId: string,
    orderId: string,
    action: LifecycleAction,
    change: (em: EntityManager, order: LockedOrder) => Promise<void>,
  ): Promise<OrderState> {
    if (!UUID_PATTERN.test(orderId)) throw new ApiError('NOT_FOUND');
    const state = await this.em.fork().transactional(async (em) => {
      const order = await this.lock(em, storeId, orderId);
      await change(em, order);
      const { rows } = await sql<{ state: OrderState }>`select ${STATE} as state from orders o where o.id = ${order.id}`.execute(
        em.getKysely(),
      );
      return rows[0].state;
    });
    this.logger.log(`order ${state.number} (${state.id}): ${action}`);
    return state;
  }

  private async lock(em: EntityManager, storeId: string, orderId: string): Promise<LockedOrder> {
    const { rows } = await sql<Omit<LockedOrder, keyof LockedPayment>>`
      select o.number::text, o.status, o.fulfilment_type, o.fulfilment_status,
             o.total, o.refunded_total, o.shipping_total, o.tax_total, o.prices_include_tax
      from orders o
      where o.id = ${orderId} and o.store_id = ${storeId}
      for update`.execute(em.getKysely());
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    return { ...rows[0], ...(await this.payments.underLock(em, orderId)) };
  }

  private async lines(em: EntityManager, orderId: string): Promise<LockedLine[]> {
    const { rows } = await sql<LockedLine>`
      select id, variant_id, quantity, returned_quantity, line_total, tax_amount
      from order_lines where order_id = ${orderId} order by position`.execute(em.getKysely());
    return rows;
  }
}

function conflict(action: LifecycleAction, order: LockedOrder, message: Bilingual): ApiError {
  return new ApiError('ORDER_STATE_CONFLICT', {
    message,
    details: {
      action,
      current: {
        status: order.status,
        paymentStatus: order.payment_status,
        fulfilmentType: order.fulfilment_type,
        fulfilmentStatus: order.fulfilment_status,
        refundedTotal: order.refunded_total,
        total: order.total,
      },
    },
  });
}

function checkRefundShape(request: RefundRequest): void {
  if (request.lines.length === 0) {
    throw invalidField('lines', 'arrayNotEmpty', { en: 'Name at least one line to refund.', ar: 'حدّد بندًا واحدًا على الأقل للاسترداد.' });
  }
  const seen = new Set<string>();
  request.lines.forEach(({ lineId, quantity }, index) => {
    if (!UUID_PATTERN.test(lineId)) {
      throw invalidField(`lines[${index}].lineId`, 'isUuid', { en: 'A line id is a UUID.', ar: 'معرّف البند يكون بصيغة UUID.' });
    }
    if (seen.has(lineId.toLowerCase())) {
      throw invalidField(`lines[${index}].lineId`, 'duplicate', { en: 'Name each line once.', ar: 'اذكر كل بند مرة واحدة.' });
    }
    seen.add(lineId.toLowerCase());
    if (!Number.isInteger(quantity) || quantity < 1) {
      throw invalidField(`lines[${index}].quantity`, 'min', {
        en: 'A quantity is a whole number from 1.',
        ar: 'الكمية عدد صحيح من 1 فأكثر.',
      });
    }
  });
}

/** What the shopper paid for a line: its total, plus its tax when prices exclude tax. */
function paidFor(line: LockedLine, pricesIncludeTax: boolean): number {
  return withTax(line.line_total, line.tax_amount, pricesIncludeTax);
}

/** What the shopper paid for shipping: the charge, plus its tax (the order's tax not in any line) when prices exclude tax. */
function shippingPaid(order: LockedOrder, lines: LockedLine[]): number {
  const shippingTax = order.tax_total - lines.reduce((sum, line) => sum + line.tax_amount, 0);
  return withTax(order.shipping_total, shippingTax, order.prices_include_tax);
}

interface RefundedUnits {
  /** The order line. */
  id: string;
  variantId: string | null;
  quantity: number;
  amount: number;
}

/**
 * Keeps a refund within what is left to refund (rounding per line can pass it by a unit): the
 * excess comes off the shipping part first, then off the lines from the last one back. Returns the
 * shipping part that is left.
 */
function capRefund(lines: RefundedUnits[], shippingAmount: number, left: number): number {
  let excess = lines.reduce((sum, units) => sum + units.amount, 0) + shippingAmount - left;
  if (excess <= 0) return shippingAmount;
  const offShipping = Math.min(excess, shippingAmount);
  excess -= offShipping;
  for (let i = lines.length - 1; i >= 0 && excess > 0; i -= 1) {
    const taken = Math.min(excess, lines[i].amount);
    lines[i].amount -= taken;
    excess -= taken;
  }
  return shippingAmount - offShipping;
}

/** The refund as a record of its own, with the units it paid for: what Insights reads refunds by date from. */
async function recordRefund(
  em: EntityManager,
  order: LockedOrder,
  refund: { reason: 'return' | 'cancellation'; amount: number; shippingAmount: number; restocked: boolean; lines: RefundedUnits[] },
): Promise<void> {
  const lines = JSON.stringify(refund.lines.map(({ id, quantity, amount }) => ({ id, quantity, amount })));
  await sql`
    with refund as (
      insert into refunds (store_id, order_id, reason, amount, shipping_amount, currency, restocked, created_at)
      select o.store_id, o.id, ${refund.reason}, ${refund.amount}, ${refund.shippingAmount}, o.currency, ${refund.restocked},
             ${order.at}::timestamptz
      from orders o where o.id = ${order.id}
      returning id
    )
    insert into refund_lines (refund_id, order_line_id, quantity, amount)
    select refund.id, l.id, l.quantity, l.amount
    from refund cross join jsonb_to_recordset(${lines}::jsonb) as l(id uuid, quantity int, amount int)`.execute(em.getKysely());
}
