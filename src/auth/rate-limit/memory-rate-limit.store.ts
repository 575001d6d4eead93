import { recordFor, windowOf, type RateLimitStore, type ThrottlerStorageRecord } from './fixed-window.js';

/** Per-process counters: right for a single instance, wrong for several (use Redis there). */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, { window: number; hits: number }>();

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    const window = windowOf(ttl, now);
    const counter = this.counters.get(key);
    if (!counter || counter.window !== window.index) {
      if (this.counters.size > 100_000) this.sweep(window.index);
      this.counters.set(key, { window: window.index, hits: 1 });
      return recordFor(1, limit, window.endsAt, now);
    }
    counter.hits += 1;
    return recordFor(counter.hits, limit, window.endsAt, now);
  }

  private sweep(currentWindow: number): void {
    for (const [key, counter] of this.counters) if (counter.window !== currentWindow) this.counters.delete(key);
  }
}
