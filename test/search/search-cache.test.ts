import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchRecorder } from '../../src/storefront/search/search-recorder.js';
import { accessToken, createStore, get, type TestStore } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { eventually } from '../support/waiting.js';

type Json = Record<string, any>;

/** Search answers are kept with the catalogue pages: the same invalidation must keep them right. */
describe('search answer cache', () => {
  let t: TestApp;
  let db: pg.Client;
  let store: TestStore;
  let token: string;
  const search = async (q: string): Promise<Json> => (await get(t.app, `/v1/search?q=${encodeURIComponent(q)}`, token)).json();

  beforeAll(async () => {
    t = await startTestApp({ CATALOGUE_CACHE_SECONDS: '3600' });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    store = await createStore(t.app, { seedCatalogue: true, productCount: 40 });
    token = await accessToken(t.app, store.key);
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  it('shows a stock change and a rename at once, and records every search even when answered from memory', async () => {
    const first = await search('shirt');
    expect(first.total).toBeGreaterThan(0);
    const product = first.items[0];

    await db.query('update product_variants set stock = 0 where product_id = $1', [product.id]);
    const afterStock = await eventually(
      () => search('shirt'),
      (page) => page.items.find((item: Json) => item.id === product.id)?.inStock === false,
    );
    expect(afterStock.total).toBe(first.total);

    await db.query(`update products set name_en = 'Zanzibar Kaftan', name_ar = 'قفطان زنجبار' where id = $1`, [product.id]);
    const renamed = await eventually(
      () => search('zanzibar'),
      (page) => page.total === 1,
    );
    expect(renamed.items[0].id).toBe(product.id);

    await t.app.get(SearchRecorder).drain();
    const before = Number((await db.query('select count(*) from searches where store_id = $1', [store.storeId])).rows[0].count);
    await search('shirt');
    await search('shirt');
    await t.app.get(SearchRecorder).drain();
    const after = Number((await db.query('select count(*) from searches where store_id = $1', [store.storeId])).rows[0].count);
    expect(after - before).toBe(2);
  });
});
