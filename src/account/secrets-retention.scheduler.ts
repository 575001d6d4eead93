import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { Recurring } from '../infra/jobs/recurring.decorator.js';
import { NotificationsService } from '../notifications/notifications.service.js';
import { SIGN_IN_WINDOW_MINUTES } from './sign-in-limiter.js';

/** Outbox messages carry live one-time codes in plain text: they are the development mailbox, kept a week. */
export const OUTBOX_RETENTION_DAYS = 7;
/** Spent or expired codes stay a day, for support questions about a failed sign-in. */
export const CODE_RETENTION_HOURS = 24;

export interface Purged {
  oneTimeCodes: number;
  signInFailures: number;
  outboxMessages: number;
}

/**
 * Deletes what only mattered for a while: one-time codes past use, failed sign-ins outside the
 * limiter's window, and old outbox messages. Hourly.
 */
@Injectable()
export class SecretsRetentionScheduler {
  private readonly logger = new Logger(SecretsRetentionScheduler.name);

  constructor(
    private readonly em: EntityManager,
    private readonly notifications: NotificationsService,
  ) {}

  @Recurring('account.secrets-retention', '0 * * * *')
  async purgeHourly(): Promise<void> {
    const purged = await this.purge();
    if (purged.oneTimeCodes + purged.signInFailures + purged.outboxMessages > 0) this.logger.log(`purged ${JSON.stringify(purged)}`);
  }

  async purge(): Promise<Purged> {
    const db = this.em.getKysely();
    const codes = await sql`
      delete from one_time_codes
      where coalesce(consumed_at, expires_at) < now() - make_interval(hours => ${CODE_RETENTION_HOURS})`.execute(db);
    const failures = await sql`
      delete from sign_in_failures where created_at < now() - make_interval(mins => ${2 * SIGN_IN_WINDOW_MINUTES})`.execute(db);
    return {
      oneTimeCodes: Number(codes.numAffectedRows ?? 0),
      signInFailures: Number(failures.numAffectedRows ?? 0),
      outboxMessages: await this.notifications.purgeOutbox(OUTBOX_RETENTION_DAYS),
    };
  }
}
