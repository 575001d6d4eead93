import { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { Notifier, OutgoingMessage } from './notifier.js';

/** Keeps messages in `notification_outbox` instead of sending them: the default, so codes work with no mail server. */
export class OutboxNotifier implements Notifier {
  constructor(private readonly em: EntityManager) {}

  async deliver(message: OutgoingMessage): Promise<void> {
    // Attachments are kept whole, as a mail server would get them (Insights deliveries cap their files' size).
    const attachments = message.attachments?.map(({ filename, contentType, content }) => ({
      filename,
      contentType,
      bytes: content.length,
      contentBase64: content.toString('base64'),
    }));
    await sql`
      insert into notification_outbox (store_id, recipient, template, locale, subject, body_text, attachments)
      values (${message.storeId}, ${message.to}, ${message.template}, ${message.locale}, ${message.subject}, ${message.text},
              ${attachments ? JSON.stringify(attachments) : null}::jsonb)`.execute(this.em.getKysely());
  }
}

export interface OutboxEntry {
  id: string;
  recipient: string;
  template: string;
  locale: string;
  subject: string;
  bodyText: string;
  /** What was attached, without the content. */
  attachments: { filename: string; contentType: string; bytes: number }[];
  createdAt: string;
}

/** The store's outbox, newest first (the operator's `outbox list`). */
export async function readOutbox(em: EntityManager, storeId: string, options: { to?: string; limit: number }): Promise<OutboxEntry[]> {
  const { rows } = await sql<OutboxEntry>`
    select id, recipient, template, locale, subject, body_text as "bodyText",
           coalesce((select jsonb_agg(a - 'contentBase64') from jsonb_array_elements(attachments) a), '[]') as attachments,
           iso_utc(created_at) as "createdAt"
    from notification_outbox
    where store_id = ${storeId} ${options.to ? sql`and lower(recipient) = ${options.to.trim().toLowerCase()}` : sql``}
    order by created_at desc, id desc
    limit ${options.limit}`.execute(em.getKysely());
  return rows;
}
