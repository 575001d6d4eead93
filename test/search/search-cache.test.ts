import { beforeAll, describe, expect, it } from 'vitest';
import { SearchRecorder } from '../../src/storefront/search/search-recorder.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import type { StorefrontClient } from '../support/storefront-client.js';
import { eventually } from '../support/waiting.js';

type Json = Record<string, any>;

/** Search answers are kept with the catalogue pages: the same invalidation must keep them right. */
describe('search answer cache', () => {
  const t = useTestApp({ CATALOGUE_CACHE_SECONDS: '3600' });
  let store: TestStore;
  let shopper: StorefrontClient;
  const search = async (q: string): Promise<Json> => (await shopper.call('GET', `/v1/search?q=${encodeURIComponent(q)}`)).json();

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 40 });
    shopper = await t.shopper(store);
  });

  it('shows a stock change and a rename at once, and records every search even when answered from memory', async () => {
    const first = await search('shirt');
    expect(first.total).toBeGreaterThan(0);
    const product = first.items[0];

    await t.db.query('update product_variants set stock = 0 where product_id = $1', [product.id]);
    const afterStock = await eventually(
      () => search('shirt'),
      (page) => page.items.find((item: Json) => item.id === product.id)?.inStock === false,
    );
    expect(afterStock.total).toBe(first.total);

    await t.db.query(`update products set name_en = 'Zanzibar Kaftan', name_ar = 'قفطان زنجبار' where id = $1`, [product.id]);
    const renamed = await eventually(
      () => search('zanzibar'),
      (page) => page.total === 1,
    );
    expect(renamed.items[0].id).toBe(product.id);

    await t.app.get(SearchRecorder).drain();
    const before = Number((await t.db.query('select count(*) from searches where store_id = $1', [store.storeId])).rows[0].count);
    await search('shirt');
    await search('shirt');
    await t.app.get(SearchRecorder).drain();
    const after = Number((await t.db.query('select count(*) from searches where store_id = $1', [store.storeId])).rows[0].count);
    expect(after - before).toBe(2);
  });
});
