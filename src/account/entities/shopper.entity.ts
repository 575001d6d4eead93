import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../stores/entities/store.entity.js';
import { createdAt, updatedAt } from '../../infra/database/timestamps.js';
import { LOCALES } from '../../common/locale.js';

const ShopperSchema = defineEntity({
  name: 'Shopper',
  tableName: 'shoppers',
  uniques: [{ properties: ['store', 'emailNormalized'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    email: p.string().length(254),
    /** Lower-cased and trimmed: the shopper's identity within the store. */
    emailNormalized: p.string().length(254),
    /** argon2id PHC string; null for a shopper who only signs in with one-time codes. */
    passwordHash: p.text().nullable(),
    firstName: p.string().length(100).default(''),
    lastName: p.string().length(100).default(''),
    phone: p.string().length(32).nullable(),
    locale: p.enum(LOCALES).default('ar'),
    marketingOptIn: p.boolean().default(false),
    emailVerifiedAt: p.datetime().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export class Shopper extends ShopperSchema.class {}
ShopperSchema.setClass(Shopper);
