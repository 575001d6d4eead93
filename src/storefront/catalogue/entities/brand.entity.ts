import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';
import { createdAt } from '../../../infra/database/timestamps.js';

const BrandSchema = defineEntity({
  name: 'Brand',
  tableName: 'brands',
  uniques: [{ properties: ['store', 'slug'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    slug: p.string().length(200),
    nameEn: p.string().length(200),
    nameAr: p.string().length(200),
    descriptionEn: p.text().default(''),
    descriptionAr: p.text().default(''),
    createdAt: createdAt(),
  },
});

export class Brand extends BrandSchema.class {}
BrandSchema.setClass(Brand);
