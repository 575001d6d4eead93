import { beforeAll, describe, expect, it } from 'vitest';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ok } from '../support/responses.js';
import { activeDrop, HUB, stockMapping } from './hub-fixtures.js';

/**
 * Issue 25, item 11: every rejected row of an import lists its values, including the rows refused only
 * once the file is compared with the store (an unknown SKU, product or parent category, a key the file
 * holds twice): those list the values they would have written, by the structure's field names.
 */
describe('data hub: the values of every rejected row', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let drop: string;
  let upload: (name: string, content: string) => Promise<unknown>;
  let sku: string;
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
  const mapping = async (structure: string, fields: unknown[]) =>
    ok(await call('POST', `${HUB}/mappings`, { name: structure, structure, direction: 'import', fields }), 201).id as string;
  const flow = async (mappingId: string, fileTemplate: string) =>
    ok(
      await call('POST', `${HUB}/flows`, {
        name: fileTemplate,
        connectionId: drop,
        mappingId,
        direction: 'import',
        format: 'csv',
        fileTemplate,
      }),
      201,
    ).id as string;
  /** A run of the flow, worked here; its rejected rows as `GET /runs/{id}/rejected` lists them, by line. */
  const rejectedOf = async (flowId: string) => {
    const queued = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}), 202);
    await t.app.get(RunsService).execute(queued.id);
    const items = ok(await call('GET', `${HUB}/runs/${queued.id}/rejected`)).items as {
      line: number;
      values: unknown;
      errors: { code: string }[];
    }[];
    return Object.fromEntries(items.map((row) => [row.line, { values: row.values, codes: row.errors.map((error) => error.code) }]));
  };

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 4 });
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    ({ id: drop, upload } = await activeDrop(t.app, owner, 'rejects'));
    [{ sku }] = await t.db.rows<{ sku: string }>(`select sku from product_variants where store_id = $1 order by sku limit 1`, [
      store.storeId,
    ]);
  }, 120_000);

  it('stock: an unknown SKU and a repeated one list their values, as a cell refused while read does, in the preview too', async () => {
    const flowId = await flow(await stockMapping(t.app, owner, 'SKU', 'الكمية'), 'stock-*.csv');
    await upload('stock-1.csv', ['SKU,الكمية', `${sku},7`, 'NOPE-1,3', `${sku},9`, `${sku},abc`].join('\n') + '\n');
    const expected = {
      3: { values: { sku: 'NOPE-1', stock: 3 }, codes: ['unknown_key'] },
      4: { values: { sku, stock: 9 }, codes: ['duplicate_key'] },
      5: { values: { SKU: sku, الكمية: 'abc' }, codes: ['not_a_number'] },
    };
    expect(await rejectedOf(flowId)).toEqual(expected);
    const preview = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true }));
    expect(
      Object.fromEntries(
        preview.rows.rejected.map((row: { line: number; values: unknown; errors: { code: string }[] }) => [
          row.line,
          { values: row.values, codes: row.errors.map((error) => error.code) },
        ]),
      ),
    ).toEqual(expected);
  });

  it('variants: a row naming a product the store lacks lists what it would have written', async () => {
    const flowId = await flow(
      await mapping('variants', [
        { target: 'sku', source: 'sku' },
        { target: 'product', source: 'product' },
        { target: 'price', source: 'price', transforms: [{ name: 'to_decimal_minor' }] },
      ]),
      'variants-*.csv',
    );
    await upload('variants-1.csv', 'sku,product,price\nNEW-1,no-such-product,19.99\n');
    expect(await rejectedOf(flowId)).toEqual({
      2: { values: { sku: 'NEW-1', product: 'no-such-product', price: 1999 }, codes: ['unknown_reference'] },
    });
  });

  it('categories: a row under a parent that is nowhere lists its values, the empty ones left out', async () => {
    const flowId = await flow(
      await mapping('categories', [
        { target: 'slug', source: 'slug' },
        { target: 'name_en', source: 'name_en' },
        { target: 'name_ar', source: 'name_ar' },
        { target: 'description_en', source: 'about' },
        { target: 'parent', source: 'parent' },
      ]),
      'categories-*.csv',
    );
    await upload('categories-1.csv', 'slug,name_en,name_ar,about,parent\nlamps,Lamps,مصابيح,,nowhere\n');
    expect(await rejectedOf(flowId)).toEqual({
      2: { values: { slug: 'lamps', name_en: 'Lamps', name_ar: 'مصابيح', parent: 'nowhere' }, codes: ['unknown_reference'] },
    });
  });
});
