import { defineEntity, p } from '@mikro-orm/core';

export const STORE_PLANS = ['basic', 'growth', 'pro'] as const;
export type StorePlan = (typeof STORE_PLANS)[number];

const StoreSchema = defineEntity({
  name: 'Store',
  tableName: 'stores',
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    name: p.string().length(200),
    plan: p.enum(STORE_PLANS).default('basic'),
    currency: p.string().length(3).default('SAR'),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});

export class Store extends StoreSchema.class {}
StoreSchema.setClass(Store);
