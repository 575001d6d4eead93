import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../infra/database/timestamps.js';
import { STORE_PLANS } from '../../common/permissions.js';

const StoreSchema = defineEntity({
  name: 'Store',
  tableName: 'stores',
  checks: [{ name: 'stores_tax_rate_bps_check', expression: 'tax_rate_bps >= 0 and tax_rate_bps <= 10000' }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    name: p.string().length(200),
    plan: p.enum(STORE_PLANS).default('basic'),
    currency: p.string().length(3).default('SAR'),
    /** Tax rate in basis points: 1500 is Saudi VAT's 15%. */
    taxRateBps: p.integer().default(1500),
    pricesIncludeTax: p.boolean().default(true),
    timezone: p.string().length(64).default('Asia/Riyadh'),
    createdAt: createdAt(),
  },
});

export class Store extends StoreSchema.class {}
StoreSchema.setClass(Store);
