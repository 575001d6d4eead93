import { EntityManager } from '@mikro-orm/postgresql';
import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import type { Locale } from '../common/locale.js';
import { NOTIFIER, type Attachment, type Notifier } from './notifier.js';
import { renderTemplate, type TemplateName, type TemplateVars } from './templates.js';

export interface NotificationRequest<T extends TemplateName> {
  storeId: string;
  to: string;
  locale: Locale;
  template: T;
  vars: TemplateVars[T];
  attachments?: Attachment[];
}

/**
 * Renders a template in the reader's language and hands it to the configured notifier. Rejects with
 * NotificationFailedError when delivery fails: callers decide whether that fails their request.
 */
@Injectable()
export class NotificationsService {
  constructor(
    @Inject(NOTIFIER) private readonly notifier: Notifier,
    private readonly em: EntityManager,
  ) {}

  async send<T extends TemplateName>(request: NotificationRequest<T>): Promise<void> {
    const { rows } = await sql<{ name: string }>`select name from stores where id = ${request.storeId}`.execute(this.em.getKysely());
    const storeName = rows[0]?.name;
    if (storeName === undefined) throw new Error(`no store ${request.storeId}`);
    const rendered = renderTemplate(request.template, request.locale, request.vars, { storeName });
    await this.notifier.deliver({
      storeId: request.storeId,
      to: request.to,
      locale: request.locale,
      template: request.template,
      ...rendered,
      attachments: request.attachments,
    });
  }

  /** Deletes outbox messages older than `days`; returns how many. */
  async purgeOutbox(days: number): Promise<number> {
    const { numAffectedRows } = await sql`
      delete from notification_outbox where created_at < now() - make_interval(days => ${days})`.execute(this.em.getKysely());
    return Number(numAffectedRows ?? 0);
  }
}
