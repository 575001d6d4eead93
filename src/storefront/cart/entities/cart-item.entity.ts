import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';
import { ProductVariant } from '../../catalogue/entities/product-variant.entity.js';
import { Cart } from './cart.entity.js';
import { createdAt, updatedAt } from '../../../infra/database/timestamps.js';

const CartItemSchema = defineEntity({
  name: 'CartItem',
  tableName: 'cart_items',
  uniques: [{ properties: ['cart', 'variant'] }],
  checks: [{ name: 'cart_items_quantity_check', expression: 'quantity >= 1 and quantity <= 999' }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    cart: () => p.manyToOne(Cart).mapToPk().deleteRule('cascade'),
    variant: () => p.manyToOne(ProductVariant).mapToPk().index(),
    quantity: p.integer(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export class CartItem extends CartItemSchema.class {}
CartItemSchema.setClass(CartItem);
