import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { OrderLifecycleModule } from './order-lifecycle.module.js';
import { OrdersController } from './orders.controller.js';
import { OrdersService } from './orders.service.js';

/** The orders a session or its shopper may read, and their lifecycle after placement (OrderLifecycle). */
@Module({
  imports: [AuthModule, OrderLifecycleModule],
  controllers: [OrdersController],
  providers: [OrdersService],
  exports: [OrdersService, OrderLifecycleModule],
})
export class OrdersModule {}
