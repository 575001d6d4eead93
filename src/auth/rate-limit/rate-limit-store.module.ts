import { Module } from '@nestjs/common';
import { AppConfig } from '../../infra/config/app-config.js';
import { MemoryRateLimitStore } from './memory-rate-limit.store.js';
import { RedisRateLimitStore } from './redis-rate-limit.store.js';

export const RATE_LIMIT_STORE = Symbol('RateLimitStore');

/** Chooses the counter store: Redis when REDIS_URL is set (shared by instances), memory otherwise. */
@Module({
  providers: [
    {
      provide: RATE_LIMIT_STORE,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => (config.REDIS_URL ? new RedisRateLimitStore(config.REDIS_URL) : new MemoryRateLimitStore()),
    },
  ],
  exports: [RATE_LIMIT_STORE],
})
export class RateLimitStoreModule {}
