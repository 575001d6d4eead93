import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { NotificationsModule } from '../notifications/notifications.module.js';
import { CartModule } from '../storefront/cart/cart.module.js';
import { AccountController } from './account.controller.js';
import { AccountService } from './account.service.js';
import { AddressesController } from './addresses.controller.js';
import { AddressesService } from './addresses.service.js';
import { OneTimeCodes } from './one-time-codes.js';
import { PasswordHasher } from '../infra/crypto/password-hasher.js';
import { ProfileService } from './profile.service.js';
import { SecretsRetentionScheduler } from './secrets-retention.scheduler.js';
import { SignInLimiter } from './sign-in-limiter.js';

/** Shoppers: registration, sign-in (password or one-time code), sign-out, profile and addresses. */
@Module({
  imports: [AuthModule, CartModule, NotificationsModule],
  controllers: [AccountController, AddressesController],
  providers: [AccountService, ProfileService, AddressesService, PasswordHasher, OneTimeCodes, SignInLimiter, SecretsRetentionScheduler],
})
export class AccountModule {}
