import { beforeAll, describe, expect, it } from 'vitest';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { activeDrop, HUB, stockMapping } from './hub-fixtures.js';

describe('data hub runs: stock imports with previews, row lists and the shrink guard (contract section 9)', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let drop: string;
  let mapping: string;
  let skus: string[];
  const call = (method: string, url: string, body?: unknown, token = owner) => adminCall(t.app, method, url, token, body);
  let upload: (name: string, content: string) => Promise<unknown>;
  const stockOf = async () =>
    Object.fromEntries(
      (await t.db.rows<{ sku: string; stock: number }>(`select sku, stock from product_variants where store_id = $1`, [store.storeId])).map(
        (row) => [row.sku, row.stock],
      ),
    );
  const flow = async (extra: Record<string, unknown> = {}) =>
    ok(
      await call('POST', `${HUB}/flows`, {
        name: 'Stock',
        connectionId: drop,
        mappingId: mapping,
        direction: 'import',
        format: 'csv',
        fileTemplate: 'stock-*.csv',
        ...extra,
      }),
      201,
    ).id as string;
  /** Queues a run and works its job here (the test app works no queue). */
  const runNow = async (flowId: string, body: Record<string, unknown> = {}) => {
    const queued = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, body), 202);
    expect(queued.status).toBe('queued');
    await t.app.get(RunsService).execute(queued.id);
    return ok(await call('GET', `${HUB}/runs/${queued.id}`));
  };

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 20 });
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    ({ id: drop, upload } = await activeDrop(t.app, owner, 'stock'));
    mapping = await stockMapping(t.app, owner, 'SKU', 'الكمية');
    skus = Object.keys(await stockOf()).sort();
    await t.db.query(`update product_variants set stock = 5 where store_id = $1`, [store.storeId]);
  }, 120_000);

  it('previews: exact counts, reasons for each rejected row, nothing written; the run then writes exactly that', async () => {
    const [a, b, c] = skus;
    await upload(
      'stock-1.csv',
      ['SKU,الكمية', `${a},7`, `${b},5`, `${c},abc`, 'NOPE-1,3', `${a},9`, ` ${skus[3]} ,١٢`, ',4'].join('\n') + '\n',
    );
    const flowId = await flow();
    const before = await stockOf();
    const preview = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true }));
    expect(preview).toMatchObject({
      preview: true,
      status: 'succeeded',
      trigger: 'manual',
      mappingVersion: 1,
      counts: { read: 7, created: 0, changed: 2, unchanged: 1, rejected: 4, deactivated: 0, sent: 0 },
      file: { name: 'stock-1.csv', bytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(preview.rows.rejected.map((row: { line: number; errors: { code: string }[] }) => [row.line, row.errors[0].code])).toEqual([
      [4, 'not_a_number'],
      [8, 'required'],
      [6, 'duplicate_key'],
      [5, 'unknown_key'],
    ]);
    expect(preview.rows.rejected[0]).toMatchObject({
      values: { SKU: c, الكمية: 'abc' },
      errors: [{ field: 'stock', message_ar: expect.stringMatching(ARABIC) }],
    });
    expect(await stockOf()).toEqual(before);

    const run = await runNow(flowId);
    expect(run).toMatchObject({ preview: false, status: 'succeeded', counts: preview.counts, file: preview.file });
    const after = await stockOf();
    expect([after[a], after[b], after[skus[3]], after[c]]).toEqual([7, 5, 12, 5]);
    const rejected = ok(await call('GET', `${HUB}/runs/${run.id}/rejected?limit=3`));
    expect(rejected.items).toHaveLength(3);
    expect(ok(await call('GET', `${HUB}/runs/${run.id}/rejected?cursor=${rejected.nextCursor}`)).items).toHaveLength(1);
    expect(ok(await call('GET', `${HUB}/flows/${flowId}`)).lastRun).toEqual({
      id: run.id,
      trigger: 'manual',
      status: 'succeeded',
      counts: run.counts,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
    });
    const history = ok(await call('GET', `${HUB}/flows/${flowId}/runs`)).items;
    expect(history.map((item: { id: string; preview: boolean }) => [item.id, item.preview])).toEqual([
      [run.id, false],
      [preview.id, true],
    ]);
  });

  it('previews a file’s first rows only when asked, without judging what replace would deactivate', async () => {
    await upload('stock-first.csv', ['SKU,الكمية', ...skus.map((sku, index) => `${sku},${index}`)].join('\n'));
    const flowId = await flow({ mode: 'replace', fileTemplate: 'stock-first.csv' });
    const first = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true, firstRows: 3 }));
    expect(first).toMatchObject({
      preview: true,
      firstRows: 3,
      status: 'succeeded',
      counts: { read: 3, deactivated: 0 },
      file: { name: 'stock-first.csv', sha256: null },
      refusal: null,
    });
    const whole = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true, firstRows: skus.length }));
    expect(whole).toMatchObject({ counts: { read: skus.length }, file: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    const refused = await call('POST', `${HUB}/flows/${flowId}/runs`, { firstRows: 3 });
    expect(expectProblem(refused, 400, 'validation_failed').errors).toEqual([
      expect.objectContaining({ field: 'firstRows', code: 'onlyWith', message_en: 'Only together with preview: true.' }),
    ]);
  });

  it('refuses a replace run that would deactivate too much, changes nothing, and runs once with a recorded override', async () => {
    await t.db.query(`update product_variants set stock = 5 where store_id = $1`, [store.storeId]);
    await upload('stock-2.csv', ['SKU,الكمية', ...skus.slice(0, 3).map((sku) => `${sku},8`)].join('\n'));
    const flowId = await flow({ mode: 'replace', fileTemplate: 'stock-2.csv' });
    const before = await stockOf();
    const refused = await runNow(flowId);
    const wouldDeactivate = skus.length - 3;
    expect(refused).toMatchObject({
      status: 'refused',
      counts: { read: 3, changed: 3, deactivated: wouldDeactivate },
      refusal: {
        code: 'shrink_guard',
        wouldDeactivate,
        activeRecords: skus.length,
        threshold: { maxDeactivatePercent: 10, maxDeactivateCount: 500 },
        message_ar: expect.stringMatching(ARABIC),
      },
    });
    expect(await stockOf()).toEqual(before);

    const preview = ok(
      await call('POST', `${HUB}/flows/${flowId}/runs`, {
        preview: true,
        overrideShrinkGuard: { maxDeactivatePercent: 100, reason: 'season ended' },
      }),
    );
    expect(preview.rows.deactivated).toHaveLength(Math.min(20, wouldDeactivate));
    expect(await stockOf()).toEqual(before);

    const allowed = await runNow(flowId, { overrideShrinkGuard: { maxDeactivatePercent: 100, reason: 'season ended' } });
    expect(allowed).toMatchObject({
      status: 'succeeded',
      override: { maxDeactivatePercent: 100, reason: 'season ended', by: expect.any(String) },
    });
    const after = await stockOf();
    expect(Object.values(after).filter((stock) => stock === 0)).toHaveLength(wouldDeactivate);
    const deactivated = ok(await call('GET', `${HUB}/runs/${allowed.id}/deactivated?limit=100`)).items;
    expect(deactivated.map((row: { key: string }) => row.key).sort()).toEqual(skus.slice(3));
  });

  it('records runs that read nothing or cannot read their file as failed, changing nothing', async () => {
    await upload('stock-empty.csv', 'SKU,الكمية\n');
    expect(await runNow(await flow({ fileTemplate: 'stock-empty.csv' }))).toMatchObject({ status: 'failed', error: { code: 'no_rows' } });
    await upload('stock-wrong.csv', 'Item,Qty\nA,1\n');
    const wrong = await runNow(await flow({ fileTemplate: 'stock-wrong.csv' }));
    expect(wrong).toMatchObject({ status: 'failed', error: { code: 'missing_columns' } });
    expect(wrong.error.message_en).toContain('SKU');
    expect(await runNow(await flow({ fileTemplate: 'nothing-*.csv' }))).toMatchObject({
      status: 'failed',
      error: { code: 'no_matching_file' },
    });
  });

  it('runs one at a time and needs an active connection', async () => {
    await upload('stock-3.csv', `SKU,الكمية\n${skus[0]},1\n`);
    const flowId = await flow({ fileTemplate: 'stock-3.csv' });
    const answers = await Promise.all([1, 2, 3].map(() => call('POST', `${HUB}/flows/${flowId}/runs`, {})));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([202, 409, 409]);
    expectProblem(
      answers.find((answer) => answer.statusCode === 409)!,
      409,
      'run_in_progress',
    );
    await t.app.get(RunsService).execute(
      ok(
        answers.find((answer) => answer.statusCode === 202)!,
        202,
      ).id,
    );
    ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}), 202);

    const untested = ok(
      await call('POST', `${HUB}/connections`, { name: 'New', kind: 'platform_drop', config: { prefix: 'stock' } }),
      201,
    ).id;
    expectProblem(
      await call('POST', `${HUB}/flows/${await flow({ connectionId: untested })}/runs`, { preview: true }),
      409,
      'connection_not_active',
    );
  });

  it('checks permissions, refuses support writes, and hides other stores’ runs', async () => {
    await upload('stock-4.csv', `SKU,الكمية\n${skus[0]},2\n`);
    const flowId = await flow({ fileTemplate: 'stock-4.csv' });
    const preview = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true }));
    const reader = await staffToken(t.app, await addStaff(t.app, store.storeId, 'custom', { permissions: ['data.flows.read'] }));
    ok(await call('GET', `${HUB}/runs/${preview.id}`, undefined, reader));
    ok(await call('GET', `${HUB}/runs/${preview.id}/rejected`, undefined, reader));
    expectProblem(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true }, reader), 403, 'missing_permission');
    const support = await supportSession(t.app, store.storeId);
    expectProblem(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true }, support.token), 403, 'support_read_only');
    const other = await t.store();
    const otherOwner = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    for (const path of [`runs/${preview.id}`, `runs/${preview.id}/rejected`, `flows/${flowId}/runs`]) {
      expectProblem(await call('GET', `${HUB}/${path}`, undefined, otherOwner), 404, 'not_found');
    }
    expectProblem(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true }, otherOwner), 404, 'not_found');
  });
});
