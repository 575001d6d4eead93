import { beforeAll, describe, expect, it } from 'vitest';
import { REPORT_NAMES } from '../../src/insights/definitions/reports.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { ok } from '../support/responses.js';

/**
 * What the dashboard reads instead of keeping its own copy (issue 26, item 9): the built-in reports with the
 * area and plan of each, and the kinds of connection with the fields of each and whether it takes files.
 */
describe('the reference lists the dashboard reads', () => {
  const t = useTestApp();
  let viewer: string;
  let flowsReader: string;

  beforeAll(async () => {
    const store = await t.store();
    viewer = await staffToken(t.app, await addStaff(t.app, store.storeId, 'custom', { permissions: ['insights.products.view'] }));
    flowsReader = await staffToken(t.app, await addStaff(t.app, store.storeId, 'custom', { permissions: ['data.flows.read'] }));
  });

  it('GET /admin/insights/reports lists every built-in report with its area and the plan that first has that area', async () => {
    const reports = ok(await adminCall(t.app, 'GET', '/admin/insights/reports', viewer)).items;
    expect(reports.map((report: { name: string }) => report.name)).toEqual(REPORT_NAMES);
    expect(reports.find((report: { name: string }) => report.name === 'overview')).toEqual({
      name: 'overview',
      area: 'sales',
      plan: 'basic',
    });
    expect(reports.find((report: { name: string }) => report.name === 'cohorts')).toEqual({
      name: 'cohorts',
      area: 'customers',
      plan: 'growth',
    });
    expect(reports.find((report: { name: string }) => report.name === 'funnel')).toEqual({
      name: 'funnel',
      area: 'behaviour',
      plan: 'pro',
    });
  });

  it('GET /admin/data-hub/connectors lists the kinds in the form’s order, their fields, plan and whether they take files', async () => {
    const kinds = ok(await adminCall(t.app, 'GET', '/admin/data-hub/connectors', flowsReader)).items;
    expect(
      kinds.map((kind: { kind: string; files: boolean; entitlement: string | null; plan: string | null }) => [
        kind.kind,
        kind.files,
        kind.entitlement,
        kind.plan,
      ]),
    ).toEqual([
      ['platform_drop', true, null, null],
      ['sftp', true, null, null],
      ['object_storage', true, null, null],
      ['database_read', false, 'feature:database_read', 'pro'],
    ]);
    const sftp = kinds.find((kind: { kind: string }) => kind.kind === 'sftp');
    expect(sftp.config.map((field: { name: string }) => field.name)).toEqual(['host', 'port', 'username', 'basePath']);
    expect(sftp.credentials).toEqual([
      { name: 'password', input: 'secret', required: false },
      { name: 'privateKey', input: 'textarea', required: false },
      { name: 'passphrase', input: 'secret', required: false },
    ]);
  });
});
