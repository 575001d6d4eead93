import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { ApiKeyService, type IssuedApiKey } from './api-key.service.js';
import { Store, type StorePlan } from './entities/store.entity.js';

export interface CreatedStore {
  store: { id: string; name: string; plan: StorePlan };
  apiKey: IssuedApiKey;
}

@Injectable()
export class StoreService {
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
}
