import { beforeAll, describe, expect, it } from 'vitest';
import { addStaff, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC } from '../support/problem.js';
import { activeDrop, importRuns } from './hub-fixtures.js';

type Json = Record<string, any>;

describe('data hub imports of products, variants, categories, brands and customers (contract section 9)', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let drop: string;
  let upload: (name: string, content: string) => Promise<unknown>;
  const csv = (...lines: string[]) => lines.join('\n') + '\n';

  let importFlow: ReturnType<typeof importRuns>['importFlow'];
  let preview: ReturnType<typeof importRuns>['preview'];
  let runNow: ReturnType<typeof importRuns>['runNow'];
  let list: ReturnType<typeof importRuns>['list'];
  const codes = (rows: Json[]) => rows.map((row) => [row.line, row.errors.map((error: Json) => `${error.field}:${error.code}`).join(' ')]);

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 12 });
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    ({ id: drop, upload } = await activeDrop(t.app, owner, 'catalogue'));
    ({ importFlow, preview, runNow, list } = importRuns(t.app, owner, drop));
  }, 120_000);

  it('imports brands and a category tree whose parents the same file creates, refusing unknown parents and cycles', async () => {
    const existing = (
      await t.db.rows<{ slug: string }>(`select slug from categories where store_id = $1 order by slug limit 1`, [store.storeId])
    )[0].slug;
    await upload('brands.csv', csv('slug,name_en,name_ar', 'acme,Acme,أكمي', 'nour,Nour,نور'));
    const brands = await runNow(await importFlow('brands', ['slug', 'name_en', 'name_ar'], 'brands.csv'));
    expect(brands).toMatchObject({ status: 'succeeded', counts: { read: 2, created: 2, changed: 0, unchanged: 0, rejected: 0 } });
    expect((await list(brands.id, 'created')).map((row) => row.key)).toEqual(['acme', 'nour']);

    await upload(
      'categories.csv',
      csv(
        'slug,name_en,name_ar,parent',
        'hub-shoes-kids,Kids shoes,أحذية أطفال,hub-shoes', // its parent comes two lines later
        `hub-shoes-sport,Sport shoes,أحذية رياضية,hub-shoes`,
        `hub-shoes,Shoes,أحذية,${existing}`,
        'orphan,Orphan,يتيم,nowhere',
        'orphan-child,Orphan child,ابن يتيم,orphan',
        'loop-a,Loop A,حلقة أ,loop-b',
        'loop-b,Loop B,حلقة ب,loop-a',
        'self,Self,ذاتي,self',
      ),
    );
    const flowId = await importFlow('categories', ['slug', 'name_en', 'name_ar', 'parent'], 'categories.csv');
    const previewed = await preview(flowId);
    expect(previewed.counts).toMatchObject({ read: 8, created: 3, rejected: 5 });
    expect(previewed.rows.created.map((row: Json) => [row.key, row.recordId])).toEqual([
      ['hub-shoes-kids', null],
      ['hub-shoes-sport', null],
      ['hub-shoes', null],
    ]);
    expect(await t.db.rows(`select 1 from categories where store_id = $1 and slug = 'hub-shoes'`, [store.storeId])).toHaveLength(0);

    const run = await runNow(flowId);
    expect(run).toMatchObject({ status: 'succeeded', counts: previewed.counts });
    expect(codes(await list(run.id, 'rejected'))).toEqual([
      [5, 'parent:unknown_reference'],
      [6, 'parent:unknown_reference'],
      [7, 'parent:unknown_reference'], // under loop-b, refused on the next line
      [8, 'parent:parent_cycle'],
      [9, 'parent:parent_cycle'],
    ]);
    const tree = await t.db.rows<{ slug: string; path: string[] }>(
      `select c.slug, array(select p.slug from unnest(c.path) with ordinality as u(id, n) join categories p on p.id = u.id order by n) as path
       from categories c where c.store_id = $1 and c.slug like 'hub-shoes%' order by c.slug`,
      [store.storeId],
    );
    const root = tree[0].path.slice(0, -1);
    expect(root.at(-1)).toBe(existing);
    expect(tree).toEqual([
      { slug: 'hub-shoes', path: [...root, 'hub-shoes'] },
      { slug: 'hub-shoes-kids', path: [...root, 'hub-shoes', 'hub-shoes-kids'] },
      { slug: 'hub-shoes-sport', path: [...root, 'hub-shoes', 'hub-shoes-sport'] },
    ]);

    // Moving a category moves its subtree's paths; a later row that would put a category under its own descendant is refused.
    await upload(
      'categories-2.csv',
      csv('slug,name_en,name_ar,parent', 'hub-shoes-kids,Kids shoes,أحذية أطفال,hub-shoes-sport', 'hub-shoes,Shoes,أحذية,hub-shoes-kids'),
    );
    const moved = await runNow(await importFlow('categories', ['slug', 'name_en', 'name_ar', 'parent'], 'categories-2.csv'));
    expect(moved.counts).toMatchObject({ read: 2, changed: 1, rejected: 1 });
    const kids = await t.db.rows<{ depth: number }>(
      `select cardinality(path) as depth from categories where store_id = $1 and slug = 'hub-shoes-kids'`,
      [store.storeId],
    );
    expect(kids[0].depth).toBe(root.length + 3);
  });

  it('creates and updates products and their variants by slug and SKU, and search sees them', async () => {
    const [known] = await t.db.rows<{ slug: string; name_en: string; category: string }>(
      `select p.slug, p.name_en, c.slug as category from products p join categories c on c.id = p.category_id
       where p.store_id = $1 order by p.slug limit 1`,
      [store.storeId],
    );
    await upload(
      'products.csv',
      csv(
        'slug,name_en,name_ar,category,brand,status',
        `zanzibar-runner,Zanzibar runner,حذاء زنجبار,hub-shoes-sport,acme,`,
        `${known.slug},${known.name_en} (renamed),اسم جديد,,,`,
        'ghost-product,Ghost,شبح,no-such-category,no-such-brand,',
        'draft-one,Draft one,مسودة,,nour,draft',
      ),
    );
    const products = await runNow(
      await importFlow('products', ['slug', 'name_en', 'name_ar', 'category', 'brand', 'status'], 'products.csv'),
    );
    expect(products.counts).toMatchObject({ read: 4, created: 2, changed: 1, unchanged: 0, rejected: 1 });
    const [ghost] = await list(products.id, 'rejected');
    expect(codes([ghost])).toEqual([[4, 'category:unknown_reference brand:unknown_reference']]);
    expect(ghost.errors[0].message_ar).toMatch(ARABIC);
    const created = await list(products.id, 'created');
    expect(created.map((row) => row.key)).toEqual(['zanzibar-runner', 'draft-one']);
    const [runner] = await t.db.rows<Json>(
      `select p.id, p.status, c.slug as category, b.slug as brand, p.name_ar from products p
       join categories c on c.id = p.category_id join brands b on b.id = p.brand_id where p.store_id = $1 and p.slug = 'zanzibar-runner'`,
      [store.storeId],
    );
    expect(runner).toMatchObject({
      id: created[0].recordId,
      status: 'active',
      category: 'hub-shoes-sport',
      brand: 'acme',
      name_ar: 'حذاء زنجبار',
    });
    const [renamed] = await t.db.rows<Json>(
      `select p.name_en, c.slug as category from products p join categories c on c.id = p.category_id where p.slug = $1 and p.store_id = $2`,
      [known.slug, store.storeId],
    );
    expect(renamed).toEqual({ name_en: `${known.name_en} (renamed)`, category: known.category });

    const [existingVariant] = await t.db.rows<{ sku: string; price: number; stock: number }>(
      `select sku, price, stock from product_variants where store_id = $1 order by sku limit 1`,
      [store.storeId],
    );
    await upload(
      'variants.csv',
      csv(
        'sku,product,price,stock',
        'ZR-42,zanzibar-runner,249.50,7',
        'ZR-43,zanzibar-runner,"1,249.00",',
        `${existingVariant.sku},${known.slug},12.34,`,
        'XX-1,no-such-product,10,1',
      ),
    );
    const variantsFlow = await importFlow('variants', ['sku', 'product', 'price', 'stock'], 'variants.csv');
    const variants = await runNow(variantsFlow);
    expect(variants.counts).toMatchObject({ read: 4, created: 2, changed: 1, rejected: 1 });
    expect(codes(await list(variants.id, 'rejected'))).toEqual([[5, 'product:unknown_reference']]);
    const rows = await t.db.rows<Json>(
      `select v.sku, v.price, v.stock, v.currency, p.slug from product_variants v join products p on p.id = v.product_id
       where v.store_id = $1 and v.sku in ('ZR-42', 'ZR-43', $2) order by v.sku`,
      [store.storeId, existingVariant.sku],
    );
    expect(rows).toEqual(
      [
        { sku: existingVariant.sku, price: 1234, stock: existingVariant.stock, currency: 'SAR', slug: known.slug },
        { sku: 'ZR-42', price: 24950, stock: 7, currency: 'SAR', slug: 'zanzibar-runner' },
        { sku: 'ZR-43', price: 124900, stock: 0, currency: 'SAR', slug: 'zanzibar-runner' },
      ].sort((a, b) => a.sku.localeCompare(b.sku)),
    );
    // The same file again changes nothing.
    expect((await runNow(variantsFlow)).counts).toMatchObject({ read: 4, created: 0, changed: 0, unchanged: 3, rejected: 1 });

    const search = await t.db.rows<{ min_price: number }>(`select min_price from product_search where product_id = $1`, [runner.id]);
    expect(search).toEqual([{ min_price: 24950 }]);
  });

  it('archives the products a replace file no longer holds, within the shrink guard, and lists them', async () => {
    const active = await t.db.rows<{ slug: string }>(
      `select slug from products where store_id = $1 and status <> 'archived' order by slug`,
      [store.storeId],
    );
    const kept = active.slice(0, active.length - 1);
    await upload('products-all.csv', csv('slug,name_en,name_ar', ...kept.map((row) => `${row.slug},Kept ${row.slug},باق`)));
    const flowId = await importFlow('products', ['slug', 'name_en', 'name_ar'], 'products-all.csv', { mode: 'replace' });
    const previewed = await preview(flowId);
    expect(previewed.counts).toMatchObject({ read: kept.length, deactivated: 1 });
    expect(previewed.rows.deactivated).toEqual([{ key: active.at(-1)!.slug, recordId: expect.any(String) }]);
    const run = await runNow(flowId);
    expect(run.status).toBe('succeeded');
    expect(await list(run.id, 'deactivated')).toEqual(previewed.rows.deactivated);
    const statuses = await t.db.rows<{ status: string }>(`select status from products where store_id = $1 and slug = $2`, [
      store.storeId,
      active.at(-1)!.slug,
    ]);
    expect(statuses).toEqual([{ status: 'archived' }]);

    await upload('products-few.csv', csv('slug,name_en,name_ar', `${kept[0].slug},Kept,باق`));
    const refused = await runNow(await importFlow('products', ['slug', 'name_en', 'name_ar'], 'products-few.csv', { mode: 'replace' }));
    expect(refused).toMatchObject({ status: 'refused', refusal: { wouldDeactivate: kept.length - 1, activeRecords: kept.length } });
    expect(await t.db.rows(`select 1 from products where store_id = $1 and status = 'archived'`, [store.storeId])).toHaveLength(1);
  });

  it('imports customers by email: new ones without a password, known ones updated, case-folded duplicates refused', async () => {
    await t.db.query(
      `insert into shoppers (store_id, email, email_normalized, first_name, locale) values ($1, 'Sara@Example.com', 'sara@example.com', 'Sara', 'en')`,
      [store.storeId],
    );
    await upload(
      'customers.csv',
      csv(
        'email,first_name,last_name,locale,marketing_opt_in',
        'SARA@example.com,سارة,القحطاني,ar,نعم',
        ' omar@example.com ,Omar,,,no',
        'Omar@Example.com,Omar again,,,',
        'not-an-email,X,,,',
      ),
    );
    const run = await runNow(
      await importFlow('customers', ['email', 'first_name', 'last_name', 'locale', 'marketing_opt_in'], 'customers.csv'),
    );
    expect(run.counts).toMatchObject({ read: 4, created: 1, changed: 1, rejected: 2 });
    expect(codes(await list(run.id, 'rejected'))).toEqual([
      [5, 'email:not_an_email'],
      [4, 'null:duplicate_key'],
    ]);
    const shoppers = await t.db.rows<Json>(
      `select email, email_normalized, first_name, last_name, locale, marketing_opt_in, password_hash from shoppers
       where store_id = $1 and email_normalized in ('sara@example.com', 'omar@example.com') order by email_normalized`,
      [store.storeId],
    );
    expect(shoppers).toEqual([
      {
        email: 'omar@example.com',
        email_normalized: 'omar@example.com',
        first_name: 'Omar',
        last_name: '',
        locale: 'ar',
        marketing_opt_in: false,
        password_hash: null,
      },
      {
        email: 'Sara@Example.com',
        email_normalized: 'sara@example.com',
        first_name: 'سارة',
        last_name: 'القحطاني',
        locale: 'ar',
        marketing_opt_in: true,
        password_hash: null,
      },
    ]);
  });
});
