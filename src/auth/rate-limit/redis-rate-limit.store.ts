import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { recordFor, windowOf, type RateLimitStore, type ThrottlerStorageRecord } from './fixed-window.js';
import { MemoryRateLimitStore } from './memory-rate-limit.store.js';

/** A Redis that answers nothing within this long is treated as down for that request. */
const COMMAND_TIMEOUT_MS = 500;
const WARN_EVERY_MS = 30_000;

/**
 * Counters shared by every instance: one INCR per request, the key expiring with its window.
 *
 * Redis is an optimisation of the limit, not a dependency of the API: while it is unreachable each
 * instance counts on its own (the limit is still enforced, per instance) instead of answering 500
 * to every request that carries a key.
 */
export class RedisRateLimitStore implements RateLimitStore, OnApplicationShutdown {
  private readonly logger = new Logger(RedisRateLimitStore.name);
  private readonly redis: Redis;
  private readonly fallback = new MemoryRateLimitStore();
  private lastWarnedAt = 0;
  /** False from a connection error until Redis is ready again: requests then skip it rather than wait on it. */
  private available = true;

  constructor(url: string) {
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      enableAutoPipelining: true,
      lazyConnect: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
    });
    // Without a listener ioredis reports every failed reconnection as an unhandled error event.
    this.redis.on('error', (error: Error) => {
      this.available = false;
      this.warn(`Redis rate-limit store unavailable, counting per instance: ${error.message}`);
    });
    this.redis.on('ready', () => {
      if (!this.available) this.logger.log('Redis rate-limit store available again');
      this.available = true;
    });
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    const window = windowOf(ttl, now);
    const counterKey = `ratelimit:${key}:${window.index}`;
    if (!this.available) return this.fallback.increment(key, ttl, limit);
    try {
      const results = await this.redis
        .multi()
        .incr(counterKey)
        .pexpireat(counterKey, window.endsAt + 1000)
        .exec();
      const [error, value] = results?.[0] ?? [new Error('empty transaction result'), null];
      if (error) throw error;
      return recordFor(Number(value), limit, window.endsAt, now);
    } catch (error) {
      this.warn(`Redis rate-limit store failed, counting in this instance: ${(error as Error).message}`);
      return this.fallback.increment(key, ttl, limit);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarnedAt < WARN_EVERY_MS) return;
    this.lastWarnedAt = now;
    this.logger.warn(message);
  }
}
