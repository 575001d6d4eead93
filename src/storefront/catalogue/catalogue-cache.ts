import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../infra/config/app-config.js';
import { ChangeFeed } from '../../infra/database/change-feed.js';
import type { RenderedJson } from '../../infra/http/rendered-json.js';

/** Published by database triggers on every committed catalogue change (migrations 0001 and 0002). */
const CATALOGUE_CHANNEL = 'catalogue_changed';
/** Changes to nothing but stock (checkout, returns), with payload `storeId:productId,productId,…`. */
const STOCK_CHANNEL = 'catalogue_stock_changed';
const MAX_BYTES = 64 * 1024 * 1024;

/** A rendered catalogue response (a search answer is one too) and the products whose stock it shows. */
export interface CataloguePage {
  page: RenderedJson;
  productIds: readonly string[];
}

interface Entry {
  value: CataloguePage;
  expiresAt: number;
}

interface StorePages {
  /** Bumped by every change to the store: a rendering that straddles a change is not kept. */
  generation: number;
  pages: Map<string, Entry>;
}

/**
 * Rendered catalogue responses, per store. The database announces every change to a store's
 * catalogue, and every instance drops that store's pages; a change to stock alone (every order
 * placed) drops only the pages showing those products. The expiry is only a safety net. A page
 * that was being rendered while a change arrived is not kept, since it may predate the change.
 */
@Injectable()
export class CatalogueCache {
  private readonly stores = new Map<string, StorePages>();
  private bytes = 0;

  constructor(
    private readonly config: AppConfig,
    changes: ChangeFeed,
  ) {
    changes.subscribe(CATALOGUE_CHANNEL, (storeId) => this.evict(storeId));
    changes.subscribe(STOCK_CHANNEL, (payload) => {
      const [storeId, productIds = ''] = payload.split(':');
      this.evictProducts(storeId, new Set(productIds.split(',')));
    });
    changes.onReconnect(() => this.clear());
  }

  /** The rendered response for `key`, from memory or from `render`. */
  async get<Page extends CataloguePage>(storeId: string, key: string, render: () => Promise<Page>): Promise<Page> {
    const ttlMs = this.config.CATALOGUE_CACHE_SECONDS * 1000;
    if (ttlMs === 0) return render();
    const store = this.storeEntry(storeId);
    const cached = store.pages.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.value as Page;

    const generation = store.generation;
    const value = await render();
    if (store.generation === generation && this.stores.get(storeId) === store) {
      if (this.bytes + value.page.body.length > MAX_BYTES) this.clear();
      this.bytes += value.page.body.length - (store.pages.get(key)?.value.page.body.length ?? 0);
      store.pages.set(key, { value, expiresAt: Date.now() + ttlMs });
    }
    return value;
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
    for (const entry of store.pages.values()) this.bytes -= entry.value.page.body.length;
    store.pages.clear();
    store.generation += 1;
  }

  private evictProducts(storeId: string, productIds: ReadonlySet<string>): void {
    const store = this.stores.get(storeId);
    if (!store) return;
    for (const [key, entry] of store.pages) {
      if (entry.value.productIds.some((id) => productIds.has(id))) {
        this.bytes -= entry.value.page.body.length;
        store.pages.delete(key);
      }
    }
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
