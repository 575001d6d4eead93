import { Module } from '@nestjs/common';
import { CartModule } from './cart/cart.module.js';
import { CatalogueModule } from './catalogue/catalogue.module.js';
import { CheckoutModule } from './checkout/checkout.module.js';
import { OrdersModule } from './orders/orders.module.js';
import { SearchModule } from './search/search.module.js';

/** The shopper-facing areas, one module each. */
@Module({
  imports: [CatalogueModule, SearchModule, CartModule, CheckoutModule, OrdersModule],
})
export class StorefrontModule {}
