import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { Payments } from './payments.service.js';

/**
 * Every minute, captures the card payments whose capture failed right after their order was placed
 * (Payments.captureStalled). Safe on every instance at once: each order is captured under its
 * row lock and only while still authorised; a run still going when the next is due is not doubled.
 */
@Injectable()
export class PaymentCaptureScheduler {
  private readonly logger = new Logger(PaymentCaptureScheduler.name);
  private running = false;

  constructor(private readonly payments: Payments) {}

  @Cron(CronExpression.EVERY_MINUTE, { name: 'payments-capture-retry' })
  async captureEveryMinute(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const { captured, failed } = await this.payments.captureStalled();
      if (captured > 0) this.logger.log(`captured ${captured} stalled card payment(s)`);
      if (failed > 0) this.logger.warn(`${failed} stalled card payment(s) still not captured; retrying next minute`);
    } catch (error) {
      this.logger.error(`capture retry failed: ${(error as Error).message}`);
    } finally {
      this.running = false;
    }
  }
}
