import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';

const PickupLocationSchema = defineEntity({
  name: 'PickupLocation',
  tableName: 'pickup_locations',
  uniques: [{ properties: ['store', 'code'] }],
  checks: [{ name: 'pickup_locations_preparation_hours_check', expression: 'preparation_hours >= 0' }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    code: p.string().length(40),
    nameEn: p.string().length(200),
    nameAr: p.string().length(200),
    addressEn: p.string().length(400),
    addressAr: p.string().length(400),
    city: p.string().length(100),
    /** Hours between placing an order and it being ready to collect. */
    preparationHours: p.integer().default(2),
    position: p.integer().default(0),
    active: p.boolean().default(true),
  },
});

export class PickupLocation extends PickupLocationSchema.class {}
PickupLocationSchema.setClass(PickupLocation);
