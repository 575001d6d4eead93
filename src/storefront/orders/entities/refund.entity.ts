import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';
import { createdAt } from '../../../infra/database/timestamps.js';
import { Order } from './order.entity.js';

export const REFUND_REASONS = ['return', 'cancellation'] as const;

/** A refund as it happened; the order's refunded_total is the sum of its refunds. */
const RefundSchema = defineEntity({
  name: 'Refund',
  tableName: 'refunds',
  indexes: [{ properties: ['store', 'createdAt'] }],
  checks: [
    { name: 'refunds_amount_check', expression: 'amount >= 0' },
    { name: 'refunds_shipping_amount_check', expression: 'shipping_amount >= 0' },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    order: () => p.manyToOne(Order).mapToPk().deleteRule('cascade').index(),
    reason: p.enum(REFUND_REASONS),
    amount: p.integer(),
    shippingAmount: p.integer().default(0),
    currency: p.string().length(3),
    restocked: p.boolean(),
    createdAt: createdAt(),
  },
});

export class Refund extends RefundSchema.class {}
RefundSchema.setClass(Refund);
