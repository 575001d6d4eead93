import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { StorefrontEventsModule } from '../storefront/events/storefront-events.module.js';
import { StoresModule } from '../stores/stores.module.js';
import { AccessGuard } from './access/access.guard.js';
import { AuthController } from './auth.controller.js';
import { DashboardModule } from './dashboard/dashboard.module.js';
import { JwksController } from './jwks.controller.js';
import { ApiKeyRateLimitGuard } from './rate-limit/api-key-rate-limit.guard.js';
import type { RateLimitStore } from './rate-limit/fixed-window.js';
import { RATE_LIMIT_STORE, RateLimitStoreModule } from './rate-limit/rate-limit-store.module.js';
import { SessionShoppers } from './session-shoppers.service.js';
import { SessionWriter } from './session-writer.js';
import { SessionService } from './session.service.js';
import { SigningModule } from './signing/signing.module.js';
import { StaffAuthController } from './staff/staff-auth.controller.js';
import { TokenService } from './token.service.js';

@Module({
  imports: [
    StoresModule,
    StorefrontEventsModule,
    SigningModule,
    DashboardModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStoreModule],
      inject: [RATE_LIMIT_STORE],
      useFactory: (store: RateLimitStore) => ApiKeyRateLimitGuard.options(store),
    }),
  ],
  controllers: [AuthController, JwksController, StaffAuthController],
  providers: [
    TokenService,
    SessionService,
    SessionWriter,
    SessionShoppers,
    // Order matters: the access guard resolves the key the rate limiter counts.
    { provide: APP_GUARD, useClass: AccessGuard },
    { provide: APP_GUARD, useClass: ApiKeyRateLimitGuard },
  ],
  exports: [TokenService, SessionService, SessionShoppers],
})
export class AuthModule {}
