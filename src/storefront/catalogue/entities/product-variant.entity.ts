import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';
import { Product } from './product.entity.js';
import { createdAt } from '../../../infra/database/timestamps.js';

export interface VariantOption {
  name: { en: string; ar: string };
  value: { en: string; ar: string };
}

const ProductVariantSchema = defineEntity({
  name: 'ProductVariant',
  tableName: 'product_variants',
  uniques: [{ properties: ['store', 'sku'] }],
  checks: [
    { name: 'product_variants_price_check', expression: 'price >= 0' },
    { name: 'product_variants_stock_check', expression: 'stock >= 0' },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    product: () => p.manyToOne(Product).mapToPk().index(),
    sku: p.string().length(64),
    options: p.json<VariantOption[]>(),
    /** Minor units of the store's currency. */
    price: p.integer(),
    compareAtPrice: p.integer().nullable(),
    currency: p.string().length(3),
    stock: p.integer().default(0),
    position: p.integer().default(0),
    createdAt: createdAt(),
  },
});

export class ProductVariant extends ProductVariantSchema.class {}
ProductVariantSchema.setClass(ProductVariant);
