import { defineEntity, p } from '@mikro-orm/core';
import { OrderLine } from './order-line.entity.js';
import { Refund } from './refund.entity.js';

/** The units of one order line a refund paid back, and how much for them. */
const RefundLineSchema = defineEntity({
  name: 'RefundLine',
  tableName: 'refund_lines',
  checks: [
    { name: 'refund_lines_quantity_check', expression: 'quantity > 0' },
    { name: 'refund_lines_amount_check', expression: 'amount >= 0' },
  ],
  properties: {
    refund: () => p.manyToOne(Refund).mapToPk().primary().deleteRule('cascade').updateRule('no action'),
    orderLine: () => p.manyToOne(OrderLine).mapToPk().primary().deleteRule('cascade').updateRule('no action').index(),
    quantity: p.integer(),
    amount: p.integer(),
  },
});

export class RefundLine extends RefundLineSchema.class {}
RefundLineSchema.setClass(RefundLine);
