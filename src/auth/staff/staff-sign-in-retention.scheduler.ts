import { Injectable, Logger } from '@nestjs/common';
import { Recurring } from '../../infra/jobs/recurring.decorator.js';
import { StaffSignInLimiter } from './staff-sign-in-limiter.js';

/** Failed staff sign-ins outside the limiter's window count for nothing: deleted hourly. */
@Injectable()
export class StaffSignInRetentionScheduler {
  private readonly logger = new Logger(StaffSignInRetentionScheduler.name);

  constructor(private readonly limiter: StaffSignInLimiter) {}

  @Recurring('dashboard.sign-in-failures-retention', '0 * * * *')
  async purgeHourly(): Promise<void> {
    const purged = await this.limiter.purgeExpired();
    if (purged > 0) this.logger.log(`purged ${purged} failed staff sign-ins`);
  }
}
