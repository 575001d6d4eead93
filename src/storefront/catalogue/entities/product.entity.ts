import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';
import { Brand } from './brand.entity.js';
import { Category } from './category.entity.js';
import { createdAt, updatedAt } from '../../../infra/database/timestamps.js';

export const PRODUCT_STATUSES = ['active', 'draft', 'archived'] as const;

const ProductSchema = defineEntity({
  name: 'Product',
  tableName: 'products',
  uniques: [{ properties: ['store', 'slug'] }],
  indexes: [{ properties: ['store', 'createdAt', 'id'] }, { properties: ['store', 'category'] }, { properties: ['store', 'brand'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    category: () => p.manyToOne(Category).mapToPk().nullable(),
    brand: () => p.manyToOne(Brand).mapToPk().nullable(),
    slug: p.string().length(200),
    nameEn: p.string().length(300),
    nameAr: p.string().length(300),
    descriptionEn: p.text().default(''),
    descriptionAr: p.text().default(''),
    status: p.enum(PRODUCT_STATUSES).default('active'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export class Product extends ProductSchema.class {}
ProductSchema.setClass(Product);
