import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltService } from '../support/built-service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ok } from '../support/responses.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { eventually } from '../support/waiting.js';
import { activeDrop, HUB, stockMapping } from './hub-fixtures.js';

const BAD_ROWS = 100_000;

/**
 * Contract sections 9 and 10: a run is all or nothing, and a job interrupted by a crash is retried
 * without duplicating its effect. A real service process (the build `npm start` runs) takes a stock
 * import and is killed (SIGKILL) while it reads the file; the catalogue is as it was, and another
 * instance takes the run up once the worker's heartbeat stops and completes it, once.
 */
describe('a data hub run whose worker is killed mid-file', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'run-recovery-'));
  const t = useTestApp({ DATA_DIR: dataDir }, { schedulers: false, ownDatabase: true });
  let child: ChildProcess | undefined;
  let rescuer: TestApp | undefined;
  let store: TestStore;
  let owner: string;
  let skus: string[];

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 10 });
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    skus = (await t.db.rows<{ sku: string }>(`select sku from product_variants where store_id = $1 order by sku`, [store.storeId])).map(
      (row) => row.sku,
    );
    await t.db.query(`update product_variants set stock = 5 where store_id = $1`, [store.storeId]);
  }, 120_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await rescuer?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves the catalogue as it was, then is taken up and completed once by another instance', async () => {
    const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
    const drop = await activeDrop(t.app, owner, '');
    const mapping = await stockMapping(t.app, owner);
    // The store's SKUs first (their stock changes), then many rows rejected as they are read.
    const lines = ['sku,qty', ...skus.map((sku) => `${sku},9`)];
    for (let index = 0; index < BAD_ROWS; index++) lines.push(`X-${index},not a number`);
    await drop.upload('stock.csv', lines.join('\n') + '\n');
    const flow = ok(
      await call('POST', `${HUB}/flows`, {
        name: 'Stock',
        connectionId: drop.id,
        mappingId: mapping,
        direction: 'import',
        format: 'csv',
        fileTemplate: 'stock.csv',
      }),
      201,
    ).id;

    child = (await startBuiltService(t.databaseUrl, dataDir)).child;

    const queued = ok(await call('POST', `${HUB}/flows/${flow}/runs`, {}), 202);
    const rejectedSoFar = () =>
      t.db
        .rows<{ count: string }>(`select count(*) from data_hub_run_rows where run_id = $1 and list = 'rejected'`, [queued.id])
        .then((rows) => Number(rows[0].count));
    const midway = await eventually(rejectedSoFar, (count) => count > 0 && count < BAD_ROWS, 60_000);
    expect(midway).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));

    // Nothing half-applied: the catalogue is as it was, and the run is still running as far as its record goes.
    const stocks = () =>
      t.db
        .rows<{ stock: number }>(`select stock from product_variants where store_id = $1`, [store.storeId])
        .then((rows) => rows.map((row) => row.stock));
    expect(new Set(await stocks())).toEqual(new Set([5]));
    expect(ok(await call('GET', `${HUB}/runs/${queued.id}`)).status).toBe('running');

    rescuer = await startTestApp({ DATABASE_URL: t.databaseUrl, DATA_DIR: dataDir, JOB_RETRY_DELAY_SECONDS: '1' }, undefined, true);
    const done = await eventually(
      async () => ok(await call('GET', `${HUB}/runs/${queued.id}`)),
      (run) => run.status !== 'running' && run.status !== 'queued',
      120_000,
    );
    expect(done).toMatchObject({
      status: 'succeeded',
      counts: { read: skus.length + BAD_ROWS, changed: skus.length, unchanged: 0, created: 0, rejected: BAD_ROWS, deactivated: 0 },
    });
    expect(new Set(await stocks())).toEqual(new Set([9]));
    // The interrupted attempt's rows do not count twice.
    expect(await rejectedSoFar()).toBe(BAD_ROWS);
  }, 300_000);
});
