import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';

/** A store's delivery option; every store starts with `standard` and `express` (migration trigger). */
const ShippingMethodSchema = defineEntity({
  name: 'ShippingMethod',
  tableName: 'shipping_methods',
  uniques: [{ properties: ['store', 'code'] }],
  checks: [
    { name: 'shipping_methods_price_check', expression: 'price >= 0' },
    { name: 'shipping_methods_free_over_check', expression: 'free_over >= 0' },
    { name: 'shipping_methods_min_days_check', expression: 'min_days >= 0' },
    { name: 'shipping_methods_check', expression: 'max_days >= min_days' },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    code: p.string().length(40),
    nameEn: p.string().length(200),
    nameAr: p.string().length(200),
    price: p.integer(),
    /** Free when the subtotal reaches this amount. */
    freeOver: p.integer().nullable(),
    minDays: p.integer(),
    maxDays: p.integer(),
    position: p.integer().default(0),
    active: p.boolean().default(true),
  },
});

export class ShippingMethod extends ShippingMethodSchema.class {}
ShippingMethodSchema.setClass(ShippingMethod);
