import { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { Notifier, OutgoingMessage } from './notifier.js';

/** Keeps messages in `notification_outbox` instead of sending them: the default, so codes work with no mail server. */
export class OutboxNotifier implements Notifier {
  constructor(private readonly em: EntityManager) {}

  async deliver(message: OutgoingMessage): Promise<void> {
    await sql`
      insert into notification_outbox (store_id, recipient, template, locale, subject, body_text)
      values (${message.storeId}, ${message.to}, ${message.template}, ${message.locale}, ${message.subject}, ${message.text})`.execute(
      this.em.getKysely(),
    );
  }
}

export interface OutboxEntry {
  id: string;
  recipient: string;
  template: string;
  locale: string;
  subject: string;
  bodyText: string;
  createdAt: string;
}

/** The store's outbox, newest first (the operator's `outbox list`). */
export async function readOutbox(em: EntityManager, storeId: string, options: { to?: string; limit: number }): Promise<OutboxEntry[]> {
  const { rows } = await sql<OutboxEntry>`
    select id, recipient, template, locale, subject, body_text as "bodyText", iso_utc(created_at) as "createdAt"
    from notification_outbox
    where store_id = ${storeId} ${options.to ? sql`and lower(recipient) = ${options.to.trim().toLowerCase()}` : sql``}
    order by created_at desc, id desc
    limit ${options.limit}`.execute(em.getKysely());
  return rows;
}
