import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { NotificationsModule } from '../../notifications/notifications.module.js';
import { CartModule } from '../cart/cart.module.js';
import { OrdersModule } from '../orders/orders.module.js';
import { CheckoutController } from './checkout.controller.js';
import { CheckoutService } from './checkout.service.js';
import { OrderPlacementService } from './order-placement.service.js';
import { PaymentsModule } from '../payments/payments.module.js';
import { StorefrontEventsModule } from '../events/storefront-events.module.js';

/** Quote, fulfilment choice and order placement, with the payment provider strategy. */
@Module({
  imports: [AuthModule, CartModule, OrdersModule, PaymentsModule, NotificationsModule, StorefrontEventsModule],
  controllers: [CheckoutController],
  providers: [CheckoutService, OrderPlacementService],
})
export class CheckoutModule {}
