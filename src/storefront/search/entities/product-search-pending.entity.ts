import { defineEntity, p } from '@mikro-orm/core';

/**
 * Products whose search rows a transaction has yet to refresh: written by the catalogue triggers and
 * emptied when that transaction commits (migration 0003-search). Never holds a committed row.
 */
const ProductSearchPendingSchema = defineEntity({
  name: 'ProductSearchPending',
  tableName: 'product_search_pending',
  properties: {
    productId: p.uuid().primary(),
  },
});

export class ProductSearchPending extends ProductSearchPendingSchema.class {}
ProductSearchPendingSchema.setClass(ProductSearchPending);
