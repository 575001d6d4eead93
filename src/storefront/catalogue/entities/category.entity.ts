import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';
import { createdAt } from '../../../infra/database/timestamps.js';

const CategorySchema = defineEntity({
  name: 'Category',
  tableName: 'categories',
  uniques: [{ properties: ['store', 'slug'] }],
  indexes: [{ name: 'categories_path_gin', properties: ['path'], type: 'gin' }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    parent: () => p.manyToOne(Category).mapToPk().nullable().index(),
    /** Ids from the root down to this category, itself included: subtree filters are one array lookup. */
    path: p.array().columnType('uuid[]'),
    slug: p.string().length(200),
    nameEn: p.string().length(200),
    nameAr: p.string().length(200),
    descriptionEn: p.text().default(''),
    descriptionAr: p.text().default(''),
    position: p.integer().default(0),
    createdAt: createdAt(),
  },
});

export class Category extends CategorySchema.class {}
CategorySchema.setClass(Category);
