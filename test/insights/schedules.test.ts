import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_SCHEMA } from '../../src/infra/jobs/job-queue.js';
import { DELIVERY_JOB, DeliveriesService } from '../../src/insights/schedules/deliveries.service.js';
import { nextDueTime } from '../../src/insights/schedules/cadence.js';
import { StoreService } from '../../src/stores/store.service.js';
import { addStaff, adminCall, staffToken, supportSession, type TestStaff } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp, useTestApps } from '../support/harness.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { eventually } from '../support/waiting.js';
import { csvRecords, xlsxRows } from './exports-support.js';

const SCHEDULES = '/admin/insights/schedules';
const MONDAY_8 = { frequency: 'weekly', time: '08:00', weekday: 'monday' };

/** A delivery's final state, once its attempts are over. */
async function settled(read: () => Promise<Record<string, any>>, ms = 30_000): Promise<Record<string, any>> {
  return eventually(read, (delivery) => ['delivered', 'failed', 'skipped'].includes(delivery?.status), ms);
}

describe('Insights delivery schedules', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'schedules-test-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const t = useTestApp({ DATA_DIR: dataDir, JOB_RETRY_DELAY_SECONDS: '1' }, { schedulers: true, ownDatabase: true });
  let store: TestStore;
  let other: TestStore;
  let ownerStaff: TestStaff;
  let owner: string;
  let overview: string;
  const call = (token: string, method: string, url: string, body?: unknown) => adminCall(t.app, method, url, token, body);
  const outbox = (storeId: string, template: string) =>
    t.db.rows<{ recipient: string; subject: string; body_text: string; attachments: any[]; locale: string }>(
      `select recipient, subject, body_text, attachments, locale from notification_outbox where store_id = $1 and template = $2 order by created_at`,
      [storeId, template],
    );
  const dueNow = (id: string) => t.db.query(`update insights_schedules set next_run_at = now() - interval '1 minute' where id = $1`, [id]);
  const deliveries = async (id: string) => ok(await call(owner, 'GET', `${SCHEDULES}/${id}/deliveries`)).items;

  beforeAll(async () => {
    [store, other] = await Promise.all([t.store(), t.store()]);
    for (const { storeId } of [store, other]) await t.app.get(StoreService).setPlan(storeId, 'pro');
    ownerStaff = await addStaff(t.app, store.storeId, 'owner', { email: 'owner@shop.example' });
    owner = await staffToken(t.app, ownerStaff);
    overview = ok(
      await call(owner, 'POST', '/admin/insights/saved-reports', {
        name: 'Sales this month',
        definition: { report: 'overview', params: { last: 30 } },
      }),
      201,
    ).id;
  });

  it('schedules a saved report every Monday at 08:00 store time, due then, and delivers each due time once by email with the file', async () => {
    const before = Date.now();
    const created = ok(
      await call(owner, 'POST', SCHEDULES, {
        savedReportId: overview,
        name: 'Monday sales',
        cadence: MONDAY_8,
        format: 'csv',
        destination: { kind: 'email', recipients: ['a@shop.example', 'b@shop.example'] },
      }),
      201,
    );
    expect(created).toEqual({
      id: expect.any(String),
      savedReportId: overview,
      name: 'Monday sales',
      cadence: MONDAY_8,
      timezone: 'Asia/Riyadh',
      format: 'csv',
      destination: { kind: 'email', recipients: ['a@shop.example', 'b@shop.example'] },
      skipEmpty: false,
      paused: false,
      nextRunAt: nextDueTime(MONDAY_8 as never, 'Asia/Riyadh', new Date(before)).toISOString(),
      lastDelivery: null,
      createdBy: ownerStaff.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(new Date(created.nextRunAt).getUTCHours()).toBe(5);

    // The clock reaches the due time: however often the dispatcher looks, one delivery.
    await dueNow(created.id);
    const dispatcher = t.app.get(DeliveriesService);
    const dispatched = await Promise.all([1, 2, 3, 4].map(() => dispatcher.dispatchDue()));
    expect(dispatched.reduce((sum, count) => sum + count, 0)).toBe(1);
    const delivered = await settled(async () => (await deliveries(created.id))[0]);
    expect(delivered).toMatchObject({
      scheduleId: created.id,
      trigger: 'schedule',
      status: 'delivered',
      attempts: 1,
      rows: 30,
      sentTo: ['a@shop.example', 'b@shop.example'],
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
    });
    expect(delivered.bytes).toBeGreaterThan(0);
    expect(delivered.error).toBeUndefined();
    expect(await deliveries(created.id)).toHaveLength(1);

    const mails = await outbox(store.storeId, 'report_delivery');
    expect(mails.map((mail) => mail.recipient)).toEqual(['a@shop.example', 'b@shop.example']);
    expect(mails[0].subject).toContain('Monday sales');
    expect(mails[0].attachments).toEqual([
      {
        filename: expect.stringMatching(/^Sales-this-month_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.csv$/),
        contentType: 'text/csv; charset=utf-8',
        bytes: delivered.bytes,
        contentBase64: expect.any(String),
      },
    ]);
    const [header, ...rows] = csvRecords(Buffer.from(mails[0].attachments[0].contentBase64, 'base64'));
    expect(header[0]).toBe('Day');
    expect(rows).toHaveLength(30);

    // Moved on to its next Monday, and shows what it last delivered.
    const after = ok(await call(owner, 'GET', `${SCHEDULES}/${created.id}`));
    expect(Date.parse(after.nextRunAt)).toBeGreaterThan(Date.now());
    expect(after.nextRunAt).toBe(nextDueTime(MONDAY_8 as never, 'Asia/Riyadh', new Date()).toISOString());
    expect(after.lastDelivery).toEqual(delivered);
  });

  it('delivers in the store’s language: an Arabic email, and an XLSX laid out right to left with an Arabic header', async () => {
    ok(await call(owner, 'PATCH', '/admin/insights/settings', { language: 'ar' }));
    const schedule = ok(
      await call(owner, 'POST', SCHEDULES, {
        savedReportId: overview,
        name: 'مبيعات الإثنين',
        cadence: { frequency: 'daily', time: '07:30' },
        format: 'xlsx',
        destination: { kind: 'email', recipients: ['ar@shop.example'] },
      }),
      201,
    );
    const now = ok(await call(owner, 'POST', `${SCHEDULES}/${schedule.id}/deliveries`), 202);
    expect(now).toMatchObject({ trigger: 'manual', status: expect.stringMatching(/^(queued|running|delivered)$/) });
    expect((await settled(async () => (await deliveries(schedule.id))[0])).status).toBe('delivered');
    const [mail] = (await outbox(store.storeId, 'report_delivery')).filter((message) => message.recipient === 'ar@shop.example');
    expect(mail.locale).toBe('ar');
    expect(mail.subject).toMatch(ARABIC);
    expect(mail.attachments[0].filename).toMatch(/^Sales-this-month_.*\.xlsx$/);
    const { headers, rows, sheets } = await xlsxRows(Buffer.from(mail.attachments[0].contentBase64, 'base64'));
    expect(headers[0][0]).toBe('اليوم');
    expect(sheets[0].views[0]).toMatchObject({ rightToLeft: true });
    expect(rows).toHaveLength(30);
    ok(await call(owner, 'PATCH', '/admin/insights/settings', { language: 'en' }));
  });

  it('a paused schedule delivers nothing; resumed, it is due from now; an empty report may be skipped', async () => {
    const schedule = ok(
      await call(owner, 'POST', SCHEDULES, {
        savedReportId: overview,
        name: 'Paused',
        cadence: { frequency: 'monthly', time: '06:00', dayOfMonth: 31 },
        format: 'csv',
        destination: { kind: 'email', recipients: ['paused@shop.example'] },
        paused: true,
      }),
      201,
    );
    expect(schedule).toMatchObject({ paused: true, nextRunAt: null });
    await t.db.query(`update insights_schedules set next_run_at = now() - interval '1 hour' where id = $1`, [schedule.id]);
    await t.app.get(DeliveriesService).dispatchDue();
    expect(await deliveries(schedule.id)).toEqual([]);
    const resumed = ok(await call(owner, 'PATCH', `${SCHEDULES}/${schedule.id}`, { paused: false }));
    expect(resumed.nextRunAt).toBe(
      nextDueTime(resumed.cadence, 'Asia/Riyadh', new Date(Date.parse(resumed.updatedAt) - 1000)).toISOString(),
    );

    const empty = ok(
      await call(owner, 'POST', '/admin/insights/saved-reports', {
        name: 'Products sold this week',
        definition: { builder: { measures: ['units_sold'], dimensions: ['product'], last: 7 } },
      }),
      201,
    );
    const skipping = ok(
      await call(owner, 'POST', SCHEDULES, {
        savedReportId: empty.id,
        name: 'Skip when empty',
        cadence: { frequency: 'daily', time: '09:00' },
        format: 'csv',
        destination: { kind: 'email', recipients: ['skip@shop.example'] },
        skipEmpty: true,
      }),
      201,
    );
    await dueNow(skipping.id);
    await t.app.get(DeliveriesService).dispatchDue();
    expect(await settled(async () => (await deliveries(skipping.id))[0])).toMatchObject({ status: 'skipped', rows: 0, sentTo: [] });
    expect((await outbox(store.storeId, 'report_delivery')).some((mail) => mail.recipient === 'skip@shop.example')).toBe(false);
  });

  it('a delivery that can no longer run fails at once, is never shown delivered, and its owner is told', async () => {
    const growthOnly = ok(
      await call(owner, 'POST', '/admin/insights/saved-reports', {
        name: 'Searches',
        definition: { report: 'searches', params: { last: 7 } },
      }),
      201,
    );
    const schedule = ok(
      await call(owner, 'POST', SCHEDULES, {
        savedReportId: growthOnly.id,
        name: 'Searches daily',
        cadence: { frequency: 'daily', time: '10:00' },
        format: 'csv',
        destination: { kind: 'email', recipients: ['never@shop.example'] },
      }),
      201,
    );
    // The plan loses the behaviour area (pro → growth): the report it delivers is no longer entitled.
    await t.app.get(StoreService).setPlan(store.storeId, 'growth');
    try {
      await dueNow(schedule.id);
      await t.app.get(DeliveriesService).dispatchDue();
      const failed = await settled(async () => (await deliveries(schedule.id))[0]);
      expect(failed).toMatchObject({ status: 'failed', attempts: 1, sentTo: [], error: { code: 'plan_not_entitled' } });
      // The owner is told once the failure is recorded.
      const [told] = await eventually(
        () => outbox(store.storeId, 'report_delivery_failed'),
        (mails) => mails.length > 0,
      );
      expect(told).toMatchObject({ recipient: 'owner@shop.example', locale: 'en' });
      expect(told.subject).toContain('Searches daily');
      expect(told.body_text).toContain(failed.error.message_en);
      expect((await outbox(store.storeId, 'report_delivery')).some((mail) => mail.recipient === 'never@shop.example')).toBe(false);
      // Changed, it would deliver what the plan no longer has; paused, it delivers nothing, so pausing always works.
      expectProblem(await call(owner, 'PATCH', `${SCHEDULES}/${schedule.id}`, { name: 'Renamed' }), 403, 'plan_not_entitled');
      expect(ok(await call(owner, 'PATCH', `${SCHEDULES}/${schedule.id}`, { paused: true }))).toMatchObject({
        paused: true,
        nextRunAt: null,
      });
      expect(ok(await call(owner, 'PATCH', `${SCHEDULES}/${schedule.id}`, { name: 'Renamed' })).name).toBe('Renamed');
    } finally {
      await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    }
  });

  it('a time-zone change keeps the local time: London’s 08:00 Monday, daylight saving followed', async () => {
    const schedule = ok(
      await call(owner, 'POST', SCHEDULES, {
        savedReportId: overview,
        name: 'London Monday',
        cadence: MONDAY_8,
        format: 'csv',
        destination: { kind: 'email', recipients: ['london@shop.example'] },
      }),
      201,
    );
    ok(await call(owner, 'PATCH', '/admin/insights/settings', { timezone: 'Europe/London' }));
    try {
      const moved = ok(await call(owner, 'GET', `${SCHEDULES}/${schedule.id}`));
      expect(moved.timezone).toBe('Europe/London');
      expect(moved.nextRunAt).toBe(nextDueTime(MONDAY_8 as never, 'Europe/London', new Date(Date.now() - 5000)).toISOString());
      const hour = new Date(moved.nextRunAt).getUTCHours();
      expect([7, 8]).toContain(hour); // 08:00 BST is 07:00 UTC, 08:00 GMT is 08:00 UTC
    } finally {
      ok(await call(owner, 'PATCH', '/admin/insights/settings', { timezone: 'Asia/Riyadh' }));
    }
  });

  it('validates schedules like any body, and refuses a report the caller may not read', async () => {
    const base = {
      savedReportId: overview,
      name: 'x',
      cadence: MONDAY_8,
      format: 'csv',
      destination: { kind: 'email', recipients: ['x@shop.example'] },
    };
    const refusals: [unknown, number, Parameters<typeof expectProblem>[2]][] = [
      [{ ...base, cadence: { frequency: 'weekly', time: '08:00' } }, 400, 'validation_failed'],
      [{ ...base, cadence: { frequency: 'daily', time: '08:00', weekday: 'monday' } }, 400, 'validation_failed'],
      [{ ...base, cadence: { frequency: 'monthly', time: '08:00', dayOfMonth: 32 } }, 400, 'validation_failed'],
      [{ ...base, cadence: { frequency: 'daily', time: '24:00' } }, 400, 'validation_failed'],
      [{ ...base, cadence: { frequency: 'hourly', time: '08:00' } }, 400, 'validation_failed'],
      [{ ...base, destination: { kind: 'email', recipients: [] } }, 400, 'validation_failed'],
      [{ ...base, destination: { kind: 'email', recipients: ['not-an-email'] } }, 400, 'validation_failed'],
      [{ ...base, destination: { kind: 'email', recipients: ['A@x.example', 'a@x.example'] } }, 400, 'validation_failed'],
      [{ ...base, destination: { kind: 'connection', connectionId: overview, pathTemplate: 'x' } }, 400, 'validation_failed'],
      [{ ...base, format: 'pdf' }, 400, 'validation_failed'],
      // A destination that is no object at all (the fuzz test found `[null]` answered 500).
      [{ ...base, destination: [null] }, 400, 'validation_failed'],
      [{ ...base, destination: [{ kind: 'email', recipients: ['x@shop.example'] }] }, 400, 'validation_failed'],
      [{ ...base, destination: null }, 400, 'validation_failed'],
      [{ ...base, destination: { kind: 'pigeon' } }, 400, 'validation_failed'],
      [{ ...base, destination: { kind: 'email', recipients: ['x@shop.example'], connectionId: overview } }, 400, 'validation_failed'],
      [{ ...base, extra: true }, 400, 'validation_failed'],
      [{ ...base, savedReportId: '00000000-0000-4000-8000-000000000000' }, 404, 'not_found'],
    ];
    for (const [body, status, code] of refusals) expectProblem(await call(owner, 'POST', SCHEDULES, body), status, code);
    const salesOnly = await staffToken(
      t.app,
      await addStaff(t.app, store.storeId, 'custom', { permissions: ['insights.sales.view', 'insights.reports.manage'] }),
    );
    const searches = ok(await call(owner, 'POST', '/admin/insights/saved-reports', { name: 's', definition: { report: 'searches' } }), 201);
    expectProblem(await call(salesOnly, 'POST', SCHEDULES, { ...base, savedReportId: searches.id }), 403, 'missing_permission');
  });

  it('needs insights.reports.manage to write and the growth plan; a viewer reads; a support session reads and writes nothing', async () => {
    const [schedule] = ok(await call(owner, 'GET', `${SCHEDULES}?limit=1`)).items;
    const viewer = await staffToken(t.app, await addStaff(t.app, store.storeId, 'viewer'));
    ok(await call(viewer, 'GET', `${SCHEDULES}/${schedule.id}`));
    ok(await call(viewer, 'GET', `${SCHEDULES}/${schedule.id}/deliveries`));
    expect(
      expectProblem(await call(viewer, 'PATCH', `${SCHEDULES}/${schedule.id}`, { name: 'y' }), 403, 'missing_permission')
        .requiredPermission,
    ).toBe('insights.reports.manage');
    expectProblem(await call(viewer, 'POST', `${SCHEDULES}/${schedule.id}/deliveries`), 403, 'missing_permission');

    const support = await supportSession(t.app, store.storeId);
    ok(await call(support.token, 'GET', SCHEDULES));
    ok(await call(support.token, 'GET', `${SCHEDULES}/${schedule.id}/deliveries`));
    ok(await call(support.token, 'GET', '/admin/insights/settings'));
    for (const [method, url] of [
      ['POST', SCHEDULES],
      ['PATCH', `${SCHEDULES}/${schedule.id}`],
      ['DELETE', `${SCHEDULES}/${schedule.id}`],
      ['POST', `${SCHEDULES}/${schedule.id}/deliveries`],
      ['PATCH', '/admin/insights/settings'],
    ]) {
      expectProblem(await call(support.token, method, url, {}), 403, 'support_read_only');
    }

    const basic = await t.store();
    await t.app.get(StoreService).setPlan(basic.storeId, 'basic');
    const basicOwner = await staffToken(t.app, await addStaff(t.app, basic.storeId, 'owner'));
    const report = ok(
      await call(basicOwner, 'POST', '/admin/insights/saved-reports', { name: 'o', definition: { report: 'overview' } }),
      201,
    );
    const refused = expectProblem(
      await call(basicOwner, 'POST', SCHEDULES, {
        savedReportId: report.id,
        name: 'x',
        cadence: MONDAY_8,
        format: 'csv',
        destination: { kind: 'email', recipients: ['x@shop.example'] },
      }),
      403,
      'plan_not_entitled',
    );
    expect(refused.requiredPlan).toBe('growth');
  });

  it('another store’s schedule is not found; deleting a schedule (or its report) takes its deliveries with it', async () => {
    const [schedule] = ok(await call(owner, 'GET', `${SCHEDULES}?limit=1`)).items;
    const otherOwner = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    for (const [method, url] of [
      ['GET', `${SCHEDULES}/${schedule.id}`],
      ['GET', `${SCHEDULES}/${schedule.id}/deliveries`],
      ['PATCH', `${SCHEDULES}/${schedule.id}`],
      ['DELETE', `${SCHEDULES}/${schedule.id}`],
      ['POST', `${SCHEDULES}/${schedule.id}/deliveries`],
    ]) {
      expectProblem(await call(otherOwner, method, url, method === 'PATCH' ? { name: 'mine' } : undefined), 404, 'not_found');
    }
    expect(ok(await call(otherOwner, 'GET', SCHEDULES)).items).toEqual([]);

    const first = ok(await call(owner, 'GET', `${SCHEDULES}?limit=100`)).items.find(
      (item: { name: string }) => item.name === 'Monday sales',
    );
    expect(await deliveries(first.id)).toHaveLength(1);
    expect((await call(owner, 'DELETE', `${SCHEDULES}/${first.id}`)).statusCode).toBe(204);
    expectProblem(await call(owner, 'GET', `${SCHEDULES}/${first.id}`), 404, 'not_found');
    expect(await t.db.rows(`select 1 from insights_deliveries where schedule_id = $1`, [first.id])).toEqual([]);
    expect((await call(owner, 'DELETE', `/admin/insights/saved-reports/${overview}`)).statusCode).toBe(204);
    expect(await t.db.rows(`select 1 from insights_schedules where saved_report_id = $1`, [overview])).toEqual([]);
  });
});

describe('Insights deliveries across two instances, through a real SMTP server', () => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(() => smtp.close());
  const dataDir = mkdtempSync(join(tmpdir(), 'deliveries-test-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const [a, b] = useTestApps(2, () => ({ DATA_DIR: dataDir, SMTP_URL: smtp.url, JOB_RETRY_DELAY_SECONDS: '1' }), {
    schedulers: true,
    ownDatabase: true,
  });
  let store: TestStore;
  let owner: string;
  let report: string;
  const call = (token: string, method: string, url: string, body?: unknown) => adminCall(a.app, method, url, token, body);
  const to = (message: { to?: unknown }) => ((message.to as { text?: string } | undefined)?.text ?? '').toLowerCase();

  beforeAll(async () => {
    store = await a.store();
    await a.app.get(StoreService).setPlan(store.storeId, 'growth');
    owner = await staffToken(a.app, await addStaff(a.app, store.storeId, 'owner', { email: 'boss@shop.example' }));
    report = ok(
      await call(owner, 'POST', '/admin/insights/saved-reports', {
        name: 'Overview',
        definition: { report: 'overview', params: { last: 7 } },
      }),
      201,
    ).id;
  });

  it('two instances racing over a due schedule deliver it once: one email per recipient, the file attached', async () => {
    const schedule = ok(
      await call(owner, 'POST', SCHEDULES, {
        savedReportId: report,
        name: 'Raced',
        cadence: { frequency: 'daily', time: '08:00' },
        format: 'xlsx',
        destination: { kind: 'email', recipients: ['one@shop.example', 'two@shop.example'] },
      }),
      201,
    );
    await a.db.query(`update insights_schedules set next_run_at = now() - interval '1 minute' where id = $1`, [schedule.id]);
    const dispatchers = [a, b].map((instance) => instance.app.get(DeliveriesService));
    const counts = await Promise.all(Array.from({ length: 10 }, (_, index) => dispatchers[index % 2].dispatchDue()));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(1);
    const delivered = await settled(async () => ok(await call(owner, 'GET', `${SCHEDULES}/${schedule.id}/deliveries`)).items[0]);
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 1, rows: 7, sentTo: ['one@shop.example', 'two@shop.example'] });
    await smtp.received(2);
    // A duplicate could come only from another job of the delivery, or this one tried again: there is one, and it is done.
    const jobs = await eventually(
      async () =>
        (
          await a.db.query(`select state from ${JOB_SCHEMA}.job where name = $1 and data->>'id' = $2`, [DELIVERY_JOB, delivered.id])
        ).rows.map((row: { state: string }) => row.state),
      (states) => states.length > 0 && states.every((state) => state === 'completed'),
      10_000,
    );
    expect(jobs).toEqual(['completed']);
    const mails = smtp.messages.filter((message) => message.subject?.includes('Raced'));
    expect(mails.map(to).sort()).toEqual(['one@shop.example', 'two@shop.example']);
    const [attachment] = mails[0].attachments;
    expect(attachment.contentType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(attachment.filename).toMatch(/^Overview_.*\.xlsx$/);
    const { headers, rows } = await xlsxRows(attachment.content);
    expect(headers[0][0]).toBe('Day');
    expect(rows).toHaveLength(7);
  });

  it('a recipient’s server refusing: tried three times with backoff, the others mailed once, recorded failed, the owner told', async () => {
    smtp.refuseRecipients(['bounce@shop.example']);
    try {
      const schedule = ok(
        await call(owner, 'POST', SCHEDULES, {
          savedReportId: report,
          name: 'Bouncing',
          cadence: { frequency: 'daily', time: '08:00' },
          format: 'csv',
          destination: { kind: 'email', recipients: ['fine@shop.example', 'bounce@shop.example'] },
        }),
        201,
      );
      ok(await call(owner, 'POST', `${SCHEDULES}/${schedule.id}/deliveries`), 202);
      const failed = await settled(async () => ok(await call(owner, 'GET', `${SCHEDULES}/${schedule.id}/deliveries`)).items[0], 60_000);
      expect(failed).toMatchObject({
        status: 'failed',
        attempts: 3,
        sentTo: ['fine@shop.example'],
        error: { code: 'failed_after_retries' },
      });
      expect(failed.error.message_en).toContain('mail server');
      const told = await eventually(
        async () => smtp.messages.filter((message) => to(message) === 'boss@shop.example'),
        (messages) => messages.length > 0,
        10_000,
      );
      expect(told).toHaveLength(1);
      expect(told[0].subject).toContain('"Bouncing" was not delivered');
      expect(told[0].text).toContain('3 attempts');
      expect(smtp.messages.filter((message) => to(message) === 'fine@shop.example')).toHaveLength(1);
      const schedules = ok(await call(owner, 'GET', `${SCHEDULES}/${schedule.id}`));
      expect(schedules.lastDelivery.status).toBe('failed');
    } finally {
      smtp.refuseRecipients([]);
    }
  }, 90_000);
});
