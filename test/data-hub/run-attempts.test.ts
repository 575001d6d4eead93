import { beforeAll, describe, expect, it } from 'vitest';
import { RunRecords } from '../../src/data-hub/runs/run-records.js';
import { StaleAttempt } from '../../src/infra/jobs/tracked-job.js';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ok } from '../support/responses.js';
import { activeDrop, HUB, stockMapping } from './hub-fixtures.js';

/**
 * Issue 26, item 3: a data hub run records what it found only for the attempt that is current. The job
 * queue gives a run whose worker stopped answering to another worker; should the first still be alive, its
 * end must not overwrite the second's: not the outcome, not the lists, not the changes it applied.
 */
describe('data hub runs: only the current attempt writes', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let flowId: string;
  let sku: string;
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
  const stock = async () =>
    (await t.db.rows<{ stock: number }>(`select stock from product_variants where store_id = $1 and sku = $2`, [store.storeId, sku]))[0]
      .stock;

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 4 });
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    const drop = await activeDrop(t.app, owner, 'attempts');
    [{ sku }] = await t.db.rows<{ sku: string }>(`select sku from product_variants where store_id = $1 order by sku limit 1`, [
      store.storeId,
    ]);
    await t.db.query(`update product_variants set stock = 5 where store_id = $1 and sku = $2`, [store.storeId, sku]);
    await drop.upload('stock-1.csv', `sku,qty\n${sku},41\nNOPE-1,3\n`);
    flowId = ok(
      await call('POST', `${HUB}/flows`, {
        name: 'Stock',
        connectionId: drop.id,
        mappingId: await stockMapping(t.app, owner),
        direction: 'import',
        format: 'csv',
        fileTemplate: 'stock-*.csv',
      }),
      201,
    ).id;
  }, 120_000);

  it('an attempt a later one replaced ends without writing: its applied changes roll back, the later one’s outcome stands', async () => {
    const runId = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}), 202).id as string;
    const runs = t.app.get(RunsService);
    const run = async () => ok(await call('GET', `${HUB}/runs/${runId}`));
    const rejected = async () => ok(await call('GET', `${HUB}/runs/${runId}/rejected`)).items;

    // The first attempt's worker is taken for dead and the job given to a second: both are claimed.
    const first = (await RunRecords.claim(t.db, runId))!.attempt;
    const second = (await RunRecords.claim(t.db, runId))!.attempt;
    expect([first.number, second.number]).toEqual([1, 2]);

    // The first was alive after all: it reads the file, applies it in its transaction, and finds at its
    // outcome that it is no longer current. Its transaction rolls back; it records nothing.
    await runs.runAttempt(first);
    expect(await stock()).toBe(5);
    expect(await run()).toMatchObject({ status: 'running', counts: { read: 0, changed: 0, rejected: 0 }, finishedAt: null });
    expect(await rejected()).toEqual([]);

    // The second runs to its end, and its outcome is the run's.
    await runs.runAttempt(second);
    expect(await stock()).toBe(41);
    const done = await run();
    expect(done).toMatchObject({ status: 'succeeded', counts: { read: 2, changed: 1, rejected: 1 } });
    expect(await rejected()).toEqual([expect.objectContaining({ line: 3, key: 'NOPE-1' })]);

    // Whatever the first would write now is refused, and changes nothing.
    for (const write of [
      () => RunRecords.record(t.db, first, { status: 'failed', error: { code: 'run_failed' } }),
      () => RunRecords.retryLater(t.db, first, { code: 'run_failed', message_en: 'x', message_ar: 'x' }),
      () => RunRecords.waitForFile(t.db, first),
      () => RunRecords.formulaSafety(t.db, first, 'raw'),
    ]) {
      await expect(write()).rejects.toBeInstanceOf(StaleAttempt);
    }
    await RunRecords.clearLists(t.db, first);
    expect(await run()).toEqual(done);
    expect(await rejected()).toHaveLength(1);
  });

  it('a run whose outcome is recorded is claimed no more: a late retry of its job does nothing', async () => {
    const runId = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}), 202).id as string;
    await t.app.get(RunsService).execute(runId);
    const before = ok(await call('GET', `${HUB}/runs/${runId}`));
    expect(before.status).toBe('succeeded');
    expect(await RunRecords.claim(t.db, runId)).toBeNull();
    await t.app.get(RunsService).execute(runId);
    expect(ok(await call('GET', `${HUB}/runs/${runId}`))).toEqual(before);
  });
});
