import { defineEntity, p } from '@mikro-orm/core';
import { LOCALES } from '../../../common/locale.js';
import { Shopper } from '../../../account/entities/shopper.entity.js';
import { Session } from '../../../auth/entities/session.entity.js';
import { Store } from '../../../stores/entities/store.entity.js';
import type { AddressSnapshot } from '../../../common/address.js';
import { FULFILMENT_TYPES } from '../../cart/entities/cart.entity.js';
import { PickupLocation } from '../../checkout/entities/pickup-location.entity.js';
import { createdAt } from '../../../infra/database/timestamps.js';
import { PAYMENT_METHODS } from '../../payments/payment-methods.js';

export const ORDER_STATUSES = ['open', 'completed', 'cancelled'] as const;
export const ORDER_PAYMENT_STATUSES = ['pending', 'authorized', 'paid', 'partially_refunded', 'refunded', 'voided'] as const;
export const FULFILMENT_STATUSES = ['unfulfilled', 'ready_for_pickup', 'shipped', 'delivered', 'returned', 'cancelled'] as const;

const OrderSchema = defineEntity({
  name: 'Order',
  tableName: 'orders',
  uniques: [{ properties: ['store', 'number'] }],
  indexes: [
    { properties: ['store', 'shopper', 'placedAt', 'id'] },
    { properties: ['store', 'session', 'placedAt', 'id'] },
    { properties: ['store', 'placedAt'] },
    { name: 'orders_customer_index', expression: 'create index orders_customer_index on orders (store_id, lower(email), placed_at)' },
    {
      name: 'orders_open_promised_by_index',
      expression: "create index orders_open_promised_by_index on orders (store_id, promised_by) where status = 'open'",
    },
    {
      name: 'orders_lateness_index',
      expression:
        "create index orders_lateness_index on orders (store_id, ((case fulfilment_type when 'delivery' then delivered_at else ready_at end) - promised_by)) where (fulfilment_type = 'delivery' and delivered_at > promised_by) or (fulfilment_type = 'pickup' and ready_at > promised_by)",
    },
    {
      // Insights' records path reads a range's cancelled orders (migration 0022)
      name: 'orders_store_id_cancelled_at_index',
      expression: 'create index orders_store_id_cancelled_at_index on orders (store_id, cancelled_at) where cancelled_at is not null',
    },
    {
      name: 'orders_authorized_placed_at_index',
      expression: "create index orders_authorized_placed_at_index on orders (placed_at) where payment_status = 'authorized'",
    },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    /** Shown to shoppers and staff: from one sequence, so unique across stores too. */
    number: p.bigint().autoincrement(),
    session: () => p.manyToOne(Session).mapToPk().nullable().deleteRule('no action'),
    shopper: () => p.manyToOne(Shopper).mapToPk().nullable().deleteRule('no action'),
    email: p.string().length(254),
    locale: p.enum(LOCALES),
    currency: p.string().length(3),
    status: p.enum(ORDER_STATUSES).default('open'),
    paymentMethod: p.enum(PAYMENT_METHODS),
    paymentStatus: p.enum(ORDER_PAYMENT_STATUSES),
    fulfilmentType: p.enum(FULFILMENT_TYPES),
    fulfilmentStatus: p.enum(FULFILMENT_STATUSES).default('unfulfilled'),
    shippingMethodCode: p.string().length(40).nullable(),
    shippingAddress: p.json<AddressSnapshot>().nullable(),
    pickupLocation: () => p.manyToOne(PickupLocation).mapToPk().nullable().deleteRule('no action'),
    itemCount: p.integer(),
    subtotal: p.integer(),
    shippingTotal: p.integer(),
    taxTotal: p.integer(),
    discountTotal: p.integer().default(0),
    total: p.integer(),
    refundedTotal: p.integer().default(0),
    pricesIncludeTax: p.boolean(),
    /** The store's tax rate when the order was placed, in basis points. */
    taxRateBps: p.integer(),
    /** Placed without a signed-in shopper; stays true when a shopper adopts the order later. */
    placedAsGuest: p.boolean().default(false),
    /** Placed by a storefront's staging or QA run: Insights leaves it out unless the store's settings count test orders. */
    test: p.boolean().default(false),
    /** When delivery (or readiness for pickup) was promised: the late_orders report compares against it. */
    promisedBy: p.datetime(),
    placedAt: createdAt(),
    paidAt: p.datetime().nullable(),
    shippedAt: p.datetime().nullable(),
    readyAt: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
    refundedAt: p.datetime().nullable(),
  },
});

export class Order extends OrderSchema.class {}
OrderSchema.setClass(Order);
