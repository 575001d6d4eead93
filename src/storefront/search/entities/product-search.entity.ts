import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';
import { Product } from '../../catalogue/entities/product.entity.js';

/**
 * The search row of an active product, written only by the database's catalogue triggers
 * (migration 0003-search): the service reads it, never writes it.
 */
const ProductSearchSchema = defineEntity({
  name: 'ProductSearch',
  tableName: 'product_search',
  indexes: [{ properties: ['store', 'document'], type: 'gin' }],
  properties: {
    product: () => p.manyToOne(Product).primary().mapToPk().deleteRule('cascade').updateRule('no action'),
    store: () => p.manyToOne(Store).mapToPk(),
    categoryId: p.uuid().nullable(),
    brandId: p.uuid().nullable(),
    minPrice: p.integer().nullable(),
    currency: p.string().length(3).nullable(),
    createdAt: p.datetime(),
    document: p.string().columnType('tsvector'),
  },
});

export class ProductSearch extends ProductSearchSchema.class {}
ProductSearchSchema.setClass(ProductSearch);
