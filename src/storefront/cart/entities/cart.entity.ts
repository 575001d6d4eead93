import { defineEntity, p } from '@mikro-orm/core';
import { Shopper } from '../../../account/entities/shopper.entity.js';
import { Session } from '../../../auth/entities/session.entity.js';
import { Store } from '../../../stores/entities/store.entity.js';
import { PickupLocation } from '../../checkout/entities/pickup-location.entity.js';
import { ShippingMethod } from '../../checkout/entities/shipping-method.entity.js';
import { createdAt, updatedAt } from '../../../infra/database/timestamps.js';
import type { AddressSnapshot } from '../../../common/address.js';

export const CART_STATUSES = ['active', 'merged', 'converted'] as const;
export const FULFILMENT_TYPES = ['delivery', 'pickup'] as const;
export type FulfilmentType = (typeof FULFILMENT_TYPES)[number];

const CartSchema = defineEntity({
  name: 'Cart',
  tableName: 'carts',
  uniques: [
    {
      name: 'carts_active_shopper_unique',
      expression: `create unique index carts_active_shopper_unique on carts (shopper_id) where status = 'active' and shopper_id is not null`,
    },
    {
      name: 'carts_active_session_unique',
      expression: `create unique index carts_active_session_unique on carts (session_id) where status = 'active' and shopper_id is null`,
    },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    /** An anonymous cart belongs to its session; once a shopper is attached, to the shopper. */
    session: () => p.manyToOne(Session).mapToPk().nullable().deleteRule('no action'),
    shopper: () => p.manyToOne(Shopper).mapToPk().nullable().deleteRule('no action'),
    currency: p.string().length(3),
    status: p.enum(CART_STATUSES).default('active'),
    fulfilmentType: p.enum(FULFILMENT_TYPES).nullable(),
    shippingMethod: () => p.manyToOne(ShippingMethod).mapToPk().nullable().deleteRule('no action'),
    shippingAddress: p.json<AddressSnapshot>().nullable(),
    pickupLocation: () => p.manyToOne(PickupLocation).mapToPk().nullable().deleteRule('no action'),
    /** Contact address of a guest checkout. */
    email: p.string().length(254).nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export class Cart extends CartSchema.class {}
CartSchema.setClass(Cart);
