import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { BoundedMap } from '../common/cache/bounded-map.js';
import { ApiKeyService, type IssuedApiKey } from './api-key.service.js';
import type { StorePlan } from '../common/permissions.js';
import { Store } from './entities/store.entity.js';

export interface CreatedStore {
  store: { id: string; name: string; plan: StorePlan };
  apiKey: IssuedApiKey;
}

/** A store's currency is set when it is created; the lookup is kept a few minutes per instance. */
const CURRENCY_CACHE_MS = 5 * 60_000;

@Injectable()
export class StoreService {
  private readonly currencies = new BoundedMap<string, { at: number; currency: string }>(10_000);

  constructor(
    private readonly em: EntityManager,
    private readonly apiKeys: ApiKeyService,
  ) {}

  /** A store always starts with one key: without it nobody could mint a session for it. */
  async create(name: string, plan: StorePlan = 'basic'): Promise<CreatedStore> {
    return this.em.fork().transactional(async (em) => {
      const store = em.create(Store, { name, plan });
      await em.flush();
      const apiKey = await this.apiKeys.issue(store.id, {}, em);
      return { store: { id: store.id, name: store.name, plan: store.plan }, apiKey };
    });
  }

  async exists(storeId: string): Promise<boolean> {
    return (await this.em.fork().count(Store, { id: storeId })) > 0;
  }

  async count(): Promise<number> {
    return this.em.fork().count(Store, {});
  }

  /** The ISO 4217 currency of a store's prices. */
  async currencyOf(storeId: string): Promise<string> {
    const cached = this.currencies.get(storeId);
    if (cached && Date.now() - cached.at < CURRENCY_CACHE_MS) return cached.currency;
    const store = await this.em.fork().findOneOrFail(Store, { id: storeId }, { fields: ['currency'] });
    this.currencies.set(storeId, { at: Date.now(), currency: store.currency });
    return store.currency;
  }
}
