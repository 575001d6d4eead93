import { defineEntity, p } from '@mikro-orm/core';
import { LOCALES } from '../../common/locale.js';
import { updatedAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';
import { WEEK_STARTS } from '../query/ranges.js';

/** A store's Insights settings; its time zone and currency are the store's own. */
const InsightsSettingsSchema = defineEntity({
  name: 'InsightsSettings',
  tableName: 'insights_settings',
  properties: {
    store: () => p.manyToOne(Store).mapToPk().primary().updateRule('no action').deleteRule('no action'),
    weekStartsOn: p.enum(WEEK_STARTS).default('sunday'),
    /** The language of exports' headers and delivered reports. */
    language: p.enum(LOCALES).default('en'),
    /** When a time-zone change last asked for the rollups to be rebuilt. */
    rebuildRequestedAt: p.datetime().nullable(),
    /** The request the last finished rebuild answered. */
    rebuiltAt: p.datetime().nullable(),
    updatedAt: updatedAt(),
  },
});

export class InsightsSettings extends InsightsSettingsSchema.class {}
InsightsSettingsSchema.setClass(InsightsSettings);
