import { MikroORM } from '@mikro-orm/postgresql';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITIES } from '../../src/entities.js';
import { ormOptions } from '../../src/infra/database/orm-options.js';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { createIsolatedDatabase } from '../support/test-app.js';
import { withClient } from '../support/waiting.js';
import { activeDrop, HUB, stockMapping } from './hub-fixtures.js';

/** Customers' first names: one beginning with each character a spreadsheet runs as a formula, and two that are left alone. */
const FIRST_NAMES = [
  '=HYPERLINK("http://evil.example","click")',
  '+SUM(1,2)',
  "-2+3+cmd|' /C calc'!A0",
  '@SUM(A1:A2)',
  '\t=1+1',
  '\r=1+1',
  '\n=1+1',
  '-12.5',
  'ليلى',
  "'quoted already",
];
/** Each name as `escape` writes it: the formulas behind an apostrophe, text that reads as a number too. */
const ESCAPED = [
  `'=HYPERLINK("http://evil.example","click")`,
  "'+SUM(1,2)",
  "'-2+3+cmd|' /C calc'!A0",
  "'@SUM(A1:A2)",
  "'\t=1+1",
  "'\r=1+1",
  "'\n=1+1",
  "'-12.5",
  'ليلى',
  "'quoted already",
];
const PHONE = '+966501234567';

/** An XLSX file's data rows as exceljs reads them: each cell's value and type. XML reads a carriage return as a line feed. */
async function xlsxCells(bytes: Buffer): Promise<{ header: unknown[]; rows: { value: unknown; type: ExcelJS.ValueType }[][] }> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer);
  const sheet = workbook.worksheets[0];
  const rows: { value: unknown; type: ExcelJS.ValueType }[][] = [];
  sheet.eachRow((row, number) => {
    if (number > 1)
      rows.push(
        Array.from({ length: sheet.columnCount }, (_, index) => row.getCell(index + 1)).map(({ value, type }) => ({ value, type })),
      );
  });
  return { header: (sheet.getRow(1).values as unknown[]).slice(1), rows };
}

/**
 * Issue 24, item 6 (contract section 11): a flow's `formulaSafety`. `escape` (the default) writes the
 * text of CSV and XLSX cells that a spreadsheet would run as a formula behind an apostrophe; `raw`
 * writes it as it is; numbers and JSON lines are never touched; each run records the setting.
 */
describe('data hub exports: formula safety of CSV and XLSX cells', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let drop: { id: string; upload: (name: string, content: string) => Promise<unknown> };
  let customersOut: string;
  let ordersOut: string;
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
  const exportFlow = async (flow: Record<string, unknown>) =>
    ok(await call('POST', `${HUB}/flows`, { name: 'Out', direction: 'export', connectionId: drop.id, ...flow }), 201);
  const runNow = async (flowId: string) => {
    const queued = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}), 202);
    await t.app.get(RunsService).execute(queued.id);
    return ok(await call('GET', `${HUB}/runs/${queued.id}`));
  };
  const dropFile = async (name: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `${HUB}/connections/${drop.id}/files/${name}`,
      headers: { authorization: `Bearer ${owner}` },
    });
    expect(response.statusCode).toBe(200);
    return response.rawPayload;
  };
  /** Runs a flow of the format and setting (none: the default) writing `name`; answers the run and the file. */
  const exported = async (mappingId: string, format: string, name: string, formulaSafety?: string) => {
    const flow = await exportFlow({ mappingId, format, fileTemplate: name, ...(formulaSafety ? { formulaSafety } : {}) });
    expect(flow.formulaSafety).toBe(formulaSafety ?? 'escape');
    const run = await runNow(flow.id);
    expect(run).toMatchObject({ status: 'succeeded', file: { name } });
    return { run, bytes: await dropFile(name) };
  };

  beforeAll(async () => {
    store = await t.store();
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    drop = await activeDrop(t.app, owner, 'formulas');
    for (const [index, first] of FIRST_NAMES.entries()) {
      await t.db.query(
        `insert into shoppers (store_id, email, email_normalized, first_name, phone, locale) values ($1, $2, $2, $3, $4, 'ar')`,
        [store.storeId, `c${index}@example.com`, first, index === 0 ? PHONE : null],
      );
    }
    // An order refunded past its total: money below zero, a number like any other.
    await t.db.query(
      `insert into orders (store_id, email, locale, currency, status, payment_method, payment_status, fulfilment_type, item_count,
         subtotal, shipping_total, tax_total, total, refunded_total, prices_include_tax, tax_rate_bps, promised_by)
       values ($1, 'buyer@example.com', 'ar', 'SAR', 'completed', 'card', 'refunded', 'delivery', -2, 0, 0, 0, -1250, 1250, false, 1500, now())`,
      [store.storeId],
    );
    const mapping = async (structure: string, fields: unknown[]) =>
      ok(await call('POST', `${HUB}/mappings`, { name: structure, structure, direction: 'export', fields }), 201).id as string;
    customersOut = await mapping('customers', [
      { target: 'email', source: 'email' },
      { target: 'first', source: 'first_name' },
      { target: 'phone', source: 'phone' },
    ]);
    ordersOut = await mapping('orders', [
      { target: 'total', source: 'total' },
      { target: 'item_count', source: 'item_count' },
      { target: '=header', source: 'refunded_total' },
    ]);
  }, 60_000);

  it('CSV: escaped by default, each formula start behind an apostrophe; raw as the store holds it', async () => {
    const escaped = await exported(customersOut, 'csv', 'customers-escaped.csv');
    expect(escaped.run.formulaSafety).toBe('escape');
    const [header, ...rows] = parse(escaped.bytes) as string[][];
    expect(header).toEqual(['email', 'first', 'phone']);
    expect(rows.map((row) => row[1])).toEqual(ESCAPED);
    expect(rows[0][2]).toBe(`'${PHONE}`); // text, whatever it reads as
    expect(escaped.bytes.toString('utf8')).toContain(
      `\r\nc0@example.com,"'=HYPERLINK(""http://evil.example"",""click"")",'+966501234567\r\n`,
    );

    const raw = await exported(customersOut, 'csv', 'customers-raw.csv', 'raw');
    expect(raw.run.formulaSafety).toBe('raw');
    const [, ...rawRows] = parse(raw.bytes) as string[][];
    expect(rawRows.map((row) => row[1])).toEqual(FIRST_NAMES);
    expect(rawRows[0][2]).toBe(PHONE);
  });

  it('XLSX: string cells, never formulas, the formula starts behind an apostrophe unless raw', async () => {
    const escaped = await xlsxCells((await exported(customersOut, 'xlsx', 'customers-escaped.xlsx')).bytes);
    expect(escaped.rows.map((row) => row[1].value)).toEqual(ESCAPED.map((text) => text.replace('\r', '\n')));
    expect(escaped.rows.flat().every((cell) => cell.type === ExcelJS.ValueType.String || cell.type === ExcelJS.ValueType.Null)).toBe(true);

    const rawBytes = (await exported(customersOut, 'xlsx', 'customers-raw.xlsx', 'raw')).bytes;
    const raw = await xlsxCells(rawBytes);
    expect(raw.rows.map((row) => row[1].value)).toEqual(FIRST_NAMES.map((text) => text.replace('\r', '\n')));
    expect(raw.rows.map((row) => row[1].type)).toEqual(FIRST_NAMES.map(() => ExcelJS.ValueType.String));

    // Why XLSX is escaped too: a string cell turns back into bare text once the sheet is saved as CSV,
    // as a spreadsheet's "Save as CSV" or a pipeline's conversion does; the next program to open it runs it.
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(rawBytes.buffer.slice(rawBytes.byteOffset, rawBytes.byteOffset + rawBytes.length) as ArrayBuffer);
    const resaved = (await workbook.csv.writeBuffer()).toString();
    expect(resaved.split('\n')[1]).toBe('c0@example.com,"=HYPERLINK(""http://evil.example"",""click"")",+966501234567');
  });

  it('numbers are never altered, a header that would be a formula is escaped, in CSV and XLSX alike', async () => {
    const csv = parse((await exported(ordersOut, 'csv', 'orders-escaped.csv')).bytes) as string[][];
    expect(csv).toEqual([
      ['total', 'item_count', "'=header"],
      ['-1250', '-2', '1250'],
    ]);
    const rawCsv = parse((await exported(ordersOut, 'csv', 'orders-raw.csv', 'raw')).bytes) as string[][];
    expect(rawCsv).toEqual([
      ['total', 'item_count', '=header'],
      ['-1250', '-2', '1250'],
    ]);
    const xlsx = await xlsxCells((await exported(ordersOut, 'xlsx', 'orders-escaped.xlsx')).bytes);
    expect(xlsx.header).toEqual(['total', 'item_count', "'=header"]);
    expect(xlsx.rows).toEqual([
      [
        { value: -1250, type: ExcelJS.ValueType.Number },
        { value: -2, type: ExcelJS.ValueType.Number },
        { value: 1250, type: ExcelJS.ValueType.Number },
      ],
    ]);
  });

  it('JSON lines are never escaped: a program reads them, not a spreadsheet', async () => {
    const { run, bytes } = await exported(customersOut, 'jsonl', 'customers.jsonl');
    expect(run.formulaSafety).toBe('escape');
    const lines = bytes
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.first)).toEqual(FIRST_NAMES);
    expect(lines[0].phone).toBe(PHONE);
  });

  it('the setting is changed by PUT and shown on the flow; each run records the one it wrote with; imports record none', async () => {
    const flow = await exportFlow({ mappingId: customersOut, format: 'csv', fileTemplate: 'switched.csv' });
    const first = await runNow(flow.id);
    expect(ok(await call('PUT', `${HUB}/flows/${flow.id}`, { formulaSafety: 'raw' })).formulaSafety).toBe('raw');
    expect(ok(await call('GET', `${HUB}/flows/${flow.id}`)).formulaSafety).toBe('raw');
    const second = await runNow(flow.id);
    expect([first.formulaSafety, second.formulaSafety]).toEqual(['escape', 'raw']);
    expect(ok(await call('GET', `${HUB}/flows/${flow.id}/runs`)).items.map((run: { formulaSafety: string }) => run.formulaSafety)).toEqual([
      'raw',
      'escape',
    ]);
    expect((parse(await dropFile('switched.csv')) as string[][])[1][1]).toBe(FIRST_NAMES[0]);
    const refused = expectProblem(await call('PUT', `${HUB}/flows/${flow.id}`, { formulaSafety: 'none' }), 400, 'validation_failed');
    expect(refused.errors).toEqual([
      expect.objectContaining({ field: 'formulaSafety', code: 'isIn', message_ar: expect.stringMatching(ARABIC) }),
    ]);

    // An import takes the setting (GET returns it) and records none: it writes no file.
    const imported = ok(
      await call('POST', `${HUB}/flows`, {
        name: 'In',
        direction: 'import',
        connectionId: drop.id,
        mappingId: await stockMapping(t.app, owner),
        format: 'csv',
        fileTemplate: 'stock.csv',
        formulaSafety: 'raw',
      }),
      201,
    );
    expect(imported.formulaSafety).toBe('raw');
    await drop.upload('stock.csv', 'sku,qty\nNOPE-1,3\n');
    const preview = ok(await call('POST', `${HUB}/flows/${imported.id}/runs`, { preview: true }));
    expect(preview).toMatchObject({ status: 'succeeded', formulaSafety: null });
  });
});

/**
 * The migration gives every existing flow `escape`, and records `raw` on the export runs made before it
 * (they wrote every value as it was), none on imports.
 */
describe('migration 0021: formula safety of existing flows and runs', () => {
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let orm: MikroORM;
  beforeAll(async () => {
    database = await createIsolatedDatabase();
    orm = await MikroORM.init({ ...ormOptions(database.url, ENTITIES, 2), logger: () => undefined });
  }, 60_000);
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  it('existing flows escape; earlier export runs were raw, import runs record none', async () => {
    await orm.migrator.up({ to: '0020-data-hub-imports' });
    const ids = { exportFlow: randomUUID(), importFlow: randomUUID(), exportRun: randomUUID(), importRun: randomUUID() };
    await withClient(database.url, async (client) => {
      // Rows of their own: the references they name are not what this checks.
      await client.query(`set session_replication_role = replica`);
      for (const [flow, direction] of [
        [ids.exportFlow, 'export'],
        [ids.importFlow, 'import'],
      ]) {
        await client.query(
          `insert into data_hub_flows (id, store_id, name, connection_id, mapping_id, direction, format, file_template, created_by)
           values ($1, $2, 'f', $2, $2, $3, 'csv', 'x.csv', $2)`,
          [flow, randomUUID(), direction],
        );
      }
      for (const [run, flow] of [
        [ids.exportRun, ids.exportFlow],
        [ids.importRun, ids.importFlow],
      ]) {
        await client.query(
          `insert into data_hub_runs (id, store_id, flow_id, trigger, status, mapping_version) values ($1, $2, $3, 'manual', 'succeeded', 1)`,
          [run, randomUUID(), flow],
        );
      }
    });
    await orm.migrator.up();
    const flows = await withClient(database.url, (client) =>
      client.query(`select direction, formula_safety from data_hub_flows order by direction`),
    );
    expect(flows.rows).toEqual([
      { direction: 'export', formula_safety: 'escape' },
      { direction: 'import', formula_safety: 'escape' },
    ]);
    const runs = await withClient(database.url, (client) =>
      client.query(`select id, formula_safety from data_hub_runs where id = any($1::uuid[])`, [[ids.exportRun, ids.importRun]]),
    );
    expect(Object.fromEntries(runs.rows.map((row) => [row.id, row.formula_safety]))).toEqual({
      [ids.exportRun]: 'raw',
      [ids.importRun]: null,
    });
  }, 60_000);
});
