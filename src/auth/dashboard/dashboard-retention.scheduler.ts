import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { StaffSignInLimiter } from '../staff/staff-sign-in-limiter.js';

/** Failed staff sign-ins outside the limiter's window count for nothing: deleted hourly on every instance (idempotent). */
@Injectable()
export class DashboardRetentionScheduler {
  private readonly logger = new Logger(DashboardRetentionScheduler.name);

  constructor(private readonly limiter: StaffSignInLimiter) {}

  @Cron(CronExpression.EVERY_HOUR, { name: 'dashboard-sign-in-failures-retention' })
  async purgeHourly(): Promise<void> {
    try {
      const purged = await this.limiter.purgeExpired();
      if (purged > 0) this.logger.log(`purged ${purged} failed staff sign-ins`);
    } catch (error) {
      this.logger.error(`retention purge failed: ${(error as Error).message}`);
    }
  }
}
