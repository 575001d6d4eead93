import { Module } from '@nestjs/common';
import { AppConfig } from '../../infra/config/app-config.js';
import { PAYMENT_PROVIDER, type PaymentProvider } from './payment-provider.js';
import { TestPaymentProvider } from './test-payment-provider.js';

/** The card payment provider chosen by PAYMENT_PROVIDER. */
@Module({
  providers: [
    TestPaymentProvider,
    {
      provide: PAYMENT_PROVIDER,
      inject: [AppConfig, TestPaymentProvider],
      useFactory: (config: AppConfig, test: TestPaymentProvider): PaymentProvider => {
        const providers: Record<string, PaymentProvider> = { test };
        return providers[config.PAYMENT_PROVIDER];
      },
    },
  ],
  exports: [PAYMENT_PROVIDER],
})
export class PaymentsModule {}
