import { Module } from '@nestjs/common';
import { PaymentsModule } from '../payments/payments.module.js';
import { OrderLifecycle } from './order-lifecycle.service.js';

/**
 * The order lifecycle on its own: it needs only the database and payments, so the
 * operator command line loads it without the HTTP and session machinery of OrdersModule.
 */
@Module({
  imports: [PaymentsModule],
  providers: [OrderLifecycle],
  exports: [OrderLifecycle],
})
export class OrderLifecycleModule {}
