import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';
import { Product } from '../../catalogue/entities/product.entity.js';

/**
 * The normalised names of an active product, its brand and categories, from which the database's
 * triggers count the store's vocabulary (`search_terms`). Written only by those triggers
 * (migration 0003-search).
 */
const ProductTermsSchema = defineEntity({
  name: 'ProductTerms',
  tableName: 'product_terms',
  properties: {
    product: () => p.manyToOne(Product).primary().mapToPk().deleteRule('cascade').updateRule('no action'),
    store: () => p.manyToOne(Store).mapToPk(),
    termsText: p.text(),
  },
});

export class ProductTerms extends ProductTermsSchema.class {}
ProductTermsSchema.setClass(ProductTerms);
