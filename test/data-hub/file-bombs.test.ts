import { readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { activeDrop, HUB, stockMapping } from './hub-fixtures.js';
import { inlineRow, workbookParts, zipArchive } from './zip-files.js';

const MiB = 1024 * 1024;

/** The process's resident memory now, and its peak since `resetPeakRss()` (Linux: VmHWM, reset through clear_refs). */
const rssMiB = () => process.memoryUsage().rss / MiB;
const peakRssMiB = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
const resetPeakRss = () => writeFileSync('/proc/self/clear_refs', '5');

/**
 * Small files built to take the service's memory or thread, imported through real runs: each is refused
 * (or its bad record rejected) at once, with a code saying why, and the memory stays where it was
 * (issue 24, item 3).
 */
describe('data hub imports of small files that would unpack or nest without end', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let drop: string;
  let mapping: string;
  let skus: string[];
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
  const upload = async (name: string, content: Buffer) =>
    ok(
      await t.app.inject({
        method: 'PUT',
        url: `${HUB}/connections/${drop}/files/${name}`,
        headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/octet-stream' },
        payload: content,
      }),
    );
  const stock = async () =>
    (
      await t.db.rows<{ sku: string; stock: number }>(`select sku, stock from product_variants where store_id = $1 order by sku`, [
        store.storeId,
      ])
    )
      .map((row) => `${row.sku}:${row.stock}`)
      .join(' ');
  /** A flow reading `file`, run now (its job worked here: the test app works no queue), and the run as recorded. */
  const runOn = async (format: 'xlsx' | 'jsonl', file: string) => {
    const flowId = ok(
      await call('POST', `${HUB}/flows`, {
        name: file,
        connectionId: drop,
        mappingId: mapping,
        direction: 'import',
        format,
        fileTemplate: file,
      }),
      201,
    ).id;
    const queued = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}), 202);
    await t.app.get(RunsService).execute(queued.id);
    return ok(await call('GET', `${HUB}/runs/${queued.id}`));
  };

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 10 });
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    ({ id: drop } = await activeDrop(t.app, owner, 'bombs'));
    mapping = await stockMapping(t.app, owner);
    skus = (await t.db.rows<{ sku: string }>(`select sku from product_variants where store_id = $1 order by sku`, [store.storeId])).map(
      (row) => row.sku,
    );
  }, 120_000);

  it('refuses a 205 KB XLSX whose worksheet unpacks to one 200 MB cell at once, the memory as it was', async () => {
    const megabyte = Buffer.alloc(MiB, 'a');
    const bomb = await zipArchive(
      workbookParts([
        inlineRow(1, ['sku', 'qty']),
        Buffer.from('<row r="2"><c r="A2" t="inlineStr"><is><t>'),
        ...Array.from({ length: 200 }, () => megabyte),
        Buffer.from('</t></is></c><c r="B2"><v>1</v></c></row>'),
      ]),
    );
    expect(bomb.length).toBeLessThan(210 * 1024);
    await upload('stock-bomb.xlsx', bomb);
    const before = await stock();

    resetPeakRss();
    const baseline = rssMiB();
    const started = performance.now();
    const run = await runOn('xlsx', 'stock-bomb.xlsx');
    const seconds = (performance.now() - started) / 1000;
    const peak = peakRssMiB();
    console.log(
      `zip bomb (${bomb.length} bytes): ${run.status} ${run.error?.code} in ${seconds.toFixed(2)} s; test process RSS ${baseline.toFixed(0)} MiB before, peak ${peak.toFixed(0)} MiB during the run`,
    );
    expect(run).toMatchObject({
      status: 'failed',
      counts: { read: 0 },
      error: {
        code: 'file_too_large',
        message_en: expect.stringContaining('xl/worksheets/sheet1.xml'),
        message_ar: expect.stringMatching(ARABIC),
      },
    });
    expect(run.error.message_en).toContain('100 times its packed size');
    expect(seconds).toBeLessThan(2);
    // The test process holds the app, vitest and the file: what the run added to its memory is what counts.
    expect(peak - baseline).toBeLessThan(100);
    expect(peak).toBeLessThan(500);
    expect(await stock()).toBe(before);
  });

  it('rejects a JSON line nested 100,000 deep in well under 2 s, and imports the lines around it', async () => {
    const deep = `{"sku":"DEEP-1","qty":1,"notes":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const objects = `{"sku":"DEEP-2","qty":2,"notes":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    const lines = [`{"sku":"${skus[0]}","qty":41}`, deep, objects, `{"sku":"${skus[1]}","qty":42}`];
    await upload('stock-deep.jsonl', Buffer.from(lines.join('\n') + '\n'));

    const started = performance.now();
    const run = await runOn('jsonl', 'stock-deep.jsonl');
    const seconds = (performance.now() - started) / 1000;
    console.log(`JSON lines nested 100,000 deep: ${run.status}, ${JSON.stringify(run.counts)} in ${seconds.toFixed(2)} s`);
    expect(run).toMatchObject({ status: 'succeeded', counts: { read: 4, changed: 2, rejected: 2 } });
    expect(seconds).toBeLessThan(2);
    const rejected = ok(await call('GET', `${HUB}/runs/${run.id}/rejected`)).items;
    expect(rejected.map((row: { line: number; errors: { code: string }[] }) => [row.line, row.errors[0].code])).toEqual([
      [2, 'nesting_too_deep'],
      [3, 'nesting_too_deep'],
    ]);
    expect(rejected[0].errors[0]).toMatchObject({
      message_en: expect.stringContaining('deeper than 64 levels'),
      message_ar: expect.stringMatching(ARABIC),
    });
    expect(await stock()).toContain(`${skus[0]}:41`);
  });
});
