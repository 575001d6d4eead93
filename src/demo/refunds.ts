import { randomUUID } from 'node:crypto';
import { taxOf, withTax } from '../storefront/pricing/pricing.js';
import type { ActivityBatch } from './activity-batch.js';
import { seconds } from './calendar.js';
import type { StoreContext } from './store-context.js';

/**
 * The refund record of a cancelled card order (every unit and the shipping) or of a return (the
 * returned units, each at what was paid for it, and the shipping when everything came back).
 * Returns its amount: the order's refunded total.
 */
export function recordRefund(
  batch: ActivityBatch,
  context: StoreContext,
  order: {
    id: string;
    priced: { quantity: number; unitPrice: number }[];
    lineTotals: number[];
    totals: { total: number; lineTaxes: number[] };
    returned: number[];
    refundedAt: number;
    cancelled: boolean;
  },
): number {
  const { pricesIncludeTax } = context.tax;
  const everything = order.cancelled || order.returned.every((quantity, i) => quantity === order.priced[i].quantity);
  const refundId = randomUUID();
  let linesAmount = 0;
  order.priced.forEach((line, i) => {
    const quantity = order.cancelled ? line.quantity : order.returned[i];
    if (quantity === 0) return;
    const amount = everything
      ? withTax(order.lineTotals[i], order.totals.lineTaxes[i], pricesIncludeTax)
      : withTax(quantity * line.unitPrice, taxOf(quantity * line.unitPrice, context.tax), pricesIncludeTax);
    linesAmount += amount;
    batch.refundLines.push({ refundId, orderId: order.id, position: i, quantity, amount });
  });
  const amount = everything ? order.totals.total : linesAmount;
  batch.refunds.push({
    id: refundId,
    orderId: order.id,
    reason: order.cancelled ? 'cancellation' : 'return',
    amount,
    shippingAmount: amount - linesAmount,
    restocked: order.cancelled,
    createdAt: seconds(order.refundedAt),
  });
  return amount;
}
