import { defineEntity, p } from '@mikro-orm/core';
import { LOCALES } from '../common/locale.js';
import { Store } from '../stores/entities/store.entity.js';
import { createdAt } from '../infra/database/timestamps.js';

/** A message the outbox notifier kept instead of sending: read by the operator with `outbox list`. */
const OutboxMessageSchema = defineEntity({
  name: 'OutboxMessage',
  tableName: 'notification_outbox',
  indexes: [{ properties: ['store', 'createdAt'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    recipient: p.string().length(254),
    template: p.string().length(60),
    locale: p.enum(LOCALES),
    subject: p.text(),
    bodyText: p.text(),
    /** Files sent with the message, whole (base64). */
    attachments: p.json<{ filename: string; contentType: string; bytes: number; contentBase64: string }[]>().nullable(),
    createdAt: createdAt(),
  },
});

export class OutboxMessage extends OutboxMessageSchema.class {}
OutboxMessageSchema.setClass(OutboxMessage);
