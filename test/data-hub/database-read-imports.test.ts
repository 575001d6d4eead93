import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowDispatcher } from '../../src/data-hub/runs/flow-dispatcher.js';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { TestDatabase } from '../support/database.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { activeDrop, HUB, stockExportMapping, stockMapping } from './hub-fixtures.js';

interface ListedRow {
  line: number;
  key: string | null;
  values: Record<string, unknown> | null;
  errors: { field: string | null; code: string; message_en: string; message_ar: string }[];
}

/**
 * Imports from a `database_read` connection (issue 24, item 7): the query's rows are the run's input,
 * read through a cursor on the real PostgreSQL from a source database the test makes, counted and
 * listed as the same rows in a CSV file are, all or nothing.
 */
describe('data hub imports from a database_read query', () => {
  const t = useTestApp({ DATAHUB_ALLOWED_HOSTS: '127.0.0.1' });
  const sourceName = `datahub_source_${randomBytes(4).toString('hex')}`;
  let source: TestDatabase;
  let store: TestStore;
  let owner: string;
  let mapping: string;
  let skus: string[];
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
  const stockOf = async () =>
    Object.fromEntries(
      (await t.db.rows<{ sku: string; stock: number }>(`select sku, stock from product_variants where store_id = $1`, [store.storeId])).map(
        (row) => [row.sku, row.stock],
      ),
    );
  /** A tested, active database_read connection to the source database, reading `query`. */
  const queryConnection = async (query: string) => {
    const server = new URL(t.databaseUrl);
    const config = {
      host: '127.0.0.1',
      port: Number(server.port || 5432),
      database: sourceName,
      username: decodeURIComponent(server.username) || 'postgres',
      query,
    };
    const created = ok(
      await call('POST', `${HUB}/connections`, {
        name: 'Warehouse',
        kind: 'database_read',
        config,
        credentials: { password: decodeURIComponent(server.password) || 'unused' },
      }),
      201,
    );
    expect(ok(await call('POST', `${HUB}/connections/${created.id}/test`)).lastTest).toMatchObject({ ok: true });
    ok(await call('POST', `${HUB}/connections/${created.id}/activate`));
    return created.id as string;
  };
  const importFlow = async (connectionId: string, extra: Record<string, unknown> = {}) =>
    ok(
      await call('POST', `${HUB}/flows`, {
        name: 'Warehouse stock',
        connectionId,
        mappingId: mapping,
        direction: 'import',
        format: 'csv',
        fileTemplate: 'query.csv',
        ...extra,
      }),
      201,
    ).id as string;
  const runNow = async (flowId: string) => {
    const queued = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}), 202);
    await t.app.get(RunsService).execute(queued.id);
    return ok(await call('GET', `${HUB}/runs/${queued.id}`));
  };
  /** A run's whole list, page after page. */
  const allRows = async (runId: string, list: string): Promise<ListedRow[]> => {
    const items: ListedRow[] = [];
    for (let cursor: string | null = ''; cursor !== null;) {
      const page = ok(await call('GET', `${HUB}/runs/${runId}/${list}?limit=100${cursor ? `&cursor=${cursor}` : ''}`));
      items.push(...page.items);
      cursor = page.nextCursor;
    }
    return items;
  };

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 20 });
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    mapping = await stockMapping(t.app, owner, 'SKU', 'الكمية');
    skus = Object.keys(await stockOf()).sort();
    await t.db.query(`update product_variants set stock = 5 where store_id = $1`, [store.storeId]);

    await t.db.query(`create database ${sourceName}`);
    const url = new URL(t.databaseUrl);
    url.pathname = `/${sourceName}`;
    source = new TestDatabase(url.toString());
    // A warehouse's table: every variant's count, then rows the run must reject, and enough rows that the
    // cursor is fetched more than once (its first fetch takes 100).
    await source.query(`create table stock_levels (n int primary key, sku text, quantity integer, updated_on date)`);
    const rows: [string | null, number][] = [
      ...skus.map((sku, index): [string, number] => [sku, 10 + index]),
      [skus[0], 99], // the same SKU again: rejected as a duplicate, naming the first
      [skus[1], -3], // out of range
      [null, 4], // no SKU
      ...Array.from({ length: 120 }, (_, index): [string, number] => [`NOPE-${index}`, 1]), // unknown SKUs
    ];
    await source.query(
      `insert into stock_levels select n, sku, quantity, date '2026-11-01' + n::int from unnest($1::text[], $2::int[]) with ordinality as r(sku, quantity, n)`,
      [rows.map(([sku]) => sku), rows.map(([, quantity]) => quantity)],
    );
  }, 120_000);

  afterAll(async () => {
    await source?.end();
    await t.db.query(`drop database if exists ${sourceName}`);
  });

  it('offers the query’s columns to the mapping editor', async () => {
    const connectionId = await queryConnection(`select sku as "SKU", quantity as "الكمية", updated_on from stock_levels`);
    expect(ok(await call('GET', `${HUB}/connections/${connectionId}/fields`))).toEqual({
      source: { kind: 'query' },
      fields: [
        { name: 'SKU', type: 'text' },
        { name: 'الكمية', type: 'int4' },
        { name: 'updated_on', type: 'date' },
      ],
    });
  });

  it('previews and imports the query’s rows with the counts and lists the same rows give as a CSV file', async () => {
    const query = `select sku as "SKU", quantity as "الكمية" from stock_levels order by n`;
    const queryFlow = await importFlow(await queryConnection(query));
    const drop = await activeDrop(t.app, owner, 'same-rows');
    const csvRows = await source.rows<{ sku: string | null; quantity: number }>(`select sku, quantity from stock_levels order by n`);
    await drop.upload('stock.csv', ['SKU,الكمية', ...csvRows.map((row) => `${row.sku ?? ''},${row.quantity}`)].join('\n') + '\n');
    const fileFlow = await importFlow(drop.id, { fileTemplate: 'stock.csv' });

    const before = await stockOf();
    const fromQuery = ok(await call('POST', `${HUB}/flows/${queryFlow}/runs`, { preview: true }));
    const fromFile = ok(await call('POST', `${HUB}/flows/${fileFlow}/runs`, { preview: true }));
    const read = skus.length + 3 + 120;
    expect(fromQuery).toMatchObject({
      status: 'succeeded',
      preview: true,
      file: null,
      error: null,
      counts: { read, changed: skus.length, unchanged: 0, created: 0, rejected: 123, deactivated: 0 },
    });
    expect(fromQuery.counts).toEqual(fromFile.counts);
    expect(await stockOf()).toEqual(before);

    // The same rows rejected for the same reasons, in the same order; a query row's line is its ordinal,
    // a file's counts the header (and so do their messages); the query gives numbers and null where the
    // file gives text and empty cells.
    const [queryRun, fileRun] = [fromQuery.id as string, fromFile.id as string];
    const asText = (value: unknown) => (value === null || value === '' ? null : String(value));
    const comparable = (rows: ListedRow[], lineOffset: number) =>
      rows.map((row) => ({
        line: row.line - lineOffset,
        key: row.key,
        values: row.values && Object.fromEntries(Object.entries(row.values).map(([name, value]) => [name, asText(value)])),
        errors: row.errors.map(({ field, code }) => ({ field, code })),
      }));
    const queryRejected = await allRows(queryRun, 'rejected');
    expect(queryRejected).toHaveLength(123);
    expect(comparable(queryRejected, 0)).toEqual(comparable(await allRows(fileRun, 'rejected'), 1));
    const byCode = (code: string) => queryRejected.filter((row) => row.errors[0].code === code);
    expect(byCode('out_of_range')).toEqual([
      expect.objectContaining({
        line: skus.length + 2,
        values: { SKU: skus[1], الكمية: -3 },
        errors: [expect.objectContaining({ field: 'stock', message_ar: expect.stringMatching(ARABIC) })],
      }),
    ]);
    expect(byCode('required').map((row) => [row.line, row.values])).toEqual([[skus.length + 3, { SKU: null, الكمية: 4 }]]);
    expect(byCode('duplicate_key')).toEqual([
      expect.objectContaining({
        line: skus.length + 1,
        key: skus[0],
        errors: [expect.objectContaining({ message_en: `${skus[0]} is also in row 1 of the query’s answer, which counts.` })],
      }),
    ]);
    expect(byCode('unknown_key')).toHaveLength(120);

    const run = await runNow(queryFlow);
    expect(run).toMatchObject({ status: 'succeeded', preview: false, file: null, counts: fromQuery.counts });
    const after = await stockOf();
    expect(skus.map((sku) => after[sku])).toEqual(skus.map((_sku, index) => 10 + index));
    expect(comparable(await allRows(run.id, 'rejected'), 0)).toEqual(comparable(queryRejected, 0));
  });

  it('previews the first rows only when asked', async () => {
    await t.db.query(`update product_variants set stock = 5 where store_id = $1`, [store.storeId]);
    const flowId = await importFlow(await queryConnection(`select sku as "SKU", quantity as "الكمية" from stock_levels order by n`));
    const first = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true, firstRows: 3 }));
    expect(first).toMatchObject({ status: 'succeeded', firstRows: 3, file: null, counts: { read: 3, changed: 3, rejected: 0 } });
  });

  it('fails the run with PostgreSQL’s reason when the query fails midway, and imports nothing', async () => {
    await t.db.query(`update product_variants set stock = 5 where store_id = $1`, [store.storeId]);
    // Row 130 divides by zero: the first fetch (100 rows) is staged before the query fails.
    const flowId = await importFlow(
      await queryConnection(`select sku as "SKU", quantity / (case when n = 130 then 0 else 1 end) as "الكمية" from stock_levels`),
    );
    const before = await stockOf();
    const run = await runNow(flowId);
    expect(run).toMatchObject({ status: 'failed', file: null, error: { code: 'query_failed' } });
    expect(run.error.message_en).toContain('PostgreSQL said: division by zero');
    expect(run.error.message_ar).toMatch(ARABIC);
    expect(run.counts.read).toBeGreaterThanOrEqual(100);
    expect(await stockOf()).toEqual(before);
    // Recorded at once, not tried again as an outage.
    const [{ attempts }] = await t.db.rows<{ attempts: number }>(`select attempts from data_hub_runs where id = $1`, [run.id]);
    expect(attempts).toBe(1);
  });

  it('fails a run whose mapping names a column the query does not answer, naming its columns', async () => {
    const flowId = await importFlow(await queryConnection(`select sku as "SKU", quantity from stock_levels`));
    const run = await runNow(flowId);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'missing_columns' } });
    expect(run.error.message_en).toBe('The query answers no column الكمية (its columns: SKU, quantity). Nothing was imported.');
  });

  it('runs on schedule every time: a query has no file to find new or missing', async () => {
    const flowId = await importFlow(await queryConnection(`select sku as "SKU", quantity as "الكمية" from stock_levels`), {
      schedule: { cron: '0 2 * * *', timezone: 'Asia/Riyadh' },
    });
    for (const due of ['2 minutes', '1 minute']) {
      await t.db.query(`update data_hub_flows set next_run_at = now() - $2::interval where id = $1`, [flowId, due]);
      await t.app.get(FlowDispatcher).dispatchDue();
      const [queued] = await t.db.rows<{ id: string }>(
        `select id from data_hub_runs where flow_id = $1 and status = 'queued' and trigger = 'schedule'`,
        [flowId],
      );
      await t.app.get(RunsService).execute(queued.id);
    }
    const runs = await t.db.rows<{ status: string; file: unknown }>(`select status, file from data_hub_runs where flow_id = $1`, [flowId]);
    expect(runs).toEqual([
      { status: 'succeeded', file: null },
      { status: 'succeeded', file: null },
    ]);
  });

  it('refuses what cannot work when it is asked for: an export to the query, a run of a named file', async () => {
    const connectionId = await queryConnection(`select sku as "SKU", quantity as "الكمية" from stock_levels`);
    const exportMapping = await stockExportMapping(t.app, owner);
    const refused = expectProblem(
      await call('POST', `${HUB}/flows`, {
        name: 'Back to the warehouse',
        connectionId,
        mappingId: exportMapping,
        direction: 'export',
        format: 'csv',
        fileTemplate: 'stock.csv',
      }),
      400,
      'validation_failed',
    );
    expect(refused.errors).toEqual([
      expect.objectContaining({ field: 'connectionId', code: 'read_only', message_ar: expect.stringMatching(ARABIC) }),
    ]);
    // Nor can an export flow be moved to it.
    const drop = await activeDrop(t.app, owner, 'exports');
    const exportFlow = ok(
      await call('POST', `${HUB}/flows`, {
        name: 'Stock out',
        connectionId: drop.id,
        mappingId: exportMapping,
        direction: 'export',
        format: 'csv',
        fileTemplate: 'stock.csv',
      }),
      201,
    ).id;
    const moved = expectProblem(await call('PUT', `${HUB}/flows/${exportFlow}`, { connectionId }), 400, 'validation_failed');
    expect(moved.errors).toEqual([expect.objectContaining({ field: 'connectionId', code: 'read_only' })]);

    const flowId = await importFlow(connectionId);

    const named = expectProblem(await call('POST', `${HUB}/flows/${flowId}/runs`, { file: 'stock.csv' }), 400, 'validation_failed');
    expect(named.errors).toEqual([
      expect.objectContaining({ field: 'file', code: 'not_a_file_source', message_ar: expect.stringMatching(ARABIC) }),
    ]);
    expect(await t.db.rows(`select 1 from data_hub_runs where flow_id = $1`, [flowId])).toEqual([]);
  });
});
