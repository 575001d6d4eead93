import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../stores/entities/store.entity.js';
import { Shopper } from './shopper.entity.js';
import { createdAt, updatedAt } from '../../infra/database/timestamps.js';

const AddressSchema = defineEntity({
  name: 'Address',
  tableName: 'addresses',
  indexes: [
    {
      name: 'addresses_default_shipping_unique',
      expression: 'create unique index addresses_default_shipping_unique on addresses (shopper_id) where is_default_shipping',
    },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    shopper: () => p.manyToOne(Shopper).mapToPk().deleteRule('cascade').index(),
    label: p.string().length(60).default(''),
    fullName: p.string().length(200),
    phone: p.string().length(32),
    line1: p.string().length(200),
    line2: p.string().length(200).default(''),
    district: p.string().length(100).default(''),
    city: p.string().length(100),
    region: p.string().length(100).default(''),
    postalCode: p.string().length(20).default(''),
    /** ISO 3166-1 alpha-2. */
    country: p.string().length(2),
    isDefaultShipping: p.boolean().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export class Address extends AddressSchema.class {}
AddressSchema.setClass(Address);
