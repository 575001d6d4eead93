import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';
import { ProductVariant, type VariantOption } from '../../catalogue/entities/product-variant.entity.js';
import { Product } from '../../catalogue/entities/product.entity.js';
import { Order } from './order.entity.js';

/** What was sold, as it was when sold: names, SKU, options, category and brand are snapshots. */
const OrderLineSchema = defineEntity({
  name: 'OrderLine',
  tableName: 'order_lines',
  indexes: [{ properties: ['store', 'variant'] }],
  checks: [
    { name: 'order_lines_quantity_check', expression: 'quantity > 0' },
    { name: 'order_lines_unit_price_check', expression: 'unit_price >= 0' },
    { name: 'order_lines_check', expression: 'returned_quantity >= 0 and returned_quantity <= quantity' },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    order: () => p.manyToOne(Order).mapToPk().deleteRule('cascade').index(),
    product: () => p.manyToOne(Product).mapToPk().nullable().deleteRule('set null'),
    variant: () => p.manyToOne(ProductVariant).mapToPk().nullable().deleteRule('set null'),
    categoryId: p.uuid().nullable(),
    brandId: p.uuid().nullable(),
    sku: p.string().length(64),
    productNameEn: p.string().length(300),
    productNameAr: p.string().length(300),
    options: p.json<VariantOption[]>(),
    quantity: p.integer(),
    unitPrice: p.integer(),
    lineTotal: p.integer(),
    taxAmount: p.integer(),
    returnedQuantity: p.integer().default(0),
    position: p.integer().default(0),
  },
});

export class OrderLine extends OrderLineSchema.class {}
OrderLineSchema.setClass(OrderLine);
