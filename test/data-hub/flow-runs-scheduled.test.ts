import { beforeAll, describe, expect, it } from 'vitest';
import { FlowDispatcher } from '../../src/data-hub/runs/flow-dispatcher.js';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApps } from '../support/harness.js';
import { ARABIC } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { activeDrop, HUB, stockMapping } from './hub-fixtures.js';

describe('scheduled data hub runs: once per due time, no file imported twice, missing runs alerted once (contract sections 9, 10)', () => {
  const [a, b] = useTestApps(2);
  let store: TestStore;
  let owner: string;
  let drop: string;
  let mapping: string;
  let sku: string;
  const call = (method: string, url: string, body?: unknown) => adminCall(a.app, method, url, owner, body);
  let upload: (name: string, content: string) => Promise<unknown>;
  const scheduledFlow = async (template: string, extra: Record<string, unknown> = {}) =>
    ok(
      await call('POST', `${HUB}/flows`, {
        name: `Nightly ${template}`,
        connectionId: drop,
        mappingId: mapping,
        direction: 'import',
        format: 'csv',
        fileTemplate: template,
        schedule: { cron: '0 2 * * *', timezone: 'Asia/Riyadh' },
        alertRecipients: ['ops@example.com', 'owner@example.com'],
        ...extra,
      }),
      201,
    ).id as string;
  const due = (flowId: string, ago = '1 minute') =>
    a.db.query(`update data_hub_flows set next_run_at = now() - $2::interval where id = $1`, [flowId, ago]);
  const runsOf = (flowId: string) =>
    a.db.rows<{ id: string; status: string; trigger: string; due_at: Date; error: any; alerted_at: Date | null }>(
      `select id, status, trigger, due_at, error, alerted_at from data_hub_runs where flow_id = $1 order by created_at`,
      [flowId],
    );
  const alerts = () =>
    a.db.rows<{ recipient: string; subject: string; body_text: string }>(
      `select recipient, subject, body_text from notification_outbox where store_id = $1 and template = 'data_hub_run_alert' order by created_at`,
      [store.storeId],
    );

  beforeAll(async () => {
    store = await a.store({ seedCatalogue: true, productCount: 10 });
    owner = await staffToken(a.app, await addStaff(a.app, store.storeId, 'owner'));
    ({ id: drop, upload } = await activeDrop(a.app, owner, 'nightly'));
    mapping = await stockMapping(a.app, owner);
    [{ sku }] = await a.db.rows<{ sku: string }>(`select sku from product_variants where store_id = $1 order by sku limit 1`, [
      store.storeId,
    ]);
  }, 120_000);

  it('files one run per due time however many instances dispatch, runs it, and moves the flow to its next due time', async () => {
    await upload('stock-20261124.csv', `sku,qty\n${sku},41\n`);
    const flowId = await scheduledFlow('stock-{yyyy}{MM}{dd}.csv');
    await due(flowId);
    await Promise.all([
      a.app.get(FlowDispatcher).dispatchDue(),
      b.app.get(FlowDispatcher).dispatchDue(),
      a.app.get(FlowDispatcher).dispatchDue(),
    ]);
    const runs = await runsOf(flowId);
    expect(runs.map((run) => [run.trigger, run.status])).toEqual([['schedule', 'queued']]);
    const [flow] = await a.db.rows<{ next_run_at: Date }>(`select next_run_at from data_hub_flows where id = $1`, [flowId]);
    expect(new Date(flow.next_run_at).getTime()).toBeGreaterThan(Date.now());

    await b.app.get(RunsService).execute(runs[0].id);
    expect((await runsOf(flowId))[0].status).toBe('succeeded');
    const [variant] = await a.db.rows<{ stock: number }>(`select stock from product_variants where store_id = $1 and sku = $2`, [
      store.storeId,
      sku,
    ]);
    expect(variant.stock).toBe(41);
  });

  it('does not import the same file twice: it waits for a new one, then records the run missing and alerts once', async () => {
    await upload('daily-1.csv', `sku,qty\n${sku},7\n`);
    const flowId = await scheduledFlow('daily-*.csv', { missingAfterMinutes: 1 });
    await due(flowId, '10 seconds');
    await a.app.get(FlowDispatcher).dispatchDue();
    const [first] = await runsOf(flowId);
    await a.app.get(RunsService).execute(first.id);
    expect((await runsOf(flowId))[0].status).toBe('succeeded');

    await due(flowId, '10 seconds');
    await a.app.get(FlowDispatcher).dispatchDue();
    const second = (await runsOf(flowId))[1];
    await a.app.get(RunsService).execute(second.id);
    // The same file again: not imported, and within the flow's delay the run waits for a new one.
    expect((await runsOf(flowId))[1]).toMatchObject({ status: 'queued', alerted_at: null });
    const before = (await alerts()).length;

    await a.db.query(`update data_hub_runs set due_at = now() - interval '2 minutes' where id = $1`, [second.id]);
    await a.app.get(RunsService).execute(second.id);
    const missing = (await runsOf(flowId))[1];
    expect(missing).toMatchObject({ status: 'missing', error: { code: 'no_new_file' } });
    expect(missing.alerted_at).not.toBeNull();
    const sent = (await alerts()).slice(before);
    expect(sent.map((alert) => alert.recipient).sort()).toEqual(['ops@example.com', 'owner@example.com']);
    expect(sent[0].subject).toContain('found no new file');
    await a.app.get(RunsService).alert(second.id);
    expect((await alerts()).length).toBe(before + 2);
  });

  it('records a due time missed while the service was down as missing and alerts once; a muted flow says nothing, a paused one runs nothing', async () => {
    const flowId = await scheduledFlow('down-*.csv');
    await due(flowId, '3 hours');
    const before = (await alerts()).length;
    await a.app.get(FlowDispatcher).dispatchDue();
    expect((await runsOf(flowId)).map((run) => [run.status, run.error?.code])).toEqual([['missing', 'due_time_missed']]);
    expect((await alerts()).length).toBe(before + 2);

    const muted = await scheduledFlow('muted-*.csv', { muted: true });
    await due(muted, '3 hours');
    await a.app.get(FlowDispatcher).dispatchDue();
    expect((await runsOf(muted)).map((run) => run.status)).toEqual(['missing']);
    expect((await alerts()).length).toBe(before + 2);

    const paused = await scheduledFlow('paused-*.csv');
    ok(await call('PUT', `${HUB}/flows/${paused}`, { paused: true }));
    await a.app.get(FlowDispatcher).dispatchDue();
    expect(await runsOf(paused)).toEqual([]);
  });

  it('alerts when a scheduled run reads zero rows, in the store’s language', async () => {
    await a.db.query(
      `insert into insights_settings (store_id, language) values ($1, 'ar') on conflict (store_id) do update set language = 'ar'`,
      [store.storeId],
    );
    await upload('empty-1.csv', 'sku,qty\n');
    const flowId = await scheduledFlow('empty-*.csv');
    await due(flowId);
    await a.app.get(FlowDispatcher).dispatchDue();
    const [run] = await runsOf(flowId);
    const before = (await alerts()).length;
    await a.app.get(RunsService).execute(run.id);
    expect((await runsOf(flowId))[0]).toMatchObject({ status: 'failed', error: { code: 'no_rows' } });
    const [alert] = (await alerts()).slice(before);
    expect(alert.subject).toMatch(ARABIC);
    expect(alert.body_text).toContain('لا يحوي الملف أي صفوف');
  });
});
