import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { BoundedMap } from '../common/cache/bounded-map.js';
import { ChangeFeed } from '../infra/database/change-feed.js';
import { ApiKeyService, type IssuedApiKey } from './api-key.service.js';
import type { StorePlan } from '../common/permissions.js';
import { Store } from './entities/store.entity.js';

export interface CreatedStore {
  store: { id: string; name: string; plan: StorePlan };
  apiKey: IssuedApiKey;
}

/**
 * A store whose plan (or anything else cached elsewhere) changed: the payload is the store id. Whoever
 * caches what a store is entitled to (the dashboard's principals) listens, on every instance.
 */
export const STORE_CHANNEL = 'store_changed';

/** A store's currency is set when it is created; the lookup is kept a few minutes per instance. */
const CURRENCY_CACHE_MS = 5 * 60_000;

@Injectable()
export class StoreService {
  private readonly currencies = new BoundedMap<string, { at: number; currency: string }>(10_000);

  constructor(
    private readonly em: EntityManager,
    private readonly apiKeys: ApiKeyService,
    private readonly changes: ChangeFeed,
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

  /** Moves the store to another plan; what the plan entitles changes on the next request, on every instance. Null for an unknown store. */
  async setPlan(storeId: string, plan: StorePlan): Promise<{ id: string; name: string; plan: StorePlan } | null> {
    const { rows } = await sql<{ id: string; name: string; plan: StorePlan }>`
      update stores set plan = ${plan} where id = ${storeId} returning id, name, plan`.execute(this.em.getKysely());
    if (rows.length === 0) return null;
    await this.changes.publish(STORE_CHANNEL, storeId);
    return rows[0];
  }

  /**
   * The store's time zone, in which its Insights figures and delivery estimates are given; within the
   * caller's transaction when `em` is given. Cached principals follow by notification.
   */
  async setTimezone(storeId: string, timezone: string, em: EntityManager = this.em): Promise<void> {
    // The notice goes out when the caller's transaction commits, not before.
    await sql`
      with changed as (update stores set timezone = ${timezone} where id = ${storeId} returning id)
      select pg_notify(${STORE_CHANNEL}, id::text) from changed`.execute(em.getKysely());
  }

  /** The store's time zone, read afresh (a change takes effect at once). */
  async timezoneOf(storeId: string): Promise<string> {
    return (await this.em.fork().findOneOrFail(Store, { id: storeId }, { fields: ['timezone'] })).timezone;
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
