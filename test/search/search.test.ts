import { beforeAll, describe, expect, it } from 'vitest';
import { SearchRecorder } from '../../src/storefront/search/search-recorder.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem, fields } from '../support/problem.js';
import type { StorefrontClient } from '../support/storefront-client.js';
import { eventually } from '../support/waiting.js';

type Json = Record<string, any>;

describe('storefront search', () => {
  const t = useTestApp();
  let a: TestStore;
  let b: TestStore;
  let shopperA: StorefrontClient;
  let shopperB: StorefrontClient;

  const ok = async (url: string, shopper = shopperA): Promise<Json> => {
    const response = await shopper.call('GET', url);
    expect(response.statusCode, `${url}: ${response.body.slice(0, 300)}`).toBe(200);
    return response.json();
  };
  const search = (q: string, extra = '', shopper = shopperA) => ok(`/v1/search?q=${encodeURIComponent(q)}${extra}`, shopper);
  /** Active products of store A whose name matches a SQL pattern. */
  const productsNamed = async (storeId: string, pattern: string, column = 'name_en') =>
    (
      await t.db.rows<{ id: string }>(`select id from products where store_id = $1 and status = 'active' and ${column} ilike $2`, [
        storeId,
        pattern,
      ])
    ).map((row) => row.id);
  const ids = (page: Json) => (page.items as Json[]).map((item) => item.id as string).sort();
  /** Answers are cached with the catalogue pages; a change notice reaches the cache a moment after the commit. */
  const settled = (q: string, total: number) =>
    eventually(
      () => search(q),
      (page) => page.total === total,
    );
  const recorded = () => t.app.get(SearchRecorder).drain();

  beforeAll(async () => {
    [a, b] = await Promise.all([t.store({ seedCatalogue: true }), t.store({ seedCatalogue: true })]);
    [shopperA, shopperB] = await Promise.all([t.shopper(a), t.shopper(b)]);
  });

  describe('matching', () => {
    it('finds English words in names, stemmed, with the catalogue’s product documents', async () => {
      const expected = await productsNamed(a.storeId, '%polo shirt%');
      expect(expected.length).toBeGreaterThan(0);
      const page = await search('Polo Shirts', '&limit=100');
      expect(ids(page)).toEqual(expected.sort());
      expect(page.total).toBe(expected.length);
      expect(page.query).toEqual({ q: 'Polo Shirts', normalized: 'polo shirts', correctedQuery: null });
      expect(Object.keys(page.items[0]).sort()).toEqual(
        ['brand', 'category', 'createdAt', 'description', 'id', 'inStock', 'name', 'priceRange', 'slug', 'updatedAt', 'variants'].sort(),
      );
    });

    it('finds Arabic words, and ignores diacritics', async () => {
      const expected = (await productsNamed(a.storeId, '%قميص بولو%', 'name_ar')).sort();
      expect(expected.length).toBeGreaterThan(0);
      expect(ids(await search('قميص بولو', '&limit=100'))).toEqual(expected);
      const vocalised = await search('قَمِيصُ بُولُو', '&limit=100');
      expect(ids(vocalised)).toEqual(expected);
      expect(vocalised.query.normalized).toBe('قميص بولو');
    });

    it('folds accented Latin letters, in documents and queries alike', async () => {
      const [product] = await t.db.rows<{ id: string }>(
        `insert into products (store_id, slug, name_en, name_ar, description_en, description_ar)
         values ($1, 'creme-brulee-ramekin', 'Crème Brûlée Ramekin', 'قالب كريم بروليه', 'Porcelain.', 'بورسلين.') returning id`,
        [a.storeId],
      );
      for (const q of ['creme brulee', 'CRÈME BRÛLÉE', 'crème brulee ramekins']) {
        expect(ids(await settled(q, 1)), q).toEqual([product.id]);
      }
      expect((await search('crème')).query.normalized).toBe('creme');
    });

    it('leaves Arabic particles out of a query, as English stop words are', async () => {
      const [product] = await t.db.rows<{ id: string }>(
        `insert into products (store_id, slug, name_en, name_ar, description_en, description_ar)
         values ($1, 'linen-kaftan', 'Linen Kaftan', 'قفطان كتان', 'Light.', 'خفيف.') returning id`,
        [a.storeId],
      );
      for (const q of ['قفطان من كتان', 'قفطان في الي كتان', 'kaftan of linen']) {
        expect(ids(await settled(q, 1)), q).toEqual([product.id]);
      }
      const particles = await search('في من');
      expect(particles.total).toBe(0);
      expect(particles.query.correctedQuery).toBeNull();
      expect(await search('الذي')).toMatchObject({ total: 0, query: { correctedQuery: null } });
    });

    it('treats alef forms, taa marbuta and alef maqsura as the same letters', async () => {
      const lipsticks = (await productsNamed(a.storeId, '%أحمر شفاه%', 'name_ar')).sort();
      expect(lipsticks.length).toBeGreaterThan(0);
      expect(ids(await search('احمر شفاه', '&limit=100'))).toEqual(lipsticks);
      expect(ids(await search('إحمر شفاه', '&limit=100'))).toEqual(lipsticks);

      const watches = (await productsNamed(a.storeId, '%ساعة ذكية%', 'name_ar')).sort();
      expect(watches.length).toBeGreaterThan(0);
      const spelt = await search('ساعه ذكيه', '&limit=100');
      expect(ids(spelt)).toEqual(watches);
      expect(spelt.query.correctedQuery).toBeNull();
    });

    it('corrects typos in English and Arabic against the store’s vocabulary, and says so', async () => {
      const shirts = await search('shrit', '&limit=100');
      expect(shirts.query.correctedQuery).toBe('shirt');
      expect(shirts.total).toBeGreaterThan(0);
      expect(shirts.items.every((item: Json) => /shirt/i.test(item.name.en) || /shirt/i.test(item.category.name.en))).toBe(true);

      const tshirts = await search('tshirt', '&limit=100');
      expect(tshirts.total).toBe((await productsNamed(a.storeId, '%t-shirt%')).length);

      const qamis = await search('قميض بولو', '&limit=100');
      expect(qamis.query.correctedQuery).toBe('قميص بولو');
      expect(ids(qamis)).toEqual((await productsNamed(a.storeId, '%قميص بولو%', 'name_ar')).sort());

      const laptops = await search('labtop');
      expect(laptops.query.correctedQuery).toBe('laptop');
      expect(laptops.total).toBeGreaterThan(0);
    });

    it('answers an empty page for a query that matches nothing', async () => {
      const page = await search('xqzvw');
      expect(page).toMatchObject({ items: [], nextCursor: null, total: 0, facets: { categories: [], brands: [], priceBands: [] } });
    });

    it('keeps the store’s vocabulary counting active products only, and leaves it alone on price and stock changes', async () => {
      const vocabulary = async (term: string) =>
        (
          await t.db.rows<{ count: number }>(`select product_count as count from search_terms where store_id = $1 and term = $2`, [
            a.storeId,
            term,
          ])
        )[0]?.count ?? 0;
      const termsRow = async (productId: string) =>
        (await t.db.rows<{ version: string }>(`select xmin::text as version from product_terms where product_id = $1`, [productId]))[0]
          ?.version;
      const [one, two] = await t.db.rows<{ id: string }>(
        `select id from products where store_id = $1 and status = 'active' order by slug desc limit 2`,
        [a.storeId],
      );
      await t.db.query(`update products set name_en = 'Marrakesh Pouf' where id = any($1)`, [[one.id, two.id]]);
      expect(await vocabulary('marrakesh')).toBe(2);

      const before = await termsRow(one.id);
      await t.db.query(`update product_variants set price = price + 100, stock = stock + 1 where product_id = $1`, [one.id]);
      expect(await termsRow(one.id)).toBe(before);

      await t.db.query(`update products set status = 'draft' where id = $1`, [one.id]);
      expect(await vocabulary('marrakesh')).toBe(1);
      expect(await termsRow(one.id)).toBeUndefined();
      await t.db.query(`update products set name_en = 'Plain Pouf' where id = $1`, [two.id]);
      expect(await vocabulary('marrakesh')).toBe(0);
      expect(await vocabulary('plain')).toBeGreaterThanOrEqual(1);
      await t.db.query(`update products set status = 'active' where id = $1`, [one.id]);
      expect(await vocabulary('marrakesh')).toBe(1);
    });

    it('writes a product’s search row once, when the transaction that wrote the product and its variants commits', async () => {
      const client = await t.db.connect();
      let id: string;
      try {
        await client.query('begin');
        [{ id }] = (
          await client.query(
            `insert into products (store_id, slug, name_en, name_ar, description_en, description_ar)
             values ($1, 'kilim-runner', 'Kilim Runner', 'سجادة كليم', 'A woven runner.', 'سجادة منسوجة.') returning id`,
            [a.storeId],
          )
        ).rows;
        await client.query(
          `insert into product_variants (store_id, product_id, sku, options, price, currency, stock, position)
           values ($1, $2, 'KLM-1', '{}', 12900, 'SAR', 3, 0), ($1, $2, 'KLM-2', '{}', 9900, 'SAR', 0, 1)`,
          [a.storeId, id],
        );
        // queued, not yet written: other statements of this transaction add to the same refresh
        expect((await client.query('select product_id from product_search_pending')).rows).toEqual([{ product_id: id }]);
        expect((await client.query('select 1 from product_search where product_id = $1', [id])).rowCount).toBe(0);
        await client.query('commit');
      } finally {
        client.release();
      }
      expect(await t.db.rows('select min_price, currency from product_search where product_id = $1', [id])).toEqual([
        { min_price: 9900, currency: 'SAR' },
      ]);
      expect(await t.db.rows('select * from product_search_pending')).toEqual([]);
      expect((await settled('kilim runner', 1)).total).toBe(1);
      // SKUs match by their letter and digit runs, as typed
      expect(ids(await search('KLM-2'))).toEqual([id]);
    });

    it('lets concurrent transactions queue the same product, and a rolled-back one leaves nothing behind', async () => {
      const [product] = await t.db.rows<{ id: string }>(
        `select id from products where store_id = $1 and status = 'active' order by slug limit 1 offset 5`,
        [a.storeId],
      );
      const clients = await Promise.all([t.db.connect(), t.db.connect()]);
      try {
        await Promise.all(clients.map((client) => client.query('begin')));
        await clients[0].query(`update product_variants set price = price + 1 where product_id = $1`, [product.id]);
        // the second waits on the first's queued row, then queues its own once the first commits
        const second = clients[1].query(`update products set name_en = 'Tapestry Cushion' where id = $1`, [product.id]);
        await clients[0].query('commit');
        await second;
        await clients[1].query('commit');
        const rolledBack = await t.db.connect();
        try {
          await rolledBack.query('begin');
          await rolledBack.query(`update products set name_en = 'Never Seen' where id = $1`, [product.id]);
          await rolledBack.query('rollback');
        } finally {
          rolledBack.release();
        }
      } finally {
        for (const client of clients) client.release();
      }
      expect(await t.db.rows('select * from product_search_pending')).toEqual([]);
      expect((await settled('tapestry cushion', 1)).total).toBe(1);
      expect((await search('never seen')).total).toBe(0);
    });

    it('follows catalogue changes: renamed, drafted and re-categorised products', async () => {
      const [product] = await t.db.rows<{ id: string }>(`select id from products where store_id = $1 order by slug limit 1`, [a.storeId]);
      await t.db.query(`update products set name_en = 'Zanzibar Lantern', name_ar = 'فانوس زنجبار' where id = $1`, [product.id]);
      expect(ids(await search('zanzibar'))).toEqual([product.id]);
      expect(ids(await search('فانوس'))).toEqual([product.id]);
      await t.db.query(`update products set status = 'draft' where id = $1`, [product.id]);
      expect((await settled('zanzibar', 0)).total).toBe(0);
      await t.db.query(`update products set status = 'active' where id = $1`, [product.id]);
      expect((await settled('zanzibar', 1)).total).toBe(1);

      const [brand] = await t.db.rows<{ id: string; count: number }>(
        // any brand but Nova, which the suggestions test expects under its own name
        `select p.brand_id as id, count(*)::int as count from products p join brands b on b.id = p.brand_id
          where p.store_id = $1 and p.status = 'active' and b.slug <> 'nova' group by p.brand_id order by p.brand_id limit 1`,
        [a.storeId],
      );
      await t.db.query(`update brands set name_en = 'Quetzalcoatl' where id = $1`, [brand.id]);
      expect((await search('quetzalcoatl')).total).toBe(brand.count);
    });
  });

  describe('facets and filters', () => {
    it('counts categories (subtrees), brands and price bands over the matched set', async () => {
      const page = await search('electronics', '&limit=100');
      expect(page.total).toBeGreaterThan(3);
      const top = page.facets.categories.filter((facet: Json) => facet.depth === 0);
      expect(top).toHaveLength(1);
      expect(top[0]).toMatchObject({ slug: 'electronics', count: page.total, name: { en: 'Electronics', ar: 'الإلكترونيات' } });
      const brandSum = page.facets.brands.reduce((sum: number, facet: Json) => sum + facet.count, 0);
      expect(brandSum).toBe(page.total);
      const bandSum = page.facets.priceBands.reduce((sum: number, facet: Json) => sum + facet.count, 0);
      expect(bandSum).toBe(page.total);
      for (const item of page.items) {
        const band = page.facets.priceBands.find(
          (facet: Json) => item.priceRange.min >= facet.min && (facet.max === null || item.priceRange.min <= facet.max),
        );
        expect(band).toBeDefined();
      }
      // a subcategory's count is exactly its matching products
      const phones = page.facets.categories.find((facet: Json) => facet.slug === 'phones');
      expect(phones.count).toBe(page.items.filter((item: Json) => item.category.slug === 'phones').length);
    });

    it('applies a filter to the results and to the other facets, not to its own facet', async () => {
      const all = await search('electronics', '&limit=100');
      const brand = all.facets.brands[0];
      const byBrand = await search('electronics', `&brand=${brand.slug}&limit=100`);
      expect(byBrand.total).toBe(brand.count);
      expect(byBrand.items.every((item: Json) => item.brand.id === brand.id)).toBe(true);
      expect(byBrand.facets.brands).toEqual(all.facets.brands);
      expect(byBrand.facets.categories.find((facet: Json) => facet.depth === 0).count).toBe(brand.count);

      const byCategory = await search('electronics', `&category=audio&limit=100`);
      const audio = all.facets.categories.find((facet: Json) => facet.slug === 'audio');
      expect(byCategory.total).toBe(audio?.count ?? 0);
      expect(byCategory.items.every((item: Json) => ['headphones', 'speakers'].includes(item.category.slug))).toBe(true);

      const band = all.facets.priceBands.at(-1);
      const byPrice = await search('electronics', `&priceMin=${band.min}${band.max === null ? '' : `&priceMax=${band.max}`}&limit=100`);
      expect(byPrice.total).toBe(band.count);
      expect(byPrice.facets.priceBands).toEqual(all.facets.priceBands);
      for (const item of byPrice.items) expect(item.priceRange.min).toBeGreaterThanOrEqual(band.min);
    });

    it('pages through every sort without duplicates or gaps', async () => {
      const all = await search('electronics', '&limit=100');
      for (const sort of ['relevance', 'price_asc', 'price_desc', 'newest']) {
        const seen: Json[] = [];
        let cursor: string | null = null;
        do {
          const page: Json = await search('electronics', `&sort=${sort}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          expect(page.total).toBe(all.total);
          seen.push(...page.items);
          cursor = page.nextCursor;
        } while (cursor);
        expect(new Set(seen.map((item) => item.id)).size).toBe(seen.length);
        expect(seen.map((item) => item.id).sort()).toEqual(ids(all));
        const prices = seen.map((item) => item.priceRange.min);
        if (sort === 'price_asc') expect(prices).toEqual([...prices].sort((x, y) => x - y));
        if (sort === 'price_desc') expect(prices).toEqual([...prices].sort((x, y) => y - x));
        if (sort === 'newest') {
          const times = seen.map((item) => item.createdAt);
          expect(times).toEqual([...times].sort().reverse());
        }
      }
    });
  });

  describe('suggestions', () => {
    it('completes a prefix with categories, brands and products, in the typed language', async () => {
      const english = await ok('/v1/search/suggestions?q=smar');
      expect(english.items.length).toBeGreaterThan(0);
      expect(english.items.length).toBeLessThanOrEqual(8);
      const products = english.items.filter((item: Json) => item.type === 'product');
      expect(products.length).toBeGreaterThan(0);
      for (const item of products) {
        expect(item.name.en).toMatch(/\bsmart/i);
        expect(item.text).toBe(item.name.en);
      }
      expect(english.items.some((item: Json) => item.type === 'category' && item.slug === 'phones')).toBe(true);

      const arabic = await ok(`/v1/search/suggestions?q=${encodeURIComponent('ساع')}`);
      const arabicProducts = arabic.items.filter((item: Json) => item.type === 'product');
      expect(arabicProducts.length).toBeGreaterThan(0);
      for (const item of arabicProducts) expect(item.text).toBe(item.name.ar);

      const letter = await ok('/v1/search/suggestions?q=s');
      expect(letter.items.length).toBeGreaterThan(0);
      for (const item of letter.items) expect(item.type === 'query' ? item.text : item.name.en).toMatch(/(^|\s)s/i);
      expect(letter.items.some((item: Json) => item.type === 'product')).toBe(false);

      const brand = await ok('/v1/search/suggestions?q=nov');
      expect(brand.items.some((item: Json) => item.type === 'brand' && item.slug === 'nova' && item.name.ar === 'نوفا')).toBe(true);
    });

    it('tolerates a typo', async () => {
      const typo = await ok('/v1/search/suggestions?q=labtop');
      expect(typo.query.correctedQuery).toBe('laptop');
      expect(typo.items.some((item: Json) => item.type === 'product' && /laptop/i.test(item.name.en))).toBe(true);
    });
  });

  describe('recording and context', () => {
    it('records every search with its result count, zero included', async () => {
      const shopper = await t.shopper(a);
      const found = await search('Polo Shirt', '', shopper);
      await search('xqzvw', '', shopper);
      await search('قميص', '', shopper);
      await recorded();
      const rows = await t.db.rows(
        `select s.query, s.normalized_query, s.locale, s.result_count, s.shopper_id, s.store_id
         from searches s join sessions se on se.id = s.session_id where s.store_id = $1 and s.session_id = (
           select id from sessions where store_id = $1 order by created_at desc limit 1) order by s.created_at`,
        [a.storeId],
      );
      expect(rows).toEqual([
        {
          query: 'Polo Shirt',
          normalized_query: 'polo shirt',
          locale: 'en',
          result_count: found.total,
          shopper_id: null,
          store_id: a.storeId,
        },
        { query: 'xqzvw', normalized_query: 'xqzvw', locale: 'en', result_count: 0, shopper_id: null, store_id: a.storeId },
        { query: 'قميص', normalized_query: 'قميص', locale: 'ar', result_count: expect.any(Number), shopper_id: null, store_id: a.storeId },
      ]);
    });

    it('shows the store’s popular searches and only this session’s recent ones', async () => {
      const c = await t.store({ seedCatalogue: true });
      const [one, two, other] = await Promise.all([t.shopper(c), t.shopper(c), t.shopper(b)]);
      for (const q of ['Dress', 'dress', 'abaya', 'xqzvw']) await search(q, '', one);
      for (const q of ['DRESS', 'perfume']) await search(q, '', two);
      await search('sneakers', '', other);
      await recorded();

      const context = await ok('/v1/search/context', one);
      expect(Object.keys(context).sort()).toEqual(['popular', 'recent']);
      const popular = new Map(context.popular.map((entry: Json) => [entry.query.toLowerCase(), entry.count]));
      expect(popular.get('dress')).toBe(3);
      expect(popular.get('abaya')).toBe(1);
      expect(popular.get('perfume')).toBe(1);
      expect(popular.has('xqzvw')).toBe(false); // found nothing
      expect(popular.has('sneakers')).toBe(false); // another store's
      expect(context.popular[0].query.toLowerCase()).toBe('dress');

      expect(context.recent.map((entry: Json) => entry.query)).toEqual(['xqzvw', 'abaya', 'dress']);
      expect(context.recent[0].searchedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect((await ok('/v1/search/context', two)).recent.map((entry: Json) => entry.query)).toEqual(['perfume', 'DRESS']);

      const suggested = await ok('/v1/search/suggestions?q=dre', two);
      expect(suggested.items[0]).toMatchObject({ type: 'query', id: null, slug: null, name: null });
      expect(suggested.items[0].text.toLowerCase()).toBe('dress');
    });
  });

  describe('tenancy and access', () => {
    it('never returns another store’s products', async () => {
      const [product] = await t.db.rows<{ id: string }>(`select id from products where store_id = $1 order by slug desc limit 1`, [
        b.storeId,
      ]);
      await t.db.query(`update products set name_en = 'Xylophone Unique' where id = $1`, [product.id]);
      expect((await search('xylophone', '', shopperA)).total).toBe(0);
      expect(ids(await search('xylophone', '', shopperB))).toEqual([product.id]);
      const page = await search('electronics', '&limit=100', shopperA);
      const storeA = new Set(
        (await t.db.rows<{ id: string }>(`select id from products where store_id = $1`, [a.storeId])).map((row) => row.id),
      );
      expect(page.items.every((item: Json) => storeA.has(item.id))).toBe(true);
    });

    it('refuses a token without search:read on all three paths', async () => {
      const shopper = await t.shopper(a, ['catalogue:read']);
      for (const url of ['/v1/search?q=shirt', '/v1/search/suggestions?q=sh', '/v1/search/context']) {
        const body = expectProblem(await shopper.call('GET', url), 403, 'INSUFFICIENT_SCOPE');
        expect(body.requiredScope).toBe('search:read');
      }
    });

    it('answers 400, never 500, to invalid input', async () => {
      const cases: [string, string][] = [
        ['/v1/search', 'q'],
        ['/v1/search?q=', 'q'],
        ['/v1/search?q=%20%20', 'q'],
        [`/v1/search?q=${'a'.repeat(201)}`, 'q'],
        ['/v1/search?q=a%00b', '(url)'],
        ['/v1/search?q=shirt&sort=cheapest', 'sort'],
        ['/v1/search?q=shirt&cursor=not-a-cursor', 'cursor'],
        ['/v1/search?q=shirt&limit=0', 'limit'],
        ['/v1/search?q=shirt&priceMin=-1', 'priceMin'],
        ['/v1/search?q=shirt&priceMin=500&priceMax=100', 'priceMax'],
        ['/v1/search?q=shirt&colour=red', 'colour'],
        ['/v1/search/suggestions', 'q'],
        [`/v1/search/suggestions?q=${'a'.repeat(201)}`, 'q'],
      ];
      for (const [url, field] of cases) {
        const body = expectProblem(await shopperA.call('GET', url), 400, 'VALIDATION_FAILED');
        expect(fields(body), url).toContain(field);
      }
      expect((await shopperA.call('GET', `/v1/search?q=${'a'.repeat(200)}`)).statusCode).toBe(200);

      // A cursor only continues the search it came from: same query and sort, untampered.
      const first = await search('electronics', '&limit=2');
      const tampered = Buffer.from(JSON.stringify(['x', 1, first.items[0].id])).toString('base64url');
      for (const [url, cursor] of [
        ['/v1/search?q=electronics&limit=2&sort=newest', first.nextCursor],
        ['/v1/search?q=laptop&limit=2', first.nextCursor],
        ['/v1/search?q=electronics&limit=2', tampered],
      ]) {
        expectProblem(await shopperA.call('GET', `${url}&cursor=${encodeURIComponent(cursor)}`), 400, 'VALIDATION_FAILED');
      }
      const unknown = await search('electronics', '&category=00000000-0000-4000-8000-000000000000&brand=no-such-brand');
      expect(unknown.total).toBe(0);
    });
  });
});
