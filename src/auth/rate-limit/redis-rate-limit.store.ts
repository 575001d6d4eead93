import type { OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { recordFor, windowOf, type RateLimitStore, type ThrottlerStorageRecord } from './fixed-window.js';

/** Counters shared by every instance: one INCR per request, the key expiring with its window. */
export class RedisRateLimitStore implements RateLimitStore, OnApplicationShutdown {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: true, lazyConnect: false });
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    const window = windowOf(ttl, now);
    const counterKey = `ratelimit:${key}:${window.index}`;
    const results = await this.redis.multi().incr(counterKey).pexpireat(counterKey, window.endsAt + 1000).exec();
    const hits = Number(results?.[0]?.[1]);
    return recordFor(hits, limit, window.endsAt, now);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
