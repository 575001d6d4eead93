import { EntityManager } from '@mikro-orm/postgresql';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { LightMyRequestResponse } from 'fastify';
import { SessionShoppers } from '../../src/auth/session-shoppers.service.js';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { CartService } from '../../src/storefront/cart/cart.service.js';
import { ApiKeyService } from '../../src/stores/api-key.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import type { TestDatabase } from './database.js';

export interface TestStore {
  storeId: string;
  keyId: string;
  key: string;
}

export interface StoreOptions {
  name?: string;
  /** The demo catalogue, `productCount` products (60 unless given). */
  seedCatalogue?: boolean;
  productCount?: number;
}

/** A new store and its first key, as `store create` makes them. */
export async function createStore(app: NestFastifyApplication, options: StoreOptions = {}): Promise<TestStore> {
  const created = await app.get(StoreService).create(options.name ?? `Store ${Math.random().toString(36).slice(2, 8)}`);
  if (options.seedCatalogue) await app.get(DemoStoreService).seed(created.store.id, { productCount: options.productCount ?? 60 });
  return { storeId: created.store.id, keyId: created.apiKey.id, key: created.apiKey.key };
}

export async function issueKey(
  app: NestFastifyApplication,
  storeId: string,
  options: { rateLimitPerMinute?: number; scopes?: string[] } = {},
) {
  return app.get(ApiKeyService).issue(storeId, options);
}

export function mint(app: NestFastifyApplication, key: string, body: Record<string, unknown> = {}): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/v1/auth/anonymous',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: body,
  });
}

export function refresh(app: NestFastifyApplication, key: string, refreshToken?: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/v1/auth/refresh',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: refreshToken === undefined ? {} : { refreshToken },
  });
}

/** A bearer access token for the store's key, with the given scopes (default: all of the key's). */
export async function accessToken(app: NestFastifyApplication, key: string, scope?: string[]): Promise<string> {
  const response = await mint(app, key, scope ? { scope } : {});
  if (response.statusCode !== 201) throw new Error(`mint failed: ${response.statusCode} ${response.body}`);
  return response.json().accessToken;
}

export function get(app: NestFastifyApplication, url: string, token: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

export interface Variant {
  id: string;
  product_id: string;
  price: number;
  stock: number;
  sku: string;
}

/** Distinct variants of active products of the store, not in any cart, each given `stock` units and optionally a price. */
export async function variants(db: TestDatabase, storeId: string, count: number, stock = 50, price?: number): Promise<Variant[]> {
  const chosen = await db.rows<Variant>(
    `with chosen as (
       select pv.id from product_variants pv join products p on p.id = pv.product_id
       where pv.store_id = $1 and p.status = 'active' and not exists (select 1 from cart_items ci where ci.variant_id = pv.id)
         and pv.stock > 0
       order by pv.sku limit $2)
     update product_variants pv set stock = $3, price = coalesce($4, pv.price) from chosen where pv.id = chosen.id
     returning pv.id, pv.product_id, pv.price, pv.stock, pv.sku`,
    [storeId, count, stock, price ?? null],
  );
  if (chosen.length !== count) throw new Error(`only ${chosen.length} variants available`);
  return chosen;
}

/** Signs the session in as the shopper, as the account endpoints do: the session's cart merges into the shopper's. */
export async function signIn(app: NestFastifyApplication, store: TestStore, sessionId: string, shopperId: string): Promise<void> {
  await app
    .get(EntityManager)
    .fork()
    .transactional(async (em) => {
      await app.get(CartService).mergeIntoShopper(em, store.storeId, sessionId, shopperId);
      await app.get(SessionShoppers).attach(em, sessionId, shopperId);
    });
}
