import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaffMembers } from '../../src/auth/staff/staff-members.service.js';
import { REPORTS } from '../../src/insights/definitions/reports.js';
import { ExportsService } from '../../src/insights/exports/exports.service.js';
import { JobQueue } from '../../src/infra/jobs/job-queue.js';
import { StoreService } from '../../src/stores/store.service.js';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';
import {
  byWrittenQuery,
  csvRecords,
  writtenText,
  daysAgo,
  download,
  expectedSearches,
  finished,
  seedSearches,
  xlsxRows,
} from './exports-support.js';

const EXPORTS = '/admin/insights/exports';
const ROWS = 100_000;

describe('Insights exports', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'exports-test-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const t = useTestApp({ DATA_DIR: dataDir, JOB_RETRY_DELAY_SECONDS: '1' }, { schedulers: true, ownDatabase: true });
  let store: TestStore;
  let other: TestStore;
  let owner: string;
  let otherOwner: string;
  const day = daysAgo(10);
  const params = { from: daysAgo(11), to: daysAgo(9) };
  const call = (token: string, method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
    adminCall(t.app, method, url, token, body, headers);

  beforeAll(async () => {
    [store, other] = await Promise.all([t.store(), t.store()]);
    for (const { storeId } of [store, other]) await t.app.get(StoreService).setPlan(storeId, 'pro');
    await seedSearches(t.db, store.storeId, day, ROWS);
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    otherOwner = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
  }, 120_000);

  it(`writes a ${ROWS.toLocaleString('en')}-row report as CSV, with progress, that reads back equal to the report's rows, Arabic intact`, async () => {
    const started = await call(
      owner,
      'POST',
      EXPORTS,
      { source: { report: 'searches', params }, format: 'csv' },
      { 'accept-language': 'ar' },
    );
    expect(started.statusCode, started.body).toBe(202);
    const queued = started.json();
    expect(queued).toMatchObject({ status: expect.stringMatching(/^(queued|running)$/), format: 'csv', language: 'ar', file: null });
    expect(queued.progress).toEqual({ rows: expect.any(Number), totalRows: queued.progress.totalRows, percent: queued.progress.percent });
    // Not downloadable before it is written.
    expectProblem(await call(owner, 'GET', `${EXPORTS}/${queued.id}/file`), 409, 'export_not_ready');

    // Progress is recorded while it runs.
    const seen = await eventually(
      async () => ok(await call(owner, 'GET', `${EXPORTS}/${queued.id}`)),
      (doc) => doc.progress.totalRows === ROWS || doc.status === 'succeeded',
      30_000,
    );
    expect(seen.progress.totalRows).toBe(ROWS);
    const done = await finished(t.app, owner, queued.id);
    expect(done).toMatchObject({ status: 'succeeded', progress: { rows: ROWS, totalRows: ROWS, percent: 100 }, attempts: 1, error: null });
    expect(done.file).toMatchObject({
      name: `searches_${params.from}_${params.to}.csv`,
      contentType: 'text/csv; charset=utf-8',
      expired: false,
    });
    expect(Date.parse(done.file.expiresAt) - Date.parse(done.finishedAt)).toBe(7 * 86_400_000);

    const { headers, bytes } = await download(t.app, owner, queued.id);
    expect(headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(Number(headers['content-length'])).toBe(bytes.length);
    expect(bytes.length).toBe(done.file.bytes);
    expect(headers['content-disposition']).toBe(
      `attachment; filename="searches_${params.from}_${params.to}.csv"; filename*=UTF-8''searches_${params.from}_${params.to}.csv`,
    );
    const [header, ...records] = csvRecords(bytes);
    expect(header).toEqual([
      'عبارة البحث',
      'عمليات البحث',
      expect.stringMatching(ARABIC),
      expect.stringMatching(ARABIC),
      expect.stringMatching(ARABIC),
      expect.stringMatching(ARABIC),
      expect.stringMatching(ARABIC),
    ]);
    expect(records).toHaveLength(ROWS);

    // Every row as the rollup holds it, the tricky texts intact and defused, in the report's order.
    const expected = await expectedSearches(t.db, store.storeId, day);
    const byQuery = new Map(records.map((record) => [record[0], Number(record[1])]));
    expect(byQuery.size).toBe(ROWS);
    for (const [query, searches] of expected) expect(byQuery.get(writtenText(query)), query).toBe(searches);
    const counts = records.map((record) => Number(record[1]));
    expect(counts.every((count, index) => index === 0 || count <= counts[index - 1])).toBe(true);
    // The first page of the report itself is the file's first rows, figure for figure.
    const page = ok(await call(owner, 'GET', `/admin/insights/reports/searches?from=${params.from}&to=${params.to}&limit=100`));
    expect(records.slice(0, 100)).toEqual(page.rows.map((row: Record<string, any>) => csvRow(row)));
    const deep = ok(
      await call(
        owner,
        'GET',
        `/admin/insights/reports/searches?from=${params.from}&to=${params.to}&limit=100&cursor=${Buffer.from('[54300]').toString('base64url')}`,
      ),
    );
    expect(records.slice(54_300, 54_400)).toEqual(deep.rows.map((row: Record<string, any>) => csvRow(row)));
  }, 120_000);

  it(`writes the same rows as XLSX: numbers as numbers, Arabic text as it is, header in English for an English reader`, async () => {
    const started = ok(
      await call(owner, 'POST', EXPORTS, { source: { report: 'searches', params }, format: 'xlsx' }, { 'accept-language': 'en' }),
      202,
    );
    // Its progress moves while it runs (an XLSX of this size takes seconds; progress is recorded every second).
    const midway = await eventually(
      async () => ok(await call(owner, 'GET', `${EXPORTS}/${started.id}`)),
      (doc) => doc.status === 'succeeded' || (doc.progress.rows > 0 && doc.progress.rows < ROWS),
      30_000,
    );
    expect(midway).toMatchObject({ status: 'running', progress: { totalRows: ROWS } });
    expect(midway.progress.percent).toBe(Math.floor((midway.progress.rows * 100) / ROWS));
    const done = await finished(t.app, owner, started.id);
    expect(done).toMatchObject({ status: 'succeeded', language: 'en', progress: { rows: ROWS, totalRows: ROWS, percent: 100 } });
    const { headers, bytes } = await download(t.app, owner, started.id);
    expect(headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(headers['content-disposition']).toContain(`.xlsx`);
    const { headers: sheetHeaders, rows, sheets } = await xlsxRows(bytes);
    expect(sheets).toHaveLength(1);
    expect(sheetHeaders[0].slice(0, 2)).toEqual(['Search query', 'Searches']);
    expect(rows).toHaveLength(ROWS);
    const expected = await expectedSearches(t.db, store.storeId, day);
    const written = byWrittenQuery(expected);
    for (const row of rows) expect(row[1]).toBe(written.get(row[0] as string));
    expect(new Set(rows.map((row) => row[0]))).toEqual(new Set(written.keys()));
  }, 120_000);

  it('takes the builder’s over_row_limit suggestion as it is, and a saved report, by id', async () => {
    const query = { measures: ['searches', 'zero_result_searches'], dimensions: ['query'], ...params, sort: '-searches' };
    const refused = expectProblem(await call(owner, 'POST', '/admin/insights/builder/run', query), 422, 'over_row_limit');
    expect(refused.rowCount).toBe(ROWS);
    const started = ok(await call(owner, 'POST', EXPORTS, refused.suggestion.export), 202);
    const done = await finished(t.app, owner, started.id);
    expect(done).toMatchObject({ status: 'succeeded', format: 'csv', progress: { rows: ROWS }, definition: { builder: query } });
    expect(done.file.name).toBe(`custom-report_${params.from}_${params.to}.csv`);
    const [header, ...records] = csvRecords((await download(t.app, owner, started.id)).bytes);
    expect(header).toEqual(['Search query', 'Searches', 'Searches with no results']);
    expect(records).toHaveLength(ROWS);

    const saved = ok(
      await call(owner, 'POST', '/admin/insights/saved-reports', {
        name: 'مبيعات الأسبوع',
        definition: { builder: { ...query, limit: 10 } },
      }),
      201,
    );
    const bySaved = ok(await call(owner, 'POST', EXPORTS, { source: { savedReportId: saved.id }, format: 'xlsx' }), 202);
    const savedDone = await finished(t.app, owner, bySaved.id);
    expect(savedDone).toMatchObject({ status: 'succeeded', savedReportId: saved.id, progress: { rows: 10, totalRows: 10 } });
    expect(savedDone.file.name).toBe(`مبيعات-الأسبوع_${params.from}_${params.to}.xlsx`);
    const { headers } = await download(t.app, owner, bySaved.id);
    expect(headers['content-disposition']).toBe(
      `attachment; filename="______-_______${`_${params.from}_${params.to}`}.xlsx"; filename*=UTF-8''${encodeURIComponent(savedDone.file.name)}`,
    );
  }, 120_000);

  it('lists the store’s exports newest first, a page at a time', async () => {
    const first = ok(await call(owner, 'GET', `${EXPORTS}?limit=2`));
    expect(first.items).toHaveLength(2);
    const second = ok(await call(owner, 'GET', `${EXPORTS}?limit=2&cursor=${first.nextCursor}`));
    const times = [...first.items, ...second.items].map((item: { createdAt: string }) => item.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(new Set([...first.items, ...second.items].map((item: { id: string }) => item.id)).size).toBe(4);
  });

  it('deletes files 7 days on: the record stays, the download answers 410 export_expired', async () => {
    const started = ok(await call(owner, 'POST', EXPORTS, { source: { report: 'overview', params: { last: 30 } }, format: 'csv' }), 202);
    const done = await finished(t.app, owner, started.id);
    const [header, ...series] = csvRecords((await download(t.app, owner, started.id)).bytes);
    expect(header[0]).toBe('Day');
    expect(series).toHaveLength(30);
    const files = () => readdirSync(join(dataDir, 'files', 'exports', store.storeId));
    expect(files()).toContain(`${started.id}.csv`);
    await t.db.query(`update insights_exports set expires_at = now() - interval '1 second' where id = $1`, [started.id]);
    expect(await t.app.get(ExportsService).deleteExpiredFiles()).toBe(1);
    expect(files()).not.toContain(`${started.id}.csv`);
    const expired = ok(await call(owner, 'GET', `${EXPORTS}/${started.id}`));
    expect(expired.file).toMatchObject({ name: done.file.name, expired: true });
    expectProblem(await call(owner, 'GET', `${EXPORTS}/${started.id}/file`), 410, 'export_expired');
  });

  it('refuses what the source’s request would refuse, and bad bodies, before queueing anything', async () => {
    const before = ok(await call(owner, 'GET', `${EXPORTS}?limit=100`)).items.length;
    const refusals: [unknown, number, Parameters<typeof expectProblem>[2]][] = [
      [{ source: { report: 'products', builder: { measures: ['orders'] } }, format: 'csv' }, 400, 'validation_failed'],
      [{ source: { report: 'products', savedReportId: '00000000-0000-4000-8000-000000000000' }, format: 'csv' }, 400, 'validation_failed'],
      [{ source: {}, format: 'csv' }, 400, 'validation_failed'],
      [{ source: { report: 'products' }, format: 'pdf' }, 400, 'validation_failed'],
      [{ source: { report: 'products' }, format: 'csv', extra: 1 }, 400, 'validation_failed'],
      [{ source: { report: 'products', params: { last: 400 } }, format: 'csv' }, 400, 'invalid_range'],
      [{ source: { builder: { measures: ['nope'] } }, format: 'csv' }, 400, 'unknown_measure'],
      [{ source: { savedReportId: '00000000-0000-4000-8000-000000000000' }, format: 'csv' }, 404, 'not_found'],
    ];
    for (const [body, status, code] of refusals) expectProblem(await call(owner, 'POST', EXPORTS, body), status, code);
    expect(ok(await call(owner, 'GET', `${EXPORTS}?limit=100`)).items).toHaveLength(before);
  });

  it('needs the permissions running the source needs, and XLSX needs the growth plan', async () => {
    const salesOnly = await staffToken(t.app, await addStaff(t.app, store.storeId, 'custom', { permissions: ['insights.sales.view'] }));
    const body = { source: { report: 'searches', params }, format: 'csv' };
    expect(expectProblem(await call(salesOnly, 'POST', EXPORTS, body), 403, 'missing_permission').requiredPermission).toBe(
      'insights.behaviour.view',
    );
    const viewer = await staffToken(t.app, await addStaff(t.app, store.storeId, 'viewer'));
    const builder = { source: { builder: { measures: ['orders'], last: 7 } }, format: 'csv' };
    expect(expectProblem(await call(viewer, 'POST', EXPORTS, builder), 403, 'missing_permission').requiredPermission).toBe(
      'insights.builder.use',
    );
    ok(await call(viewer, 'POST', EXPORTS, { source: { report: 'overview' }, format: 'csv' }), 202);
    // The export of the sales area is not listed to someone who reads products only; searches are not listed to sales only.
    const listed = ok(await call(salesOnly, 'GET', `${EXPORTS}?limit=100`)).items;
    expect(listed.every((item: { definition: { report?: string } }) => item.definition.report === 'overview')).toBe(true);

    const basic = await t.store();
    await t.app.get(StoreService).setPlan(basic.storeId, 'basic');
    const basicOwner = await staffToken(t.app, await addStaff(t.app, basic.storeId, 'owner'));
    const refused = expectProblem(
      await call(basicOwner, 'POST', EXPORTS, { source: { report: 'products' }, format: 'xlsx' }),
      403,
      'plan_not_entitled',
    );
    expect(refused).toMatchObject({ requiredPlan: 'growth', suggestion: { code: 'upgrade_plan' } });
    const csv = ok(await call(basicOwner, 'POST', EXPORTS, { source: { report: 'products' }, format: 'csv' }), 202);
    expect((await finished(t.app, basicOwner, csv.id)).status).toBe('succeeded');
  });

  it('a support session reads exports and their files, and may not start one', async () => {
    const support = await supportSession(t.app, store.storeId);
    const listed = ok(await call(support.token, 'GET', `${EXPORTS}?limit=1`)).items[0];
    ok(await call(support.token, 'GET', `${EXPORTS}/${listed.id}`));
    expectProblem(await call(support.token, 'POST', EXPORTS, { source: { report: 'overview' }, format: 'csv' }), 403, 'support_read_only');
  });

  it('another store’s export is not found, nor its file', async () => {
    const mine = ok(await call(owner, 'GET', `${EXPORTS}?limit=1`)).items[0];
    expectProblem(await call(otherOwner, 'GET', `${EXPORTS}/${mine.id}`), 404, 'not_found');
    expectProblem(await call(otherOwner, 'GET', `${EXPORTS}/${mine.id}/file`), 404, 'not_found');
    expect(ok(await call(otherOwner, 'GET', `${EXPORTS}?limit=100`)).items).toEqual([]);
    expectProblem(await call(owner, 'GET', `${EXPORTS}/not-a-uuid`), 404, 'not_found');
  });

  it('an export whose definition no longer runs fails at once with the request’s own error; one whose member was removed, too', async () => {
    const member = await addStaff(t.app, store.storeId, 'analyst');
    const analyst = await staffToken(t.app, member);
    // Exports as the API files them, with what the run will find: a measure since gone, a member since removed.
    const queue = async (requestedBy: string, definition: unknown) => {
      const [{ id }] = await t.db.rows<{ id: string }>(
        `insert into insights_exports (store_id, requested_by, definition, areas, format, language)
         values ($1, $2, $3, '{sales}', 'csv', 'en') returning id`,
        [store.storeId, requestedBy, JSON.stringify(definition)],
      );
      await t.app.get(JobQueue).send('insights.export', { id });
      return id;
    };
    const gone = await queue(member.id, { builder: { measures: ['gone_measure'], last: 7 } });
    const failed = await finished(t.app, analyst, gone);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, file: null, error: { code: 'unknown_measure' } });
    expect(failed.error.message_ar).toMatch(ARABIC);
    expectProblem(await call(analyst, 'GET', `${EXPORTS}/${gone}/file`), 409, 'export_failed');

    await t.app.get(StaffMembers).remove(member.id);
    const orphan = await queue(member.id, { report: 'overview' });
    expect(await finished(t.app, owner, orphan)).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'missing_permission' } });
  }, 60_000);
});

/** A report row as the CSV writes it (the searches report: a query, counts and ratios). */
function csvRow(row: Record<string, any>): string[] {
  const table = REPORTS.searches.table as { measures: string[] };
  const figures = table.measures;
  return [writtenText(row.query), ...figures.map((name) => (row[name] === null ? '' : String(row[name])))];
}
