import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';

/** A word of a store's product, brand and category names, with how many active products hold it. */
const SearchTermSchema = defineEntity({
  name: 'SearchTerm',
  tableName: 'search_terms',
  indexes: [{ properties: ['store', 'term'], type: 'gin' }],
  properties: {
    store: () => p.manyToOne(Store).mapToPk().primary(),
    term: p.string().length(200).primary(),
    productCount: p.integer(),
  },
});

export class SearchTerm extends SearchTermSchema.class {}
SearchTermSchema.setClass(SearchTerm);
