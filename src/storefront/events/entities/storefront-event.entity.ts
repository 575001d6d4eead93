import { defineEntity, p } from '@mikro-orm/core';
import { Store } from '../../../stores/entities/store.entity.js';

export const STOREFRONT_EVENT_KINDS = ['session_started', 'product_viewed', 'cart_line_added', 'checkout_quoted', 'order_placed'] as const;
export type StorefrontEventKind = (typeof STOREFRONT_EVENT_KINDS)[number];

/** Something a shopper did in a session: the Insights funnel and searches reports read these. */
const StorefrontEventSchema = defineEntity({
  name: 'StorefrontEvent',
  tableName: 'storefront_events',
  indexes: [{ properties: ['sessionId', 'kind', 'occurredAt'] }, { properties: ['store', 'occurredAt'] }],
  properties: {
    id: p.bigint().primary().autoincrement(),
    store: () => p.manyToOne(Store).mapToPk(),
    /** Not a foreign key: most history sessions (the demo's) have no session row, and sessions may be purged. */
    sessionId: p.uuid(),
    kind: p.enum(STOREFRONT_EVENT_KINDS),
    productId: p.uuid().nullable(),
    orderId: p.uuid().nullable(),
    occurredAt: p.datetime().defaultRaw('now()'),
  },
});

export class StorefrontEvent extends StorefrontEventSchema.class {}
StorefrontEventSchema.setClass(StorefrontEvent);
