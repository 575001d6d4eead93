import { describe, expect, it } from 'vitest';
import { useTestApps } from '../support/harness.js';
import { eventually } from '../support/waiting.js';

describe('catalogue cache', () => {
  const [a, b] = useTestApps(2, { CATALOGUE_CACHE_SECONDS: '3600' });

  it('serves repeated reads from memory and drops a store’s pages on every instance when its catalogue changes', async () => {
    const store = await a.store({ seedCatalogue: true, productCount: 12 });
    const shopperA = await a.shopper(store);
    const shopperB = await b.shopper(store);
    const first = (await shopperA.call('GET', '/v1/catalogue/products?limit=5')).json();
    const product = first.items[0];
    await shopperB.call('GET', `/v1/catalogue/products/${product.slug}`);

    // A write that bypasses the service entirely still reaches both caches, through the trigger.
    await a.db.query('update products set name_en = $1 where id = $2', ['Renamed By Operator', product.id]);

    const listA = await eventually(
      async () => (await shopperA.call('GET', '/v1/catalogue/products?limit=5')).json(),
      (page) => page.items[0].name.en === 'Renamed By Operator',
    );
    expect(listA.items[0].name.en).toBe('Renamed By Operator');
    const detailB = await eventually(
      async () => (await shopperB.call('GET', `/v1/catalogue/products/${product.slug}`)).json(),
      (detail) => detail.name.en === 'Renamed By Operator',
    );
    expect(detailB.name.en).toBe('Renamed By Operator');

    // Stock is catalogue data too: a variant change evicts as well.
    await a.db.query('update product_variants set stock = 0 where product_id = $1', [product.id]);
    const soldOut = await eventually(
      async () => (await shopperA.call('GET', `/v1/catalogue/products/${product.id}`)).json(),
      (detail) => detail.inStock === false,
    );
    expect(soldOut.variants.every((variant: { stock: number }) => variant.stock === 0)).toBe(true);
  });

  it('a stock-only change drops just the pages that show the product, on every instance', async () => {
    const store = await a.store({ seedCatalogue: true, productCount: 12 });
    const shopper = await a.shopper(store);
    const first = (await shopper.call('GET', '/v1/catalogue/products?limit=5')).json();
    const second = (await shopper.call('GET', `/v1/catalogue/products?limit=5&cursor=${first.nextCursor}`)).json();
    const sold = first.items[0];
    const untouched = second.items[0];

    // A rename hidden from the caches (triggers off) tells which pages were rendered again.
    const quiet = await a.db.connect();
    try {
      await quiet.query('begin');
      await quiet.query(`set local session_replication_role = replica`);
      await quiet.query('update products set name_en = $1 where store_id = $2', ['Renamed Quietly', store.storeId]);
      await quiet.query('commit');
    } finally {
      quiet.release();
    }
    await a.db.query('update product_variants set stock = 0 where product_id = $1', [sold.id]);

    const firstAfter = await eventually(
      async () => (await shopper.call('GET', '/v1/catalogue/products?limit=5')).json(),
      (page) => page.items[0].inStock === false,
    );
    expect(firstAfter.items[0].name.en).toBe('Renamed Quietly');
    const secondAfter = (await shopper.call('GET', `/v1/catalogue/products?limit=5&cursor=${first.nextCursor}`)).json();
    expect(secondAfter.items[0].name.en).toBe(untouched.name.en);
  });

  it('caches per store: identical paths in two stores never share a page', async () => {
    const one = await a.store({ seedCatalogue: true, productCount: 5 });
    const two = await a.store({ seedCatalogue: true, productCount: 5 });
    const pageOne = (await (await a.shopper(one)).call('GET', '/v1/catalogue/products')).json();
    const pageTwo = (await (await a.shopper(two)).call('GET', '/v1/catalogue/products')).json();
    expect(pageOne.items.map((p: { slug: string }) => p.slug)).toEqual(pageTwo.items.map((p: { slug: string }) => p.slug));
    const idsTwo = new Set(pageTwo.items.map((p: { id: string }) => p.id));
    expect(pageOne.items.some((p: { id: string }) => idsTwo.has(p.id))).toBe(false);
  });

  it('does not keep a page rendered while a change arrived', async () => {
    const store = await a.store({ seedCatalogue: true, productCount: 3 });
    const shopper = await a.shopper(store);
    const before = (await shopper.call('GET', '/v1/catalogue/brands')).json();
    // Change, then read at once: whatever this read returns, a later read must show the change.
    await a.db.query('update brands set name_en = name_en || $1 where store_id = $2', [' Updated', store.storeId]);
    await shopper.call('GET', '/v1/catalogue/brands');
    const after = await eventually(
      async () => (await shopper.call('GET', '/v1/catalogue/brands')).json(),
      (page) => page.items[0].name.en.endsWith(' Updated'),
    );
    expect(after.items[0].name.en).toBe(`${before.items[0].name.en} Updated`);
  });
});
