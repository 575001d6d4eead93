import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { OrderLifecycleModule } from './order-lifecycle.module.js';
import { OrdersController } from './orders.controller.js';
import { OrdersService } from './orders.service.js';
import { PaymentCaptureScheduler } from './payment-capture.scheduler.js';

/**
 * The orders a session or its shopper may read, their lifecycle after placement (OrderLifecycle), and
 * the retry of card captures that failed after placement.
 */
@Module({
  imports: [AuthModule, OrderLifecycleModule],
  controllers: [OrdersController],
  providers: [OrdersService, PaymentCaptureScheduler],
  exports: [OrdersService, OrderLifecycleModule],
})
export class OrdersModule {}
