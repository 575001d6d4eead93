import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { CartController } from './cart.controller.js';
import { CartService } from './cart.service.js';
import { StoresModule } from '../../stores/stores.module.js';
import { StorefrontEventsModule } from '../events/storefront-events.module.js';

/** The session's or shopper's cart. Exported: signing in merges the anonymous cart (AccountModule). */
@Module({
  imports: [StoresModule, AuthModule, StorefrontEventsModule],
  controllers: [CartController],
  providers: [CartService],
  exports: [CartService],
})
export class CartModule {}
