import { EntityManager } from '@mikro-orm/postgresql';
import { Module } from '@nestjs/common';
import { AppConfig } from '../infra/config/app-config.js';
import { NOTIFIER, type Notifier } from './notifier.js';
import { NotificationsService } from './notifications.service.js';
import { OutboxNotifier } from './outbox.notifier.js';
import { SmtpNotifier } from './smtp.notifier.js';

/**
 * Messages to shoppers through the configured notifier: SMTP when SMTP_URL is set, else the outbox
 * table. Other modules send with `NotificationsService.send({ storeId, to, locale, template, vars })`.
 */
@Module({
  providers: [
    {
      provide: NOTIFIER,
      inject: [AppConfig, EntityManager],
      useFactory: (config: AppConfig, em: EntityManager): Notifier =>
        config.SMTP_URL ? new SmtpNotifier(config.SMTP_URL, config.MAIL_FROM) : new OutboxNotifier(em),
    },
    NotificationsService,
  ],
  exports: [NotificationsService, NOTIFIER],
})
export class NotificationsModule {}
