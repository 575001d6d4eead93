import { DateTime } from 'luxon';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveriesService } from '../../src/insights/schedules/deliveries.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { activeDrop, HUB } from '../data-hub/hub-fixtures.js';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { startSshd, type SshdPeer } from '../support/peers/sshd.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';
import { csvRecords, daysAgo, download, finished, seedSearches, xlsxRows } from './exports-support.js';

const SCHEDULES = '/admin/insights/schedules';
const DAILY = { frequency: 'daily', time: '06:00' };

/** A delivery's final state, once its attempts are over. */
async function settled(read: () => Promise<Record<string, any>>, ms = 30_000): Promise<Record<string, any>> {
  return eventually(read, (delivery) => ['delivered', 'failed', 'skipped'].includes(delivery?.status), ms);
}

describe('Insights schedules delivered to a data hub connection (contract section 8, pro plan)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'schedules-connection-test-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const t = useTestApp(
    { DATA_DIR: dataDir, JOB_RETRY_DELAY_SECONDS: '1', DATAHUB_ALLOWED_HOSTS: '127.0.0.1' },
    { schedulers: true, ownDatabase: true },
  );
  let sshd: SshdPeer;
  let store: TestStore;
  let owner: string;
  let searches: string;
  let overview: string;
  let drop: Awaited<ReturnType<typeof activeDrop>>;
  const call = (token: string, method: string, url: string, body?: unknown) => adminCall(t.app, method, url, token, body);
  const deliveries = async (id: string) => ok(await call(owner, 'GET', `${SCHEDULES}/${id}/deliveries`)).items;
  const dropFile = async (connectionId: string, name: string) => {
    const response = await call(owner, 'GET', `${HUB}/connections/${connectionId}/files/${name}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.rawPayload;
  };
  const toDrop = (pathTemplate: string, connectionId = drop.id) => ({ kind: 'connection', connectionId, pathTemplate });
  const schedule = (destination: unknown, format = 'csv', savedReportId = searches) => ({
    savedReportId,
    name: 'Searches to file',
    cadence: DAILY,
    format,
    destination,
  });

  beforeAll(async () => {
    sshd = await startSshd();
    store = await t.store();
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner', { email: 'owner@shop.example' }));
    // Arabic queries with commas, quotes, line breaks and formulas: the file has to carry them byte for byte.
    await seedSearches(t.db, store.storeId, daysAgo(1), 120);
    searches = ok(
      await call(owner, 'POST', '/admin/insights/saved-reports', {
        name: 'Searches',
        definition: { report: 'searches', params: { last: 7 } },
      }),
      201,
    ).id;
    overview = ok(
      await call(owner, 'POST', '/admin/insights/saved-reports', {
        name: 'Overview',
        definition: { report: 'overview', params: { last: 7 } },
      }),
      201,
    ).id;
    drop = await activeDrop(t.app, owner, 'reports');
  }, 60_000);
  afterAll(async () => {
    await sshd?.stop();
  });

  it('writes the report’s CSV, byte for byte, to a platform drop, named by the due time in the store’s time zone', async () => {
    const destination = toDrop('searches-{yyyy}{MM}{dd}-{HH}{mm}.csv');
    const created = ok(await call(owner, 'POST', SCHEDULES, schedule(destination)), 201);
    expect(created.destination).toEqual(destination);
    expect(ok(await call(owner, 'GET', `${SCHEDULES}/${created.id}`)).destination).toEqual(destination);

    // Due at 22:30 UTC on the 4th: 01:30 on the 5th in Riyadh, whose date and hour name the file.
    const dueAt = '2026-01-04T22:30:00.000Z';
    await t.db.query(`update insights_schedules set next_run_at = $2 where id = $1`, [created.id, dueAt]);
    const dispatched = await Promise.all([1, 2, 3].map(() => t.app.get(DeliveriesService).dispatchDue()));
    expect(dispatched.reduce((sum, count) => sum + count, 0)).toBe(1);
    const delivered = await settled(async () => (await deliveries(created.id))[0]);
    expect(delivered).toMatchObject({
      dueAt,
      trigger: 'schedule',
      status: 'delivered',
      attempts: 1,
      rows: 120,
      sentTo: ['Drop/searches-20260105-0130.csv'],
    });
    expect(delivered.error).toBeUndefined();
    expect(await deliveries(created.id)).toHaveLength(1);

    const written = await dropFile(drop.id, 'searches-20260105-0130.csv');
    expect(delivered.bytes).toBe(written.length);
    const exported = ok(await call(owner, 'POST', '/admin/insights/exports', { source: { savedReportId: searches }, format: 'csv' }), 202);
    expect((await finished(t.app, owner, exported.id)).status).toBe('succeeded');
    const { bytes } = await download(t.app, owner, exported.id);
    expect(written.equals(bytes)).toBe(true);
    expect(csvRecords(written)).toHaveLength(121);
    expect(ok(await call(owner, 'GET', `${SCHEDULES}/${created.id}`)).lastDelivery).toEqual(delivered);
  });

  it('writes XLSX to an SFTP server (a real OpenSSH): renamed into place, nothing partial left', async () => {
    const sftp = ok(
      await call(owner, 'POST', `${HUB}/connections`, {
        name: 'Warehouse SFTP',
        kind: 'sftp',
        config: { host: sshd.host, port: sshd.port, username: sshd.username, basePath: sshd.root },
        credentials: { password: sshd.password },
      }),
      201,
    );
    expect(ok(await call(owner, 'POST', `${HUB}/connections/${sftp.id}/test`)).status).toBe('tested');
    ok(await call(owner, 'POST', `${HUB}/connections/${sftp.id}/activate`));
    const created = ok(await call(owner, 'POST', SCHEDULES, schedule(toDrop('searches-{yyyy}{MM}{dd}.xlsx', sftp.id), 'xlsx')), 201);

    const now = ok(await call(owner, 'POST', `${SCHEDULES}/${created.id}/deliveries`), 202);
    const delivered = await settled(async () => (await deliveries(created.id))[0]);
    const name = `searches-${DateTime.fromISO(now.dueAt).setZone('Asia/Riyadh').toFormat('yyyyMMdd')}.xlsx`;
    expect(delivered).toMatchObject({ trigger: 'manual', status: 'delivered', attempts: 1, rows: 120, sentTo: [`Warehouse SFTP/${name}`] });
    expect(await readdir(sshd.root)).toEqual([name]);
    const file = await readFile(join(sshd.root, name));
    expect(delivered.bytes).toBe(file.length);
    const { headers, rows } = await xlsxRows(file);
    expect(headers[0][0]).toBe('Search query');
    expect(rows).toHaveLength(120);
  });

  it('a connection no longer active at the due time: the attempts fail with a reason in both languages, and the owner is told', async () => {
    const paused = await activeDrop(t.app, owner, 'paused');
    const created = ok(await call(owner, 'POST', SCHEDULES, schedule(toDrop('late.csv', paused.id))), 201);
    // A changed config returns the connection to untested until it is tested and activated again.
    expect(ok(await call(owner, 'PUT', `${HUB}/connections/${paused.id}`, { config: { prefix: 'elsewhere' } })).status).toBe('untested');
    await t.db.query(`update insights_schedules set next_run_at = now() - interval '1 minute' where id = $1`, [created.id]);
    await t.app.get(DeliveriesService).dispatchDue();

    const retrying = await eventually(
      async () => (await deliveries(created.id))[0],
      (delivery) => delivery?.error?.code === 'connection_not_active' || delivery?.status === 'failed',
    );
    expect(retrying.error).toMatchObject({ message_en: expect.stringContaining('“Drop” is not active (it is untested)') });
    expect(retrying.error.message_ar).toMatch(ARABIC);
    const failed = await settled(async () => (await deliveries(created.id))[0], 60_000);
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, rows: null, sentTo: [], error: { code: 'failed_after_retries' } });
    expect(failed.error.message_en).toContain('is not active');
    expect(failed.error.message_ar).toContain('غير مفعّل');
    expect(ok(await call(owner, 'GET', `${HUB}/connections/${paused.id}/files`)).items).toEqual([]);
    // The owner is told once the failure is recorded.
    const [told] = await eventually(
      () =>
        t.db.rows<{ recipient: string; body_text: string }>(
          `select recipient, body_text from notification_outbox where store_id = $1 and template = 'report_delivery_failed'`,
          [store.storeId],
        ),
      (rows) => rows.length > 0,
    );
    expect(told.recipient).toBe('owner@shop.example');
    expect(told.body_text).toContain('is not active');
  }, 90_000);

  it('a store downgraded below pro: its deliveries to a connection fail at once with the plan’s refusal', async () => {
    // The overview is a growth plan report: only the destination is beyond the plan now.
    const created = ok(await call(owner, 'POST', SCHEDULES, schedule(toDrop('downgraded.csv'), 'csv', overview)), 201);
    await t.app.get(StoreService).setPlan(store.storeId, 'growth');
    try {
      await t.db.query(`update insights_schedules set next_run_at = now() - interval '1 minute' where id = $1`, [created.id]);
      await t.app.get(DeliveriesService).dispatchDue();
      const failed = await settled(async () => (await deliveries(created.id))[0]);
      expect(failed).toMatchObject({ status: 'failed', attempts: 1, sentTo: [], error: { code: 'plan_not_entitled' } });
      expect(failed.error.message_ar).toMatch(ARABIC);
      expect(
        ok(await call(owner, 'GET', `${HUB}/connections/${drop.id}/files`)).items.map((file: { name: string }) => file.name),
      ).not.toContain('downgraded.csv');
      // Changing it is refused like creating one; pausing it still works.
      const refused = expectProblem(
        await call(owner, 'PATCH', `${SCHEDULES}/${created.id}`, { name: 'Renamed' }),
        403,
        'plan_not_entitled',
      );
      expect(refused.requiredPlan).toBe('pro');
      ok(await call(owner, 'PATCH', `${SCHEDULES}/${created.id}`, { paused: true }));
      // Back to email, it is a growth plan schedule again.
      const email = { kind: 'email', recipients: ['owner@shop.example'] };
      expect(ok(await call(owner, 'PATCH', `${SCHEDULES}/${created.id}`, { destination: email })).destination).toEqual(email);
    } finally {
      await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    }
  });

  it('below pro, a connection destination is refused naming the pro plan, at creation and at a change', async () => {
    for (const plan of ['basic', 'growth'] as const) {
      const lower = await t.store();
      await t.app.get(StoreService).setPlan(lower.storeId, plan);
      const lowerOwner = await staffToken(t.app, await addStaff(t.app, lower.storeId, 'owner'));
      const report = ok(
        await call(lowerOwner, 'POST', '/admin/insights/saved-reports', {
          name: 'o',
          definition: { report: 'overview', params: { last: 7 } },
        }),
        201,
      ).id;
      const lowerDrop = await activeDrop(t.app, lowerOwner, 'out');
      const body = { savedReportId: report, name: 'x', cadence: DAILY, format: 'csv', destination: toDrop('o.csv', lowerDrop.id) };
      const refused = expectProblem(await call(lowerOwner, 'POST', SCHEDULES, body), 403, 'plan_not_entitled');
      expect(refused).toMatchObject({ requiredPlan: 'pro', entitlement: 'feature:schedule_to_connection' });
      if (plan === 'growth') {
        const email = ok(
          await call(lowerOwner, 'POST', SCHEDULES, { ...body, destination: { kind: 'email', recipients: ['x@shop.example'] } }),
          201,
        );
        for (const change of [{ destination: body.destination }, { destination: body.destination, paused: true }]) {
          const changed = expectProblem(await call(lowerOwner, 'PATCH', `${SCHEDULES}/${email.id}`, change), 403, 'plan_not_entitled');
          expect(changed.requiredPlan).toBe('pro');
        }
      }
    }
  });

  it('refuses another store’s connection (as an unknown one), a database_read one, a mismatched extension and a bad template', async () => {
    const other = await t.store();
    await t.app.get(StoreService).setPlan(other.storeId, 'pro');
    const otherOwner = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    const otherDrop = await activeDrop(t.app, otherOwner, 'theirs');
    const database = ok(
      await call(owner, 'POST', `${HUB}/connections`, {
        name: 'Warehouse DB',
        kind: 'database_read',
        config: { host: '127.0.0.1', port: 5432, database: 'warehouse', username: 'reader', query: 'select 1' },
        credentials: { password: 'secret-password' },
      }),
      201,
    );
    const fieldRefusals: [unknown, string, string][] = [
      [toDrop('x.csv', otherDrop.id), 'destination.connectionId', 'No connection of this store'],
      [toDrop('x.csv', '00000000-0000-4000-8000-000000000000'), 'destination.connectionId', 'No connection of this store'],
      [toDrop('x.csv', database.id), 'destination.connectionId', 'not database_read'],
      [toDrop('x.xlsx'), 'destination.pathTemplate', 'Must end in .csv'],
      [toDrop('x'), 'destination.pathTemplate', 'Must end in .csv'],
    ];
    for (const [destination, field, message] of fieldRefusals) {
      const refused = expectProblem(await call(owner, 'POST', SCHEDULES, schedule(destination)), 400, 'validation_failed');
      expect(refused.errors).toEqual([
        expect.objectContaining({ field, message_en: expect.stringContaining(message), message_ar: expect.stringMatching(ARABIC) }),
      ]);
    }
    const shapeRefusals: [unknown, string][] = [
      [toDrop('x-*.csv'), 'destination.pathTemplate'],
      [toDrop('../x.csv'), 'destination.pathTemplate'],
      [toDrop('..{yyyy}.csv'), 'destination.pathTemplate'],
      [toDrop('{date}.csv'), 'destination.pathTemplate'],
      [toDrop(`${'a'.repeat(197)}.csv`), 'destination.pathTemplate'],
      [{ kind: 'connection', connectionId: drop.id }, 'destination.pathTemplate'],
      [{ kind: 'connection', connectionId: 'drop', pathTemplate: 'x.csv' }, 'destination.connectionId'],
      [{ ...toDrop('x.csv'), recipients: ['x@shop.example'] }, 'destination.recipients'],
      [{ kind: 'ftp', connectionId: drop.id, pathTemplate: 'x.csv' }, 'destination.kind'],
      [{ connectionId: drop.id, pathTemplate: 'x.csv' }, 'destination.kind'],
    ];
    for (const [destination, field] of shapeRefusals) {
      const refused = expectProblem(await call(owner, 'POST', SCHEDULES, schedule(destination)), 400, 'validation_failed');
      expect(refused.errors.map((error: { field: string }) => error.field)).toContain(field);
    }

    // A change of format must keep the extension in step.
    const created = ok(await call(owner, 'POST', SCHEDULES, schedule(toDrop('kept.csv'))), 201);
    const mismatched = expectProblem(
      await call(owner, 'PATCH', `${SCHEDULES}/${created.id}`, { format: 'xlsx' }),
      400,
      'validation_failed',
    );
    expect(mismatched.errors).toEqual([expect.objectContaining({ field: 'destination.pathTemplate' })]);
    const both = ok(await call(owner, 'PATCH', `${SCHEDULES}/${created.id}`, { format: 'xlsx', destination: toDrop('kept.xlsx') }));
    expect(both).toMatchObject({ format: 'xlsx', destination: toDrop('kept.xlsx') });
  });

  it('keeps to its store, a connection it delivers to cannot be deleted, and a support session reads but never writes', async () => {
    const created = ok(await call(owner, 'POST', SCHEDULES, schedule(toDrop('kept-{yyyy}.csv'))), 201);
    const other = await t.store();
    await t.app.get(StoreService).setPlan(other.storeId, 'pro');
    const otherOwner = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    for (const [method, url] of [
      ['GET', `${SCHEDULES}/${created.id}`],
      ['GET', `${SCHEDULES}/${created.id}/deliveries`],
      ['PATCH', `${SCHEDULES}/${created.id}`],
      ['POST', `${SCHEDULES}/${created.id}/deliveries`],
      ['DELETE', `${SCHEDULES}/${created.id}`],
    ]) {
      expectProblem(await call(otherOwner, method, url, method === 'PATCH' ? { name: 'mine' } : undefined), 404, 'not_found');
    }
    expectProblem(await call(otherOwner, 'DELETE', `${HUB}/connections/${drop.id}`), 404, 'not_found');

    const inUse = await activeDrop(t.app, owner, 'in-use');
    const using = ok(await call(owner, 'POST', SCHEDULES, schedule(toDrop('in-use.csv', inUse.id))), 201);
    expectProblem(await call(owner, 'DELETE', `${HUB}/connections/${inUse.id}`), 409, 'connection_in_use');
    ok(await call(owner, 'PATCH', `${SCHEDULES}/${using.id}`, { destination: { kind: 'email', recipients: ['owner@shop.example'] } }));
    expect((await call(owner, 'DELETE', `${HUB}/connections/${inUse.id}`)).statusCode).toBe(204);

    // An analyst manages reports, not where the data hub writes: a connection destination needs data.flows.manage.
    const analyst = await staffToken(t.app, await addStaff(t.app, store.storeId, 'analyst'));
    const refused = expectProblem(await call(analyst, 'POST', SCHEDULES, schedule(toDrop('analyst.csv'))), 403, 'missing_permission');
    expect(refused.requiredPermission).toBe('data.flows.manage');
    ok(await call(analyst, 'POST', SCHEDULES, schedule({ kind: 'email', recipients: ['owner@shop.example'] })), 201);
    // Nor may the analyst send a connection schedule's file now, though it may read the schedule.
    ok(await call(analyst, 'GET', `${SCHEDULES}/${created.id}`));
    const deliverNow = expectProblem(await call(analyst, 'POST', `${SCHEDULES}/${created.id}/deliveries`), 403, 'missing_permission');
    expect(deliverNow.requiredPermission).toBe('data.flows.manage');

    const support = await supportSession(t.app, store.storeId);
    expect(ok(await call(support.token, 'GET', `${SCHEDULES}/${created.id}`)).destination).toEqual(toDrop('kept-{yyyy}.csv'));
    for (const [method, url] of [
      ['POST', SCHEDULES],
      ['PATCH', `${SCHEDULES}/${created.id}`],
      ['POST', `${SCHEDULES}/${created.id}/deliveries`],
    ]) {
      expectProblem(await call(support.token, method, url, schedule(toDrop('support.csv'))), 403, 'support_read_only');
    }
  });
});
