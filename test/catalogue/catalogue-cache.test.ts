import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, createStore, get } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { eventually } from '../support/waiting.js';

describe('catalogue cache', () => {
  let a: TestApp;
  let b: TestApp;
  let sql: pg.Client;
  beforeAll(async () => {
    a = await startTestApp({ CATALOGUE_CACHE_SECONDS: '3600' });
    b = await startTestApp({ CATALOGUE_CACHE_SECONDS: '3600' });
    sql = new pg.Client({ connectionString: a.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await sql.end();
    await a.close();
    await b.close();
  });

  it('serves repeated reads from memory and drops a store’s pages on every instance when its catalogue changes', async () => {
    const store = await createStore(a.app, { seedCatalogue: true, productCount: 12 });
    const tokenA = await accessToken(a.app, store.key);
    const tokenB = await accessToken(b.app, store.key);
    const first = (await get(a.app, '/v1/catalogue/products?limit=5', tokenA)).json();
    const product = first.items[0];
    await get(b.app, `/v1/catalogue/products/${product.slug}`, tokenB);

    // A write that bypasses the service entirely still reaches both caches, through the trigger.
    await sql.query('update products set name_en = $1 where id = $2', ['Renamed By Operator', product.id]);

    const listA = await eventually(
      async () => (await get(a.app, '/v1/catalogue/products?limit=5', tokenA)).json(),
      (page) => page.items[0].name.en === 'Renamed By Operator',
    );
    expect(listA.items[0].name.en).toBe('Renamed By Operator');
    const detailB = await eventually(
      async () => (await get(b.app, `/v1/catalogue/products/${product.slug}`, tokenB)).json(),
      (detail) => detail.name.en === 'Renamed By Operator',
    );
    expect(detailB.name.en).toBe('Renamed By Operator');

    // Stock is catalogue data too: a variant change evicts as well.
    await sql.query('update product_variants set stock = 0 where product_id = $1', [product.id]);
    const soldOut = await eventually(
      async () => (await get(a.app, `/v1/catalogue/products/${product.id}`, tokenA)).json(),
      (detail) => detail.inStock === false,
    );
    expect(soldOut.variants.every((variant: { stock: number }) => variant.stock === 0)).toBe(true);
  });

  it('a stock-only change drops just the pages that show the product, on every instance', async () => {
    const store = await createStore(a.app, { seedCatalogue: true, productCount: 12 });
    const token = await accessToken(a.app, store.key);
    const first = (await get(a.app, '/v1/catalogue/products?limit=5', token)).json();
    const second = (await get(a.app, `/v1/catalogue/products?limit=5&cursor=${first.nextCursor}`, token)).json();
    const sold = first.items[0];
    const untouched = second.items[0];

    // A rename hidden from the caches (triggers off) tells which pages were rendered again.
    await sql.query('begin');
    await sql.query(`set local session_replication_role = replica`);
    await sql.query('update products set name_en = $1 where store_id = $2', ['Renamed Quietly', store.storeId]);
    await sql.query('commit');
    await sql.query('update product_variants set stock = 0 where product_id = $1', [sold.id]);

    const firstAfter = await eventually(
      async () => (await get(a.app, '/v1/catalogue/products?limit=5', token)).json(),
      (page) => page.items[0].inStock === false,
    );
    expect(firstAfter.items[0].name.en).toBe('Renamed Quietly');
    const secondAfter = (await get(a.app, `/v1/catalogue/products?limit=5&cursor=${first.nextCursor}`, token)).json();
    expect(secondAfter.items[0].name.en).toBe(untouched.name.en);
  });

  it('caches per store: identical paths in two stores never share a page', async () => {
    const one = await createStore(a.app, { seedCatalogue: true, productCount: 5 });
    const two = await createStore(a.app, { seedCatalogue: true, productCount: 5 });
    const pageOne = (await get(a.app, '/v1/catalogue/products', await accessToken(a.app, one.key))).json();
    const pageTwo = (await get(a.app, '/v1/catalogue/products', await accessToken(a.app, two.key))).json();
    expect(pageOne.items.map((p: { slug: string }) => p.slug)).toEqual(pageTwo.items.map((p: { slug: string }) => p.slug));
    const idsTwo = new Set(pageTwo.items.map((p: { id: string }) => p.id));
    expect(pageOne.items.some((p: { id: string }) => idsTwo.has(p.id))).toBe(false);
  });

  it('does not keep a page rendered while a change arrived', async () => {
    const store = await createStore(a.app, { seedCatalogue: true, productCount: 3 });
    const token = await accessToken(a.app, store.key);
    const before = (await get(a.app, '/v1/catalogue/brands', token)).json();
    // Change, then read at once: whatever this read returns, a later read must show the change.
    await sql.query('update brands set name_en = name_en || $1 where store_id = $2', [' Updated', store.storeId]);
    await get(a.app, '/v1/catalogue/brands', token);
    const after = await eventually(
      async () => (await get(a.app, '/v1/catalogue/brands', token)).json(),
      (page) => page.items[0].name.en.endsWith(' Updated'),
    );
    expect(after.items[0].name.en).toBe(`${before.items[0].name.en} Updated`);
  });
});
