import { defineEntity, p } from '@mikro-orm/core';
import { LOCALES } from '../../common/locale.js';
import { updatedAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';
import { WEEK_STARTS } from '../query/ranges.js';

/** A store's Insights settings; its time zone and currency are the store's own. */
const InsightsSettingsSchema = defineEntity({
  name: 'InsightsSettings',
  tableName: 'insights_settings',
  checks: [{ name: 'insights_settings_late_after_hours_check', expression: 'late_after_hours >= 0 and late_after_hours <= 720' }],
  properties: {
    store: () => p.manyToOne(Store).mapToPk().primary().updateRule('no action').deleteRule('no action'),
    weekStartsOn: p.enum(WEEK_STARTS).default('sunday'),
    /** The language of exports' headers and delivered reports. */
    language: p.enum(LOCALES).default('en'),
    /** Whether every figure leaves the store's test orders out (Shopify does). */
    excludeTestOrders: p.boolean().default(true),
    /** The grace after an order's promise before it counts as late; null is none. */
    lateAfterHours: p.integer().nullable(),
    /** When a change of the settings (time zone, test orders, grace) last asked for the rollups to be rebuilt. */
    rebuildRequestedAt: p.datetime().nullable(),
    /** The request the last finished rebuild answered. */
    rebuiltAt: p.datetime().nullable(),
    updatedAt: updatedAt(),
  },
});

export class InsightsSettings extends InsightsSettingsSchema.class {}
InsightsSettingsSchema.setClass(InsightsSettings);
