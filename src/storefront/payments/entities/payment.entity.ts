import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';
import { Order } from '../../orders/entities/order.entity.js';
import { PAYMENT_METHODS } from '../payment-methods.js';
import { createdAt, updatedAt } from '../../../infra/database/timestamps.js';

export const PAYMENT_STATUSES = ['pending', 'authorized', 'captured', 'voided', 'refunded', 'declined'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

const PaymentSchema = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    order: () => p.manyToOne(Order).mapToPk().nullable().deleteRule('no action').index(),
    provider: p.string().length(40),
    method: p.enum(PAYMENT_METHODS),
    status: p.enum(PAYMENT_STATUSES),
    amount: p.integer(),
    currency: p.string().length(3),
    providerReference: p.string().length(200).nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export class Payment extends PaymentSchema.class {}
PaymentSchema.setClass(Payment);
