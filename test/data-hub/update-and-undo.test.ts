import { beforeAll, describe, expect, it } from 'vitest';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { activeDrop, HUB, importRuns } from './hub-fixtures.js';

type Json = Record<string, any>;

describe('data hub imports update by key, list every change, and can be undone (contract section 11)', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let upload: (name: string, content: string) => Promise<unknown>;
  let runs: ReturnType<typeof importRuns>;
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
  const csv = (...lines: string[]) => lines.join('\n') + '\n';

  interface Variant {
    sku: string;
    product: string;
    price: number;
    compare_at_price: number | null;
    stock: number;
  }
  const variants = async (): Promise<Variant[]> =>
    t.db.rows<Variant>(
      `select v.sku, p.slug as product, v.price, v.compare_at_price, v.stock from product_variants v join products p on p.id = v.product_id
       where v.store_id = $1 order by v.sku`,
      [store.storeId],
    );
  const variant = async (sku: string) => (await variants()).find((row) => row.sku === sku);
  /** Every variant and product of the store, field by field, as one digest. */
  const digest = async () =>
    (
      await t.db.rows<{ digest: string }>(
        `select md5(coalesce((select string_agg(concat_ws('|', sku, product_id, price, compare_at_price, stock, position), ',' order by sku)
                 from product_variants where store_id = $1), '')
               || coalesce((select string_agg(concat_ws('|', slug, name_en, name_ar, description_en, category_id, brand_id, status), ',' order by slug)
                 from products where store_id = $1), '')) as digest`,
        [store.storeId],
      )
    )[0].digest;
  const money = (minor: number) => (minor / 100).toFixed(2);

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 8 });
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    const drop = await activeDrop(t.app, owner, 'feeds');
    upload = drop.upload;
    runs = importRuns(t.app, owner, drop.id);
  }, 120_000);

  it('takes a three-column price and stock file: updates the SKUs the store has, rejects only the new ones, and lists each change', async () => {
    const [a, b, c] = (await variants()).slice(0, 3);
    await upload(
      'feed-1.csv',
      csv(
        'sku,price,stock',
        `${a.sku},${money(a.price + 150)},${a.stock + 7}`,
        `${b.sku},${money(b.price)},`, // the same price, and an empty stock: left as it is
        `${c.sku},,0`, // no price: left as it is
        'NEW-FEED-1,9.99,3',
        'NEW-FEED-2,,3',
      ),
    );
    const flowId = await runs.importFlow('variants', ['sku', 'price', 'stock'], 'feed-1.csv');
    const run = await runs.runNow(flowId);
    expect(run).toMatchObject({ status: 'succeeded', counts: { read: 5, changed: 2, unchanged: 1, created: 0, rejected: 2 } });
    const rejected = await runs.list(run.id, 'rejected');
    expect(rejected.map((row) => [row.line, row.key, row.errors.map((error: Json) => [error.code, error.fields])])).toEqual([
      [5, 'NEW-FEED-1', [['required_to_create', ['product']]]],
      [6, 'NEW-FEED-2', [['required_to_create', ['product', 'price']]]],
    ]);
    expect(rejected[1].errors[0].message_en).toContain('Product, Price');
    expect(rejected[1].errors[0].message_ar).toMatch(ARABIC);
    expect(await runs.list(run.id, 'changed')).toEqual([
      {
        key: a.sku,
        recordId: expect.any(String),
        changes: [
          { field: 'price', before: a.price, after: a.price + 150 },
          { field: 'stock', before: a.stock, after: a.stock + 7 },
        ],
      },
      { key: c.sku, recordId: expect.any(String), changes: [{ field: 'stock', before: c.stock, after: 0 }] },
    ]);
    expect(await variant(a.sku)).toMatchObject({ price: a.price + 150, stock: a.stock + 7 });
    expect(await variant(b.sku)).toEqual(b);
    expect(await variant(c.sku)).toEqual({ ...c, stock: 0 });
    expect(await variant('NEW-FEED-1')).toBeUndefined();
    // A preview answers the first rows of the list too.
    await upload('feed-2.csv', csv('sku,price,stock', `${a.sku},${money(a.price)},${a.stock}`));
    const previewed = await runs.preview(await runs.importFlow('variants', ['sku', 'price', 'stock'], 'feed-2.csv'));
    expect(previewed.rows.changed).toEqual([
      {
        key: a.sku,
        recordId: expect.any(String),
        changes: [
          { field: 'price', before: a.price + 150, after: a.price },
          { field: 'stock', before: a.stock + 7, after: a.stock },
        ],
      },
    ]);
    expect(await variant(a.sku)).toMatchObject({ price: a.price + 150 });
  });

  it('clears a value on an empty cell only for a field mapped clearWhenEmpty, and shows references by slug', async () => {
    const [, , , d, e] = await variants();
    await t.db.query(`update product_variants set compare_at_price = 99900 where store_id = $1 and sku = any($2)`, [
      store.storeId,
      [d.sku, e.sku],
    ]);
    await upload('prices.csv', csv('sku,price,compare_at_price', `${d.sku},${money(d.price)},`, `${e.sku},${money(e.price)},`));
    const keeps = await runs.runNow(await runs.importFlow('prices', ['sku', 'price', 'compare_at_price'], 'prices.csv'));
    expect(keeps.counts).toMatchObject({ changed: 0, unchanged: 2 });
    const clears = await runs.runNow(
      await runs.importFlow('prices', ['sku', 'price', { target: 'compare_at_price', clearWhenEmpty: true }], 'prices.csv'),
    );
    expect(clears.counts).toMatchObject({ changed: 2, unchanged: 0 });
    expect((await runs.list(clears.id, 'changed')).map((row) => row.changes)).toEqual([
      [{ field: 'compare_at_price', before: 99900, after: null }],
      [{ field: 'compare_at_price', before: 99900, after: null }],
    ]);
    expect((await variant(d.sku))!.compare_at_price).toBeNull();

    const product = (
      await t.db.rows<{ slug: string; category: string }>(
        `select p.slug, c.slug as category from products p join categories c on c.id = p.category_id where p.store_id = $1 order by p.slug limit 1`,
        [store.storeId],
      )
    )[0];
    await upload('products.csv', csv('slug,category', `${product.slug},`));
    const uncategorised = await runs.runNow(
      await runs.importFlow('products', ['slug', { target: 'category', clearWhenEmpty: true }], 'products.csv'),
    );
    expect(await runs.list(uncategorised.id, 'changed')).toEqual([
      { key: product.slug, recordId: expect.any(String), changes: [{ field: 'category', before: product.category, after: null }] },
    ]);
    const undone = await runs.undo(uncategorised.id);
    expect(undone).toMatchObject({ status: 'succeeded', counts: { read: 1, changed: 1, conflicts: 0 } });
    expect(
      (
        await t.db.rows(`select c.slug from products p join categories c on c.id = p.category_id where p.slug = $1 and p.store_id = $2`, [
          product.slug,
          store.storeId,
        ])
      )[0],
    ).toEqual({ slug: product.category });
  });

  it('undoes a run exactly, leaves what was changed since as conflicts, shows it first in a preview, and is done once', async () => {
    const all = await variants();
    const [a, b, c] = all.slice(5, 8);
    const before = await digest();
    await upload(
      'upsert.csv',
      csv(
        'sku,product,price,stock',
        `${a.sku},${a.product},${money(a.price + 100)},${a.stock + 10}`,
        `${b.sku},${all[0].product},${money(b.price)},${b.stock}`, // moved to another product
        `${c.sku},${c.product},${money(c.price + 1)},${c.stock}`,
        `UNDO-NEW-1,${a.product},5.00,4`,
        `UNDO-NEW-2,${a.product},6.00,4`,
      ),
    );
    const flowId = await runs.importFlow('variants', ['sku', 'product', 'price', 'stock'], 'upsert.csv', {
      shrinkGuard: { maxDeactivatePercent: 100, maxDeactivateCount: 500 },
    });
    const run = await runs.runNow(flowId);
    expect(run).toMatchObject({
      status: 'succeeded',
      counts: { created: 2, changed: 3 },
      undoneBy: null,
      undoableUntil: expect.any(String),
    });
    expect((await runs.list(run.id, 'changed')).find((row) => row.key === b.sku)!.changes).toEqual([
      { field: 'product', before: b.product, after: all[0].product },
    ]);
    // Since the run: a sale took one of a's units, and one of the new variants was restocked.
    await t.db.query(`update product_variants set stock = stock - 1 where store_id = $1 and sku = $2`, [store.storeId, a.sku]);
    await t.db.query(`update product_variants set stock = 9 where store_id = $1 and sku = 'UNDO-NEW-2'`, [store.storeId]);
    const afterRun = await digest();

    const preview = await runs.undo(run.id, { preview: true });
    expect(preview).toMatchObject({
      trigger: 'undo',
      preview: true,
      undoOf: run.id,
      status: 'succeeded',
      counts: { read: 5, changed: 3, deactivated: 1, unchanged: 1, conflicts: 2, created: 0, rejected: 0 },
    });
    expect(preview.rows.conflicts).toEqual([
      { key: a.sku, recordId: expect.any(String), field: 'stock', runAfter: a.stock + 10, now: a.stock + 9, reason: 'changed' },
      { key: 'UNDO-NEW-2', recordId: expect.any(String), field: 'stock', runAfter: 4, now: 9, reason: 'changed' },
    ]);
    expect(preview.rows.deactivated.map((row: Json) => row.key)).toEqual(['UNDO-NEW-1']);
    expect(await digest()).toBe(afterRun);

    const undo = await runs.undo(run.id);
    expect(undo).toMatchObject({ trigger: 'undo', preview: false, undoOf: run.id, status: 'succeeded', counts: preview.counts });
    expect(await runs.list(undo.id, 'conflicts')).toEqual(preview.rows.conflicts);
    expect((await runs.list(undo.id, 'changed')).find((row) => row.key === a.sku)!.changes).toEqual([
      { field: 'price', before: a.price + 100, after: a.price },
    ]);
    // Everything is as before the run but for the two conflicts, left as they were, and the new variant deactivated.
    expect(await variant(a.sku)).toEqual({ ...a, stock: a.stock + 9 });
    expect(await variant(b.sku)).toEqual(b);
    expect(await variant(c.sku)).toEqual(c);
    expect(await variant('UNDO-NEW-1')).toMatchObject({ stock: 0 });
    expect(await variant('UNDO-NEW-2')).toMatchObject({ stock: 9 });
    await t.db.query(`update product_variants set stock = $3 where store_id = $1 and sku = $2`, [store.storeId, a.sku, a.stock]);
    await t.db.query(`delete from product_variants where store_id = $1 and sku like 'UNDO-NEW-%'`, [store.storeId]);
    expect(await digest()).toBe(before);

    expect(ok(await call('GET', `${HUB}/runs/${run.id}`))).toMatchObject({ undoneBy: undo.id });
    expect(undo.undoableUntil).toBeNull();
    expectProblem(await call('POST', `${HUB}/runs/${run.id}/undo`, {}), 409, 'already_undone');
    expectProblem(await call('POST', `${HUB}/runs/${undo.id}/undo`, {}), 409, 'undo_of_undo');
    expectProblem(await call('POST', `${HUB}/runs/${preview.id}/undo`, {}), 409, 'undo_of_undo');
    const previewRun = await runs.preview(flowId);
    expectProblem(await call('POST', `${HUB}/runs/${previewRun.id}/undo`, {}), 409, 'run_not_undoable');
  });

  it('reactivates what a replace run deactivated, and passes the shrink guard taking back what a run created', async () => {
    const kept = (await variants()).filter((row) => row.stock > 0).slice(0, 2);
    await upload('replace.csv', csv('sku,stock', ...kept.map((row) => `${row.sku},${row.stock}`)));
    const flowId = await runs.importFlow('stock', ['sku', 'stock'], 'replace.csv', { mode: 'replace' });
    const replaced = await runs.runNow(flowId, { overrideShrinkGuard: { maxDeactivatePercent: 100, reason: 'testing the undo' } });
    expect(replaced.status).toBe('succeeded');
    const deactivated = await runs.list(replaced.id, 'deactivated');
    expect(deactivated.length).toBe(replaced.counts.deactivated);
    const before = new Map((await variants()).map((row) => [row.sku, row.stock]));
    expect(deactivated.every((row) => before.get(row.key) === 0)).toBe(true);
    const undo = await runs.undo(replaced.id);
    expect(undo.counts).toMatchObject({ read: deactivated.length, changed: deactivated.length, conflicts: 0 });
    expect((await variants()).filter((row) => row.stock === 0).map((row) => row.sku)).not.toEqual(
      expect.arrayContaining(deactivated.map((row) => row.key)),
    );

    // Brands the run created are removed again, unless something uses them since.
    const brandCount = async () =>
      Number((await t.db.rows<{ n: string }>(`select count(*) as n from brands where store_id = $1`, [store.storeId]))[0].n);
    const brandsBefore = await brandCount();
    await upload(
      'brands.csv',
      csv('slug,name_en,name_ar', ...Array.from({ length: 6 }, (_, i) => `undo-brand-${i},Brand ${i},علامة ${i}`)),
    );
    const created = await runs.runNow(await runs.importFlow('brands', ['slug', 'name_en', 'name_ar'], 'brands.csv'));
    expect(created.counts.created).toBe(6);
    await t.db.query(
      `update products set brand_id = (select id from brands where store_id = $1 and slug = 'undo-brand-0') where id = (select id from products where store_id = $1 order by slug limit 1)`,
      [store.storeId],
    );
    const refused = await runs.undo(created.id);
    expect(refused).toMatchObject({ status: 'refused', refusal: { code: 'shrink_guard', wouldDeactivate: 5 } });
    expect(refused.refusal.message_en).toContain('the 5 records the run created');
    expect(refused.refusal.message_ar).toMatch(ARABIC);
    // What it would have removed is listed all the same, to judge before an override.
    expect((await runs.list(refused.id, 'deactivated')).map((row) => row.key)).toEqual([1, 2, 3, 4, 5].map((i) => `undo-brand-${i}`));
    expect(await brandCount()).toBe(brandsBefore + 6);
    const takenBack = await runs.undo(created.id, { overrideShrinkGuard: { maxDeactivatePercent: 100, reason: 'a wrong file' } });
    expect(takenBack).toMatchObject({
      status: 'succeeded',
      counts: { read: 6, deactivated: 5, unchanged: 1, conflicts: 1 },
      override: { reason: 'a wrong file' },
    });
    expect(await runs.list(takenBack.id, 'conflicts')).toEqual([
      { key: 'undo-brand-0', recordId: expect.any(String), field: null, runAfter: null, now: null, reason: 'in_use' },
    ]);
    expect(await brandCount()).toBe(brandsBefore + 1);

    // A category tree the run created goes whole; one a product was put in since stays.
    await upload(
      'tree.csv',
      csv(
        'slug,name_en,name_ar,parent',
        'tree-a,A,أ,',
        'tree-b,B,ب,tree-a',
        'tree-c,C,ج,tree-b',
        'tree-d,D,د,tree-a',
        'tree-e,E,هـ,tree-d',
      ),
    );
    const tree = await runs.runNow(await runs.importFlow('categories', ['slug', 'name_en', 'name_ar', 'parent'], 'tree.csv'));
    expect(tree.counts.created).toBe(5);
    await t.db.query(
      `update products set category_id = (select id from categories where store_id = $1 and slug = 'tree-e') where id = (select id from products where store_id = $1 order by slug limit 1)`,
      [store.storeId],
    );
    const prunedTree = await runs.undo(tree.id, { overrideShrinkGuard: { maxDeactivatePercent: 100, reason: 'a wrong tree' } });
    expect(prunedTree.counts).toMatchObject({ read: 5, deactivated: 2, unchanged: 3, conflicts: 3 });
    expect((await runs.list(prunedTree.id, 'conflicts')).map((conflict) => [conflict.key, conflict.reason])).toEqual([
      ['tree-a', 'in_use'],
      ['tree-d', 'in_use'],
      ['tree-e', 'in_use'],
    ]);
    expect(
      (
        await t.db.rows<{ slug: string }>(`select slug from categories where store_id = $1 and slug like 'tree-%' order by slug`, [
          store.storeId,
        ])
      ).map((row) => row.slug),
    ).toEqual(['tree-a', 'tree-d', 'tree-e']);
  });

  it('refuses an undo once the run’s lists are past 90 days, and to anyone who may not manage flows', async () => {
    const [a] = await variants();
    await upload('late.csv', csv('sku,stock', `${a.sku},${a.stock + 1}`));
    const run = await runs.runNow(await runs.importFlow('stock', ['sku', 'stock'], 'late.csv'));
    const reader = await staffToken(t.app, await addStaff(t.app, store.storeId, 'analyst'));
    expect((await adminCall(t.app, 'POST', `${HUB}/runs/${run.id}/undo`, reader, {})).statusCode).toBe(403);
    const other = await t.store({});
    const stranger = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    expectProblem(await adminCall(t.app, 'POST', `${HUB}/runs/${run.id}/undo`, stranger, {}), 404, 'not_found');
    expectProblem(await call('POST', `${HUB}/runs/${run.id}/undo`, { preview: 'yes' }), 400, 'validation_failed');
    // A run from before undo existed kept no values before its changes.
    const legacy = await runs.runNow(await runs.importFlow('stock', ['sku', 'stock'], 'late.csv'));
    await t.db.query(`update data_hub_runs set changes_listed = false where id = $1`, [legacy.id]);
    expectProblem(await call('POST', `${HUB}/runs/${legacy.id}/undo`, {}), 410, 'undo_expired');
    expect(ok(await call('GET', `${HUB}/runs/${legacy.id}`)).undoableUntil).toBeNull();
    await t.db.query(`update data_hub_runs set created_at = now() - interval '91 days' where id = $1`, [run.id]);
    const expired = expectProblem(await call('POST', `${HUB}/runs/${run.id}/undo`, {}), 410, 'undo_expired');
    expect(expired.message_ar).toMatch(ARABIC);
    expect(ok(await call('GET', `${HUB}/runs/${run.id}`)).undoableUntil).toBeNull();
  });
});
