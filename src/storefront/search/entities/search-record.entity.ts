import { defineEntity, p } from '@mikro-orm/core';
import { Shopper } from '../../../account/entities/shopper.entity.js';
import { Session } from '../../../auth/entities/session.entity.js';
import { Store } from '../../../stores/entities/store.entity.js';
import { createdAt } from '../../../infra/database/timestamps.js';

export const SEARCH_LOCALES = ['en', 'ar'] as const;

/** One storefront search as it was run: the Insights searches report reads these. */
const SearchRecordSchema = defineEntity({
  name: 'SearchRecord',
  tableName: 'searches',
  indexes: [{ properties: ['store', 'createdAt'] }, { properties: ['session', 'createdAt'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    session: () => p.manyToOne(Session).mapToPk().nullable().deleteRule('no action'),
    shopper: () => p.manyToOne(Shopper).mapToPk().nullable().deleteRule('no action'),
    query: p.string().length(200),
    normalizedQuery: p.string().length(200),
    locale: p.enum(SEARCH_LOCALES),
    resultCount: p.integer(),
    createdAt: createdAt(),
  },
});

export class SearchRecord extends SearchRecordSchema.class {}
SearchRecordSchema.setClass(SearchRecord);
