import { EntityManager } from '@mikro-orm/postgresql';
import { Logger } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { PermanentFailure, StaleAttempt, TrackedJob, type JobAttempt } from '../../src/infra/jobs/tracked-job.js';
import { ExportRecords } from '../../src/insights/exports/export-records.js';
import { addStaff } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';

/**
 * Issue 26, item 3: exports, deliveries and data hub runs share one lifecycle. Here it is driven through
 * an export's record on the real PostgreSQL: a failure is tried again with its reason shown meanwhile, the
 * last attempt's failure gives the job up, a permanent one fails it at once, and an attempt a later one
 * replaced writes nothing at all.
 */
describe('the one job lifecycle', () => {
  const t = useTestApp({}, { schedulers: false });
  let store: TestStore;
  let staffId: string;
  let db: Kysely<unknown>;

  const newExport = () =>
    ExportRecords.create(db, {
      storeId: store.storeId,
      requestedBy: staffId,
      definition: { report: 'overview', params: { last: 7 } },
      savedReportId: null,
      areas: ['sales'],
      format: 'csv',
      language: 'en',
    });
  const stateOf = async (id: string) =>
    (
      await t.db.rows<{ status: string; attempts: number; error: { code: string } | null }>(
        `select status, attempts, error from insights_exports where id = $1`,
        [id],
      )
    )[0];
  const jobOf = (perform: (attempt: JobAttempt) => Promise<void>) =>
    new TrackedJob(
      {
        name: 'test.tracked',
        maxAttempts: 3,
        expireInSeconds: 60,
        record: {
          claim: (id) => ExportRecords.claim(db, id),
          fail: (attempt, failure) => ExportRecords.fail(db, attempt, failure),
          retryLater: (attempt, failure) => ExportRecords.retryLater(db, attempt, failure),
        },
        perform,
        failureOf: (error) =>
          error instanceof PermanentFailure
            ? { permanent: true, error: error.failure }
            : { permanent: false, error: { code: 'flaky', message_en: 'It flaked.', message_ar: 'تعثّر.' } },
      },
      async () => null,
      new Logger('test.tracked'),
    );

  beforeAll(async () => {
    store = await t.store();
    staffId = (await addStaff(t.app, store.storeId, 'owner')).id;
    db = t.app.get(EntityManager).getKysely() as Kysely<unknown>;
  });

  it('a failure is tried again with its reason shown; the last attempt’s gives the job up; a late retry does nothing', async () => {
    const id = await newExport();
    const job = jobOf(async () => {
      throw new Error('the database hiccuped');
    });
    for (const attempt of [1, 2]) {
      await expect(job.run(id)).rejects.toThrow('the database hiccuped');
      expect(await stateOf(id)).toEqual({ status: 'queued', attempts: attempt, error: expect.objectContaining({ code: 'flaky' }) });
    }
    await job.run(id);
    const failed = await stateOf(id);
    expect(failed).toEqual({ status: 'failed', attempts: 3, error: expect.objectContaining({ code: 'failed_after_retries' }) });
    await job.run(id);
    expect(await stateOf(id)).toEqual(failed);
  });

  it('an attempt claimed past the last (its worker died) gives the job up with the last failure', async () => {
    const id = await newExport();
    const job = jobOf(async () => {
      throw new Error('not reached');
    });
    for (let i = 0; i < 3; i++) await ExportRecords.claim(db, id);
    await job.run(id);
    expect(await stateOf(id)).toMatchObject({ status: 'failed', attempts: 4, error: { code: 'failed_after_retries' } });
  });

  it('a permanent failure fails the job at once, with its own reason', async () => {
    const id = await newExport();
    const job = jobOf(async () => {
      throw new PermanentFailure({ code: 'attachment_too_large', message_en: 'Too large.', message_ar: 'كبير جدًا.' });
    });
    await job.run(id);
    expect(await stateOf(id)).toEqual({ status: 'failed', attempts: 1, error: expect.objectContaining({ code: 'attachment_too_large' }) });
  });

  it('an attempt a later one replaced writes nothing: not its progress, its outcome or its failure', async () => {
    const id = await newExport();
    const first = (await ExportRecords.claim(db, id))!.attempt;
    const second = (await ExportRecords.claim(db, id))!.attempt;
    const file = (rows: number) => ({ rows, name: `f${rows}.csv`, key: `k${rows}`, bytes: rows });
    const job = jobOf((attempt) => ExportRecords.succeed(db, attempt, file(attempt.number)));

    await job.attempt(first, { retry: true });
    expect(await stateOf(id)).toMatchObject({ status: 'running', attempts: 2 });
    await job.attempt(second, { retry: true });
    const done = await t.db.rows(`select status, rows, file_name from insights_exports where id = $1`, [id]);
    expect(done).toEqual([{ status: 'succeeded', rows: '2', file_name: 'f2.csv' }]);

    const failure = { code: 'x', message_en: 'x', message_ar: 'x' };
    for (const write of [
      () => ExportRecords.progress(db, first, { rows: 9 }),
      () => ExportRecords.succeed(db, first, file(1)),
      () => ExportRecords.fail(db, first, failure),
      () => ExportRecords.retryLater(db, first, failure),
    ]) {
      await expect(write()).rejects.toBeInstanceOf(StaleAttempt);
    }
    expect(await t.db.rows(`select status, rows, file_name from insights_exports where id = $1`, [id])).toEqual(done);
  });
});
