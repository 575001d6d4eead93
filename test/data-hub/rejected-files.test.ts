import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { csvField } from '../../src/common/csv.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { activeDrop, HUB, stockMapping } from './hub-fixtures.js';

const CSV_TYPE = 'text/csv; charset=utf-8';
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

interface RejectedItem {
  line: number;
  errors: { field: string | null; message_en: string; message_ar: string }[];
}

/** An XLSX file's first worksheet as exceljs reads it: its rows' values (empty cells null), and whether it reads right to left. */
async function xlsxSheet(bytes: Buffer): Promise<{ rows: unknown[][]; rightToLeft: boolean }> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer);
  const sheet = workbook.worksheets[0];
  const rows: unknown[][] = [];
  sheet.eachRow((row) => rows.push(Array.from({ length: sheet.columnCount }, (_, index) => row.getCell(index + 1).value ?? null)));
  return { rows, rightToLeft: sheet.views[0]?.rightToLeft === true };
}

/**
 * Issue 28 (contract section 11): `GET /runs/{id}/rejected.csv` and `.xlsx` give a run's rejected rows
 * as a file to fix and upload again: the source's columns with the cells the rows were refused with,
 * the line and the reasons in the caller's language; formula-safe; 404 for another store's run, 410
 * once the run's lists were purged.
 */
describe('data hub: rejected rows as a file', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let otherOwner: string;
  let upload: (name: string, content: string) => Promise<unknown>;
  let dropId: string;
  let flowId: string;
  let runId: string;
  let skus: string[];
  const call = (method: string, url: string, token = owner, headers: Record<string, string> = {}) =>
    adminCall(t.app, method, url, token, undefined, headers);
  const runNow = async (file: string) => {
    const queued = ok(await adminCall(t.app, 'POST', `${HUB}/flows/${flowId}/runs`, owner, { file }), 202);
    await t.app.get(RunsService).execute(queued.id);
    return ok(await call('GET', `${HUB}/runs/${queued.id}`));
  };
  const download = async (id: string, format: 'csv' | 'xlsx', language: 'en' | 'ar') => {
    const response = await call('GET', `${HUB}/runs/${id}/rejected.${format}`, owner, { 'accept-language': language });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    expect(response.headers['content-type']).toBe(format === 'csv' ? CSV_TYPE : XLSX_TYPE);
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="run-${id}-rejected.${format}"; filename*=UTF-8''run-${id}-rejected.${format}`,
    );
    return response.rawPayload;
  };
  /** The reasons cell of a rejected row as the API lists its errors: each prefixed by the file's column, in the language. */
  const reasonsOf = (item: RejectedItem, language: 'en' | 'ar') =>
    item.errors
      .map((error) => {
        const message = language === 'en' ? error.message_en : error.message_ar;
        return error.field === null ? message : `${{ sku: 'SKU', stock: 'الكمية' }[error.field]}: ${message}`;
      })
      .join(language === 'en' ? '; ' : '؛ ');

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 4 });
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    const other = await t.store();
    otherOwner = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    ({ id: dropId, upload } = await activeDrop(t.app, owner, 'rejected-files'));
    flowId = ok(
      await adminCall(t.app, 'POST', `${HUB}/flows`, owner, {
        name: 'Stock',
        connectionId: dropId,
        mappingId: await stockMapping(t.app, owner, 'SKU', 'الكمية'),
        direction: 'import',
        format: 'csv',
        fileTemplate: 'stock-*.csv',
      }),
      201,
    ).id;
    skus = (await t.db.rows<{ sku: string }>(`select sku from product_variants where store_id = $1 order by sku`, [store.storeId])).map(
      (row) => row.sku,
    );
    const [a, b] = skus;
    // A column the mapping does not read (note); a cell refused as it is read (abc), one refused once compared
    // with the store (NOPE-1), a key given twice, and a row without its key.
    await upload('stock-1.csv', ['SKU,الكمية,note', `${a},7,ok`, `${b},abc,=1+2`, 'NOPE-1,3,', `${a},9,again`, ',4,-x'].join('\n') + '\n');
    const run = await runNow('stock-1.csv');
    expect(run).toMatchObject({ status: 'succeeded', counts: { read: 5, rejected: 4 } });
    runId = run.id;
  }, 120_000);

  it('CSV: exactly the rejected rows, their cells as the file had them, line and reasons in English or Arabic', async () => {
    const [a, b] = skus;
    const items = ok(await call('GET', `${HUB}/runs/${runId}/rejected?limit=100`)).items as RejectedItem[];
    expect(items.map((item) => item.line)).toEqual([3, 6, 5, 4]);
    // The same rows in the same order; the values given back (NOPE-1, 3; a, 9) are what importing them gives again.
    const cells = [
      [b, 'abc', "'=1+2"],
      ['', '4', "'-x"],
      [a, '9', ''],
      ['NOPE-1', '3', ''],
    ];
    for (const language of ['en', 'ar'] as const) {
      const bytes = await download(runId, 'csv', language);
      expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      const [header, ...rows] = parse(bytes, { bom: true }) as string[][];
      expect(header).toEqual(['SKU', 'الكمية', 'note', ...(language === 'en' ? ['line', 'reasons'] : ['السطر', 'الأسباب'])]);
      expect(rows).toEqual(items.map((item, index) => [...cells[index], String(item.line), reasonsOf(item, language)]));
    }
    const english = parse(await download(runId, 'csv', 'en'), { bom: true }) as string[][];
    expect(english[1][4]).toMatch(/^الكمية: /);
    expect(english[3][4]).toBe(`${a} is also on line 2, which counts.`);
    expect(english[4][4]).toMatch(/^SKU: .*NOPE-1/);
  });

  it('XLSX: the same rows, the line a number, right to left in Arabic', async () => {
    const [a, b] = skus;
    const items = ok(await call('GET', `${HUB}/runs/${runId}/rejected?limit=100`)).items as RejectedItem[];
    const english = await xlsxSheet(await download(runId, 'xlsx', 'en'));
    expect(english.rightToLeft).toBe(false);
    expect(english.rows).toEqual([
      ['SKU', 'الكمية', 'note', 'line', 'reasons'],
      [b, 'abc', "'=1+2", 3, reasonsOf(items[0], 'en')],
      [null, '4', "'-x", 6, reasonsOf(items[1], 'en')],
      [a, 9, null, 5, reasonsOf(items[2], 'en')],
      ['NOPE-1', 3, null, 4, reasonsOf(items[3], 'en')],
    ]);
    const arabic = await xlsxSheet(await download(runId, 'xlsx', 'ar'));
    expect(arabic.rightToLeft).toBe(true);
    expect(arabic.rows[0]).toEqual(['SKU', 'الكمية', 'note', 'السطر', 'الأسباب']);
    expect(arabic.rows.slice(1).map((row) => row[4])).toEqual(items.map((item) => reasonsOf(item, 'ar')));
  });

  it('the fixed file uploads again as it is: the line and reasons columns are left alone', async () => {
    const [a, b, c, d] = skus;
    const [header, ...rows] = parse(await download(runId, 'csv', 'en'), { bom: true }) as string[][];
    const fixed = [
      [b, '11'],
      [c, '4'],
      [a, '9'],
      [d, '3'],
    ].map(([sku, quantity], index) => [sku, quantity, ...rows[index].slice(2)]);
    await upload('stock-2.csv', [header, ...fixed].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n');
    const run = await runNow('stock-2.csv');
    expect(run).toMatchObject({ status: 'succeeded', counts: { read: 4, rejected: 0 } });
    const stock = await t.db.rows<{ sku: string; stock: number }>(
      `select sku, stock from product_variants where store_id = $1 and sku = any($2) order by sku`,
      [store.storeId, [a, b, c, d]],
    );
    expect(Object.fromEntries(stock.map((row) => [row.sku, row.stock]))).toEqual({ [a]: 9, [b]: 11, [c]: 4, [d]: 3 });
    // A run with no rejected rows downloads its header alone: the mapping's columns (no row holds another).
    const csv = parse(await download(run.id, 'csv', 'en'), { bom: true }) as string[][];
    expect(csv).toEqual([['SKU', 'الكمية', 'line', 'reasons']]);
    expect((await xlsxSheet(await download(run.id, 'xlsx', 'ar'))).rows).toEqual([['SKU', 'الكمية', 'السطر', 'الأسباب']]);
  });

  it('a value a transform made is not the file’s: its cell is left empty (money in minor units)', async () => {
    const mappingId = ok(
      await adminCall(t.app, 'POST', `${HUB}/mappings`, owner, {
        name: 'Variants',
        structure: 'variants',
        direction: 'import',
        fields: [
          { target: 'sku', source: 'sku' },
          { target: 'product', source: 'product' },
          { target: 'price', source: 'price', transforms: [{ name: 'to_decimal_minor' }] },
        ],
      }),
      201,
    ).id;
    const variants = ok(
      await adminCall(t.app, 'POST', `${HUB}/flows`, owner, {
        name: 'Variants',
        connectionId: dropId,
        mappingId,
        direction: 'import',
        format: 'csv',
        fileTemplate: 'variants-*.csv',
      }),
      201,
    ).id;
    await upload('variants-1.csv', 'sku,product,price\nNEW-1,no-such-product,19.99\n');
    const queued = ok(await adminCall(t.app, 'POST', `${HUB}/flows/${variants}/runs`, owner, {}), 202);
    await t.app.get(RunsService).execute(queued.id);
    const [item] = ok(await call('GET', `${HUB}/runs/${queued.id}/rejected`)).items;
    expect(item.values).toMatchObject({ sku: 'NEW-1', product: 'no-such-product', price: 1999 });
    const [header, ...rows] = parse(await download(queued.id, 'csv', 'en'), { bom: true }) as string[][];
    expect(header).toEqual(['sku', 'product', 'price', 'line', 'reasons']);
    expect(rows).toEqual([['NEW-1', 'no-such-product', '', '2', expect.stringMatching(/^product: /)]]);
  });

  it('a long list is read a page at a time: every row once, in order', async () => {
    const lines = Array.from({ length: 2500 }, (_, index) => `LONG-${index},x${index}`);
    await upload('stock-long.csv', ['SKU,الكمية', ...lines].join('\n') + '\n');
    const run = await runNow('stock-long.csv');
    expect(run.counts).toMatchObject({ read: 2500, rejected: 2500 });
    const [, ...rows] = parse(await download(run.id, 'csv', 'en'), { bom: true }) as string[][];
    expect(rows.map((row) => row.slice(0, 3))).toEqual(lines.map((line, index) => [...line.split(','), String(index + 2)]));
  });

  it('another store’s run is not found; a run whose lists were purged is gone (410 run_lists_purged)', async () => {
    for (const format of ['csv', 'xlsx']) {
      expectProblem(await call('GET', `${HUB}/runs/${runId}/rejected.${format}`, otherOwner), 404, 'not_found');
      expectProblem(await call('GET', `${HUB}/runs/not-a-run/rejected.${format}`), 404, 'not_found');
    }
    await upload('stock-3.csv', 'SKU,الكمية\nNOPE-2,1\n');
    const purged = await runNow('stock-3.csv');
    await t.db.query(`delete from data_hub_run_rows where run_id = $1`, [purged.id]);
    await t.db.query(`update data_hub_runs set lists_purged_at = now() where id = $1`, [purged.id]);
    for (const format of ['csv', 'xlsx']) {
      const problem = expectProblem(await call('GET', `${HUB}/runs/${purged.id}/rejected.${format}`), 410, 'run_lists_purged');
      expect(problem.message_en).toBe('This run’s row lists were removed after 90 days.');
    }
  });
});
