import { Injectable, Logger } from '@nestjs/common';
import { Recurring } from '../../infra/jobs/recurring.decorator.js';
import { Payments } from './payments.service.js';

/**
 * Every minute, captures the card payments whose capture failed right after their order was placed
 * (Payments.captureStalled): each order is captured under its row lock and only while still authorised.
 */
@Injectable()
export class PaymentCaptureScheduler {
  private readonly logger = new Logger(PaymentCaptureScheduler.name);
  constructor(private readonly payments: Payments) {}

  @Recurring('payments.capture-retry', '* * * * *')
  async captureEveryMinute(): Promise<void> {
    const { captured, failed } = await this.payments.captureStalled();
    if (captured > 0) this.logger.log(`captured ${captured} stalled card payment(s)`);
    if (failed > 0) this.logger.warn(`${failed} stalled card payment(s) still not captured; retrying next minute`);
  }
}
