import { Module } from '@nestjs/common';
import { AppConfig } from '../../infra/config/app-config.js';
import { PAYMENT_PROVIDER, type PaymentProvider } from './payment-provider.js';
import { PaymentCaptureScheduler } from './payment-capture.scheduler.js';
import { Payments } from './payments.service.js';
import { TestPaymentProvider } from './test-payment-provider.js';

/** Payments through the card provider chosen by PAYMENT_PROVIDER, and the retry of stalled captures. */
@Module({
  providers: [
    TestPaymentProvider,
    Payments,
    PaymentCaptureScheduler,
    {
      provide: PAYMENT_PROVIDER,
      inject: [AppConfig, TestPaymentProvider],
      useFactory: (config: AppConfig, test: TestPaymentProvider): PaymentProvider => {
        const providers: Record<string, PaymentProvider> = { test };
        return providers[config.PAYMENT_PROVIDER];
      },
    },
  ],
  exports: [Payments],
})
export class PaymentsModule {}
