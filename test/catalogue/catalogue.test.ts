import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import type { StorefrontClient } from '../support/storefront-client.js';
import { ISO_UTC, UUID } from '../support/formats.js';

const PRODUCTS = 60;
const LATIN = /^[\x20-\x7E\u2019]+$/;

type Json = Record<string, any>;

describe('catalogue (contract section 6)', () => {
  const t = useTestApp();
  let a: TestStore;
  let b: TestStore;
  let shopperA: StorefrontClient;
  let shopperB: StorefrontClient;
  let drafts: { id: string; slug: string; status: string }[];

  const ok = async (url: string, shopper = shopperA): Promise<Json> => {
    const response = await shopper.call('GET', url);
    expect(response.statusCode, `${url}: ${response.body.slice(0, 300)}`).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    return response.json();
  };
  /** Follows nextCursor to the end, checking each page's size. */
  const walk = async (url: string, limit: number, shopper = shopperA): Promise<Json[]> => {
    const items: Json[] = [];
    let cursor: string | null = null;
    for (let pageCount = 0; pageCount < 200; pageCount++) {
      const separator = url.includes('?') ? '&' : '?';
      const page = await ok(`${url}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, shopper);
      expect(Object.keys(page).sort()).toEqual(['items', 'nextCursor']);
      expect(page.items.length).toBeLessThanOrEqual(limit);
      items.push(...page.items);
      cursor = page.nextCursor;
      if (cursor === null) return items;
      expect(page.items).toHaveLength(limit);
    }
    throw new Error(`pagination of ${url} does not end`);
  };
  const ids = (items: Json[]) => items.map((item) => item.id as string);
  const activeProductIds = async (storeId: string, where = 'true', values: unknown[] = []) =>
    (
      await t.db.rows<{ id: string }>(
        `select p.id from products p left join categories c on c.id = p.category_id left join brands br on br.id = p.brand_id
         where p.store_id = $1 and p.status = 'active' and (${where}) order by p.created_at desc, p.id desc`,
        [storeId, ...values],
      )
    ).map((row) => row.id);

  beforeAll(async () => {
    // Two stores seeded from the same seed: identical slugs, SKUs and names.
    [a, b] = await Promise.all([
      t.store({ seedCatalogue: true, productCount: PRODUCTS }),
      t.store({ seedCatalogue: true, productCount: PRODUCTS }),
    ]);
    [shopperA, shopperB] = await Promise.all([t.shopper(a), t.shopper(b)]);
    // Only active products are shown: take three of store A out of the assortment.
    drafts = await t.db.rows<{ id: string; slug: string; status: string }>(
      `with chosen as (select id, row_number() over (order by slug) as n from products where store_id = $1 order by slug limit 3)
       update products p set status = case when chosen.n = 1 then 'draft' else 'archived' end
       from chosen where p.id = chosen.id returning p.id, p.slug, p.status`,
      [a.storeId],
    );
    expect(drafts.map((draft) => draft.status).sort()).toEqual(['archived', 'archived', 'draft']);
    // Ties on the sort key: six products created at the very same instant.
    await t.db.query(
      `update products set created_at = '2025-06-01 12:00:00.123456+00'
       where id in (select id from products where store_id = $1 and status = 'active' order by slug desc limit 6)`,
      [a.storeId],
    );
  });
  describe('products', () => {
    it('lists active products newest first, each a complete bilingual document', async () => {
      const page = await ok('/v1/catalogue/products');
      expect(page.items).toHaveLength(20);
      expect(typeof page.nextCursor).toBe('string');
      const expectedOrder = await activeProductIds(a.storeId);
      expect(ids(page.items)).toEqual(expectedOrder.slice(0, 20));
      for (let index = 1; index < page.items.length; index++) {
        expect(page.items[index - 1].createdAt >= page.items[index].createdAt).toBe(true);
      }

      for (const product of page.items) {
        expect(Object.keys(product).sort()).toEqual(
          ['brand', 'category', 'createdAt', 'description', 'id', 'inStock', 'name', 'priceRange', 'slug', 'updatedAt', 'variants'].sort(),
        );
        expect(product.id).toMatch(UUID);
        expect(product.slug).toMatch(/^[a-z0-9-]+$/);
        expect(product.name.en).toMatch(LATIN);
        expect(product.name.ar).toMatch(ARABIC);
        expect(product.description.en.length).toBeGreaterThan(10);
        expect(product.description.ar).toMatch(ARABIC);
        expect(product.createdAt).toMatch(ISO_UTC);
        expect(product.updatedAt).toMatch(ISO_UTC);
        expect(product.category).toEqual({
          id: expect.stringMatching(UUID),
          slug: expect.any(String),
          name: { en: expect.any(String), ar: expect.stringMatching(ARABIC) },
        });
        expect(product.brand).toEqual({
          id: expect.stringMatching(UUID),
          slug: expect.any(String),
          name: { en: expect.any(String), ar: expect.stringMatching(ARABIC) },
        });

        expect(product.variants.length).toBeGreaterThanOrEqual(1);
        for (const variant of product.variants) {
          expect(Object.keys(variant).sort()).toEqual(
            ['compareAtPrice', 'currency', 'id', 'inStock', 'options', 'price', 'sku', 'stock'].sort(),
          );
          expect(variant.sku).toMatch(/^[A-Z0-9-]+$/);
          expect(Number.isInteger(variant.price)).toBe(true);
          expect(variant.price).toBeGreaterThan(0);
          expect(
            variant.compareAtPrice === null || (Number.isInteger(variant.compareAtPrice) && variant.compareAtPrice > variant.price),
          ).toBe(true);
          expect(variant.currency).toBe('SAR');
          expect(Number.isInteger(variant.stock)).toBe(true);
          expect(variant.inStock).toBe(variant.stock > 0);
          for (const option of variant.options) {
            expect(option.name.en).toMatch(LATIN);
            expect(option.name.ar).toMatch(ARABIC);
            expect(typeof option.value.en).toBe('string');
            expect(option.value.ar.length).toBeGreaterThan(0);
          }
        }
        const prices = product.variants.map((variant: Json) => variant.price);
        expect(product.priceRange).toEqual({ min: Math.min(...prices), max: Math.max(...prices), currency: 'SAR' });
        expect(product.inStock).toBe(product.variants.some((variant: Json) => variant.stock > 0));
      }
      // The seeded catalogue has products with several variants and bilingual options.
      expect(page.items.some((product: Json) => product.variants.length > 1 && product.variants[0].options.length > 0)).toBe(true);
    });

    it('matches the database, variant by variant', async () => {
      const product = (await ok('/v1/catalogue/products?limit=1')).items[0];
      const rows = await t.db.rows(
        'select id, sku, options, price, compare_at_price, currency, stock from product_variants where product_id = $1 order by position, sku',
        [product.id],
      );
      expect(product.variants).toEqual(
        rows.map((row) => ({
          id: row.id,
          sku: row.sku,
          options: row.options,
          price: row.price,
          compareAtPrice: row.compare_at_price,
          currency: row.currency,
          stock: row.stock,
          inStock: row.stock > 0,
        })),
      );
      const [own] = await t.db.rows('select slug, name_en, name_ar, description_ar from products where id = $1', [product.id]);
      expect([product.slug, product.name.en, product.name.ar, product.description.ar]).toEqual([
        own.slug,
        own.name_en,
        own.name_ar,
        own.description_ar,
      ]);
    });

    it('walks every active product with cursors: no duplicates, no gaps, ties included', async () => {
      const walked = await walk('/v1/catalogue/products', 7);
      const expected = await activeProductIds(a.storeId);
      const [{ count }] = await t.db.rows<{ count: number }>(
        `select count(*)::int as count from products where store_id = $1 and status = 'active'`,
        [a.storeId],
      );
      expect(count).toBe(PRODUCTS - 3);
      expect(walked).toHaveLength(count);
      expect(new Set(ids(walked)).size).toBe(count);
      expect(ids(walked)).toEqual(expected);
      // Every page size gives the same sequence.
      expect(ids(await walk('/v1/catalogue/products', 1))).toEqual(expected);
      expect(ids(await walk('/v1/catalogue/products', 100))).toEqual(expected);
    });

    it('never shows draft or archived products', async () => {
      const walked = ids(await walk('/v1/catalogue/products', 100));
      for (const draft of drafts) {
        expect(walked).not.toContain(draft.id);
        expectProblem(await shopperA.call('GET', `/v1/catalogue/products/${draft.id}`), 404, 'NOT_FOUND');
        expectProblem(await shopperA.call('GET', `/v1/catalogue/products/${draft.slug}`), 404, 'NOT_FOUND');
      }
    });

    it('filters by category id or slug, subcategory products included', async () => {
      const [root] = await t.db.rows<{ id: string; slug: string }>(
        `select c.id, c.slug from categories c where c.store_id = $1 and c.parent_id is null
         order by (select count(*) from products p join categories sub on sub.id = p.category_id where sub.path @> array[c.id] and p.category_id <> c.id) desc
         limit 1`,
        [a.storeId],
      );
      const expected = await activeProductIds(a.storeId, 'c.path @> array[$2::uuid]', [root.id]);
      expect(expected.length).toBeGreaterThan(0);
      const byId = await walk(`/v1/catalogue/products?category=${root.id}`, 100);
      const bySlug = await walk(`/v1/catalogue/products?category=${root.slug}`, 5);
      expect(ids(byId)).toEqual(expected);
      expect(ids(bySlug)).toEqual(expected);
      // The products come from subcategories, not the root itself.
      expect(byId.some((product) => product.category.id !== root.id)).toBe(true);

      const [leaf] = await t.db.rows<{ id: string; slug: string }>(
        `select c.id, c.slug from categories c where c.store_id = $1 and not exists (select 1 from categories ch where ch.parent_id = c.id)
         and exists (select 1 from products p where p.category_id = c.id and p.status = 'active') order by c.slug limit 1`,
        [a.storeId],
      );
      const leafProducts = await walk(`/v1/catalogue/products?category=${leaf.slug}`, 100);
      expect(ids(leafProducts)).toEqual(await activeProductIds(a.storeId, 'p.category_id = $2', [leaf.id]));
      for (const product of leafProducts) expect(product.category).toMatchObject({ id: leaf.id, slug: leaf.slug });
    });

    it('filters by brand id or slug', async () => {
      const [brand] = await t.db.rows<{ id: string; slug: string }>(
        `select br.id, br.slug from brands br where br.store_id = $1 order by (select count(*) from products p where p.brand_id = br.id) desc, br.slug limit 1`,
        [a.storeId],
      );
      const expected = await activeProductIds(a.storeId, 'p.brand_id = $2', [brand.id]);
      expect(expected.length).toBeGreaterThan(1);
      expect(ids(await walk(`/v1/catalogue/products?brand=${brand.slug}`, 2))).toEqual(expected);
      expect(ids(await walk(`/v1/catalogue/products?brand=${brand.id}`, 100))).toEqual(expected);
      const [category] = await t.db.rows<{ id: string }>(
        'select category_id as id from products where brand_id = $1 and status = $2 group by category_id order by count(*) desc limit 1',
        [brand.id, 'active'],
      );
      const both = await walk(`/v1/catalogue/products?brand=${brand.slug}&category=${category.id}`, 100);
      expect(ids(both)).toEqual(
        await activeProductIds(a.storeId, 'p.brand_id = $2 and c.path @> array[$3::uuid]', [brand.id, category.id]),
      );
    });

    it('answers an empty list for an unknown category or brand', async () => {
      for (const filter of ['category=no-such-category', `category=${randomUUID()}`, 'brand=no-such-brand', `brand=${randomUUID()}`]) {
        expect(await ok(`/v1/catalogue/products?${filter}`)).toEqual({ items: [], nextCursor: null });
      }
    });

    it('reads one product by id or by slug, the same document as in the list', async () => {
      const listed = (await ok('/v1/catalogue/products?limit=3')).items[2];
      expect(await ok(`/v1/catalogue/products/${listed.id}`)).toEqual(listed);
      expect(await ok(`/v1/catalogue/products/${listed.slug}`)).toEqual(listed);
      expect(await ok(`/v1/catalogue/products/${listed.id.toUpperCase()}`)).toEqual(listed);
    });

    it('answers 404 NOT_FOUND for an unknown product id or slug', async () => {
      for (const idOrSlug of [randomUUID(), 'no-such-product', '00000000-0000-0000-0000-000000000000', 'x'.repeat(200)]) {
        expectProblem(await shopperA.call('GET', `/v1/catalogue/products/${idOrSlug}`), 404, 'NOT_FOUND');
      }
    });
  });

  describe('categories', () => {
    it('lists categories breadth-first with depth, parentId and childCount', async () => {
      const walked = await walk('/v1/catalogue/categories', 7);
      const rows = await t.db.rows<{
        id: string;
        parent_id: string | null;
        depth: number;
        child_count: number;
        slug: string;
        position: number;
      }>(
        `select c.id, c.parent_id, cardinality(c.path) - 1 as depth, c.slug, c.position,
                (select count(*)::int from categories ch where ch.parent_id = c.id) as child_count
         from categories c where c.store_id = $1 order by cardinality(c.path), c.position, c.slug`,
        [a.storeId],
      );
      expect(rows.length).toBeGreaterThan(20);
      expect(ids(walked)).toEqual(rows.map((row) => row.id));
      const byId = new Map(walked.map((category) => [category.id, category]));
      walked.forEach((category, index) => {
        const row = rows[index];
        expect(Object.keys(category).sort()).toEqual(['childCount', 'depth', 'description', 'id', 'name', 'parentId', 'position', 'slug']);
        expect(category).toMatchObject({
          slug: row.slug,
          parentId: row.parent_id,
          depth: row.depth,
          childCount: row.child_count,
          position: row.position,
        });
        expect(category.name.ar).toMatch(ARABIC);
        expect(category.description.ar).toMatch(ARABIC);
        if (index > 0) expect(category.depth).toBeGreaterThanOrEqual(walked[index - 1].depth);
        if (category.parentId === null) expect(category.depth).toBe(0);
        else expect(category.depth).toBe(byId.get(category.parentId)!.depth + 1);
      });
      expect(Math.max(...walked.map((category) => category.depth))).toBe(2);
    });

    it('lists top-level categories with parent=root, and one category’s children with parent=<slug or id>', async () => {
      const roots = await walk('/v1/catalogue/categories?parent=root', 100);
      const rootRows = await t.db.rows<{ id: string }>(
        'select id from categories where store_id = $1 and parent_id is null order by position, slug',
        [a.storeId],
      );
      expect(ids(roots)).toEqual(rootRows.map((row) => row.id));
      for (const root of roots) expect(root).toMatchObject({ depth: 0, parentId: null });

      const parent = roots.find((root) => root.childCount > 2)!;
      const children = await walk(`/v1/catalogue/categories?parent=${parent.slug}`, 2);
      const childRows = await t.db.rows<{ id: string }>('select id from categories where parent_id = $1 order by position, slug', [
        parent.id,
      ]);
      expect(children).toHaveLength(parent.childCount);
      expect(ids(children)).toEqual(childRows.map((row) => row.id));
      for (const child of children) expect(child).toMatchObject({ depth: 1, parentId: parent.id });
      expect(ids(await walk(`/v1/catalogue/categories?parent=${parent.id}`, 100))).toEqual(ids(children));
      expect(await ok('/v1/catalogue/categories?parent=no-such-parent')).toEqual({ items: [], nextCursor: null });
    });

    it('reads a category with its breadcrumb and children, by id or slug', async () => {
      const [leaf] = await t.db.rows<{ id: string; slug: string; parent_id: string; path: string[] }>(
        'select id, slug, parent_id, path::text[] as path from categories where store_id = $1 and cardinality(path) = 3 order by slug limit 1',
        [a.storeId],
      );
      const [rootId, middleId] = leaf.path;
      const detail = await ok(`/v1/catalogue/categories/${leaf.slug}`);
      expect(detail).toMatchObject({ id: leaf.id, slug: leaf.slug, depth: 2, parentId: middleId, childCount: 0, children: [] });
      expect(detail.ancestors.map((ancestor: Json) => ancestor.id)).toEqual([rootId, middleId]);
      for (const ancestor of detail.ancestors) {
        expect(Object.keys(ancestor).sort()).toEqual(['id', 'name', 'slug']);
        expect(ancestor.name.ar).toMatch(ARABIC);
      }
      expect(await ok(`/v1/catalogue/categories/${leaf.id}`)).toEqual(detail);

      const middle = await ok(`/v1/catalogue/categories/${middleId}`);
      expect(middle.ancestors.map((ancestor: Json) => ancestor.id)).toEqual([rootId]);
      const childRows = await t.db.rows<{ id: string; slug: string }>(
        'select id, slug from categories where parent_id = $1 order by position, slug',
        [middleId],
      );
      expect(middle.children.map((child: Json) => child.id)).toEqual(childRows.map((row) => row.id));
      expect(middle.childCount).toBe(childRows.length);
      expect(middle.children).toContainEqual({ id: leaf.id, slug: leaf.slug, name: detail.name });

      const root = await ok(`/v1/catalogue/categories/${rootId}`);
      expect(root).toMatchObject({ depth: 0, parentId: null, ancestors: [] });
    });

    it('answers 404 NOT_FOUND for an unknown category', async () => {
      for (const idOrSlug of [randomUUID(), 'no-such-category']) {
        expectProblem(await shopperA.call('GET', `/v1/catalogue/categories/${idOrSlug}`), 404, 'NOT_FOUND');
      }
    });
  });

  describe('brands', () => {
    it('lists brands by slug with their active product count', async () => {
      const walked = await walk('/v1/catalogue/brands', 7);
      const rows = await t.db.rows<{ id: string; slug: string; product_count: number }>(
        `select br.id, br.slug, (select count(*)::int from products p where p.brand_id = br.id and p.status = 'active') as product_count
         from brands br where br.store_id = $1 order by br.slug`,
        [a.storeId],
      );
      expect(rows.length).toBeGreaterThan(7);
      expect(walked.map((brand) => [brand.id, brand.slug, brand.productCount])).toEqual(
        rows.map((row) => [row.id, row.slug, row.product_count]),
      );
      expect(walked.reduce((sum, brand) => sum + brand.productCount, 0)).toBe(PRODUCTS - 3);
      for (const brand of walked) {
        expect(Object.keys(brand).sort()).toEqual(['description', 'id', 'name', 'productCount', 'slug']);
        expect(brand.name.ar).toMatch(ARABIC);
        expect(brand.description.ar).toMatch(ARABIC);
      }
    });

    it('reads a brand by id or slug, and answers 404 for an unknown one', async () => {
      const listed = (await ok('/v1/catalogue/brands?limit=2')).items[1];
      expect(await ok(`/v1/catalogue/brands/${listed.id}`)).toEqual(listed);
      expect(await ok(`/v1/catalogue/brands/${listed.slug}`)).toEqual(listed);
      for (const idOrSlug of [randomUUID(), 'no-such-brand']) {
        expectProblem(await shopperA.call('GET', `/v1/catalogue/brands/${idOrSlug}`), 404, 'NOT_FOUND');
      }
    });
  });

  describe('tenancy: a store sees only its own catalogue', () => {
    it('the two stores share slugs but not records', async () => {
      const [shared] = await t.db.rows<{ count: number }>(
        'select count(*)::int as count from products pa join products pb on pa.slug = pb.slug where pa.store_id = $1 and pb.store_id = $2',
        [a.storeId, b.storeId],
      );
      expect(shared.count).toBe(PRODUCTS);
    });

    it('lists only the caller’s products, categories and brands', async () => {
      expect(ids(await walk('/v1/catalogue/products', 100))).toEqual(await activeProductIds(a.storeId));
      expect(ids(await walk('/v1/catalogue/products', 100, shopperB))).toEqual(await activeProductIds(b.storeId));
      const bIds = new Set(
        (
          await t.db.rows<{ id: string }>(
            'select id from products where store_id = $1 union all select id from categories where store_id = $1 union all select id from brands where store_id = $1',
            [b.storeId],
          )
        ).map((row) => row.id),
      );
      const seenByA = [
        ...(await walk('/v1/catalogue/products', 100)),
        ...(await walk('/v1/catalogue/categories', 100)),
        ...(await walk('/v1/catalogue/brands', 100)),
      ];
      for (const item of seenByA) {
        expect(bIds.has(item.id)).toBe(false);
        for (const embedded of [item.category, item.brand, ...(item.variants ?? [])])
          if (embedded) expect(bIds.has(embedded.id)).toBe(false);
      }
      const variantIdsOfB = new Set(
        (await t.db.rows<{ id: string }>('select id from product_variants where store_id = $1', [b.storeId])).map((row) => row.id),
      );
      for (const product of seenByA.filter((item) => item.variants)) {
        for (const variant of product.variants) expect(variantIdsOfB.has(variant.id)).toBe(false);
      }
    });

    it('answers 404 for another store’s records by id, and resolves a shared slug to the caller’s own', async () => {
      const [productB] = await t.db.rows<{ id: string; slug: string }>(
        `select id, slug from products where store_id = $1 and status = 'active' order by slug desc limit 1`,
        [b.storeId],
      );
      const [categoryB] = await t.db.rows<{ id: string; slug: string }>(
        'select id, slug from categories where store_id = $1 and parent_id is not null order by slug limit 1',
        [b.storeId],
      );
      const [brandB] = await t.db.rows<{ id: string; slug: string }>(
        'select id, slug from brands where store_id = $1 order by slug limit 1',
        [b.storeId],
      );

      for (const url of [
        `/v1/catalogue/products/${productB.id}`,
        `/v1/catalogue/categories/${categoryB.id}`,
        `/v1/catalogue/brands/${brandB.id}`,
      ]) {
        expectProblem(await shopperA.call('GET', url), 404, 'NOT_FOUND');
        expect((await shopperB.call('GET', url)).statusCode).toBe(200);
      }

      const [productA] = await t.db.rows<{ id: string }>('select id from products where store_id = $1 and slug = $2', [
        a.storeId,
        productB.slug,
      ]);
      expect((await ok(`/v1/catalogue/products/${productB.slug}`)).id).toBe(productA.id);
      expect((await ok(`/v1/catalogue/products/${productB.slug}`, shopperB)).id).toBe(productB.id);
      const categoryA = await ok(`/v1/catalogue/categories/${categoryB.slug}`);
      expect(categoryA.id).not.toBe(categoryB.id);
      const categoryIdsOfB = new Set(
        (await t.db.rows<{ id: string }>('select id from categories where store_id = $1', [b.storeId])).map((row) => row.id),
      );
      for (const reference of [...categoryA.ancestors, ...categoryA.children]) expect(categoryIdsOfB.has(reference.id)).toBe(false);
      const brandA = await ok(`/v1/catalogue/brands/${brandB.slug}`);
      expect(brandA.id).not.toBe(brandB.id);
      const [countA] = await t.db.rows<{ count: number }>(
        `select count(*)::int as count from products where brand_id = $1 and status = 'active'`,
        [brandA.id],
      );
      expect(brandA.productCount).toBe(countA.count);
    });

    it('ignores another store’s ids in filters', async () => {
      const [categoryB] = await t.db.rows<{ id: string }>(
        'select id from categories where store_id = $1 and parent_id is null order by slug limit 1',
        [b.storeId],
      );
      const [brandB] = await t.db.rows<{ id: string }>('select id from brands where store_id = $1 order by slug limit 1', [b.storeId]);
      expect(await ok(`/v1/catalogue/products?category=${categoryB.id}`)).toEqual({ items: [], nextCursor: null });
      expect(await ok(`/v1/catalogue/products?brand=${brandB.id}`)).toEqual({ items: [], nextCursor: null });
      expect(await ok(`/v1/catalogue/categories?parent=${categoryB.id}`)).toEqual({ items: [], nextCursor: null });
      // The same filters by slug find the caller's own records.
      expect((await ok('/v1/catalogue/products?limit=1', shopperB)).items).toHaveLength(1);
    });

    it('a cursor from one store does not reveal the other store’s records', async () => {
      const pageB = await ok('/v1/catalogue/products?limit=5', shopperB);
      const rest = await walk(`/v1/catalogue/products?cursor=${encodeURIComponent(pageB.nextCursor)}`, 100, shopperA);
      const ownIds = new Set(await activeProductIds(a.storeId));
      for (const product of rest) expect(ownIds.has(product.id)).toBe(true);
    });
  });
});
