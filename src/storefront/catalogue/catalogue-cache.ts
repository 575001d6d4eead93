import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../infra/config/app-config.js';
import { ChangeFeed } from '../../infra/database/change-feed.js';
import type { RenderedJson } from '../../infra/http/rendered-json.js';

/** Published by a database trigger on every committed catalogue change (migration 0001). */
const CATALOGUE_CHANNEL = 'catalogue_changed';
const MAX_BYTES = 64 * 1024 * 1024;
interface Entry {
  page: RenderedJson;
  expiresAt: number;
}

/**
 * Rendered catalogue responses, per store. The database announces every change to a store's
 * catalogue, and every instance drops that store's pages; the expiry is only a safety net. A page
 * that was being rendered while a change arrived is not kept, since it may predate the change.
 */
@Injectable()
export class CatalogueCache {
  private readonly stores = new Map<string, { generation: number; pages: Map<string, Entry> }>();
  private bytes = 0;

  constructor(
    private readonly config: AppConfig,
    changes: ChangeFeed,
  ) {
    changes.subscribe(CATALOGUE_CHANNEL, (storeId) => this.evict(storeId));
    changes.onReconnect(() => this.clear());
  }

  /** The rendered response for `key`, from memory or from `render`. */
  async get(storeId: string, key: string, render: () => Promise<RenderedJson>): Promise<RenderedJson> {
    const ttlMs = this.config.CATALOGUE_CACHE_SECONDS * 1000;
    if (ttlMs === 0) return render();
    const store = this.storeEntry(storeId);
    const cached = store.pages.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.page;

    const generation = store.generation;
    const page = await render();
    if (store.generation === generation && this.stores.get(storeId) === store) {
      if (this.bytes + page.body.length > MAX_BYTES) this.clear();
      this.bytes += page.body.length - (store.pages.get(key)?.page.body.length ?? 0);
      store.pages.set(key, { page, expiresAt: Date.now() + ttlMs });
    }
    return page;
  }

  private storeEntry(storeId: string) {
    let store = this.stores.get(storeId);
    if (!store) {
      store = { generation: 0, pages: new Map() };
      this.stores.set(storeId, store);
    }
    return store;
  }

  private evict(storeId: string): void {
    const store = this.stores.get(storeId);
    if (!store) return;
    for (const entry of store.pages.values()) this.bytes -= entry.page.body.length;
    store.pages.clear();
    store.generation += 1;
  }

  private clear(): void {
    for (const storeId of this.stores.keys()) this.evict(storeId);
  }
}

/** A cache key from a route and its validated query, independent of parameter order. */
export function cacheKey(route: string, query: object = {}): string {
  const entries = Object.entries(query)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));
  return `${route}?${new URLSearchParams(entries.map(([name, value]): [string, string] => [name, String(value)]))}`;
}
