import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreService } from '../../src/stores/store.service.js';
import { startBuiltService } from '../support/built-service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ok } from '../support/responses.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { eventually } from '../support/waiting.js';
import { byWrittenQuery, daysAgo, download, expectedSearches, finished, seedSearches, xlsxRows } from './exports-support.js';

const ROWS = 100_000;

/**
 * Contract section 10: a job interrupted by a crash is retried without duplicating its effect. A
 * real service process (the build `npm start` runs) takes an export and is killed (SIGKILL) while it
 * writes; another instance takes the export up once its heartbeat stops, and the export completes
 * with the whole file: no half-written file under its name, no rows lost or doubled.
 */
describe('an export whose worker is killed mid-file', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'export-recovery-'));
  // This instance only sends jobs: the export is worked by the child process, then by the instance started after the kill.
  const t = useTestApp({ DATA_DIR: dataDir }, { schedulers: false, ownDatabase: true });
  let child: ChildProcess | undefined;
  let rescuer: TestApp | undefined;
  let store: TestStore;
  let owner: string;
  const day = daysAgo(20);
  const params = { from: daysAgo(21), to: daysAgo(19) };

  beforeAll(async () => {
    store = await t.store();
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    await seedSearches(t.db, store.storeId, day, ROWS);
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
  }, 120_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await rescuer?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is taken up by another instance and completes with the right file', async () => {
    child = (await startBuiltService(t.databaseUrl, dataDir)).child;

    const started = ok(
      await adminCall(t.app, 'POST', '/admin/insights/exports', owner, { source: { report: 'searches', params }, format: 'xlsx' }),
      202,
    );
    const midway = await eventually(
      async () => ok(await adminCall(t.app, 'GET', `/admin/insights/exports/${started.id}`, owner)),
      (doc) => doc.status !== 'queued' && doc.progress.rows > 0,
      60_000,
    );
    expect(midway).toMatchObject({ status: 'running', attempts: 1, progress: { totalRows: ROWS } });
    expect(midway.progress.rows).toBeLessThan(ROWS);
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));

    // Nothing under the export's name, and still running as far as the record goes, until a worker's heartbeat is missed.
    const exportsDir = join(dataDir, 'files', 'exports', store.storeId);
    expect(readdirSync(exportsDir).filter((name) => name === `${started.id}.xlsx`)).toEqual([]);
    expect(ok(await adminCall(t.app, 'GET', `/admin/insights/exports/${started.id}`, owner)).status).toBe('running');

    rescuer = await startTestApp({ DATABASE_URL: t.databaseUrl, DATA_DIR: dataDir, JOB_RETRY_DELAY_SECONDS: '1' }, undefined, true);
    const done = await finished(t.app, owner, started.id, 90_000);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2, progress: { rows: ROWS, totalRows: ROWS, percent: 100 }, error: null });
    expect(readdirSync(exportsDir)).toEqual([`${started.id}.xlsx`]);

    const { bytes } = await download(t.app, owner, started.id);
    expect(bytes.length).toBe(done.file.bytes);
    const { rows } = await xlsxRows(bytes);
    expect(rows).toHaveLength(ROWS);
    const expected = byWrittenQuery(await expectedSearches(t.db, store.storeId, day));
    expect(new Set(rows.map((row) => row[0]))).toEqual(new Set(expected.keys()));
    for (const row of rows) expect(row[1]).toBe(expected.get(row[0] as string));
  }, 240_000);
});
