import { beforeAll, describe, expect, it } from 'vitest';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { REPORT_NAMES } from '../../src/insights/definitions/reports.js';
import { ReportService } from '../../src/insights/reports/report.service.js';
import { BuilderService } from '../../src/insights/builder/builder.service.js';
import { entitlementsOf, PERMISSIONS } from '../../src/common/permissions.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { foldAll } from './support.js';

describe('scratch', () => {
  const t = useTestApp();
  let store: TestStore;
  beforeAll(async () => {
    store = await t.store();
    await t.app.get(DemoStoreService).seed(store.storeId, { orders: 1500, productCount: 60 });
    await foldAll(t.app);
  }, 120_000);

  it('runs', async () => {
    const admin: any = {
      kind: 'staff',
      storeId: store.storeId,
      sessionId: 'x',
      permissions: PERMISSIONS,
      entitlements: entitlementsOf('pro'),
      readOnly: false,
      locale: 'en',
      store: {},
    };
    for (const name of REPORT_NAMES) {
      const started = performance.now();
      const result = await t.app.get(ReportService).run(name, { last: 366, compare: 'previous_period', limit: 3 }, admin);
      console.log(
        name,
        Math.round(performance.now() - started),
        'ms',
        JSON.stringify(result.totals).slice(0, 300),
        JSON.stringify(result.rows.slice(0, 2)).slice(0, 400),
        result.series.length,
      );
    }
    const b = await t.app
      .get(BuilderService)
      .run({ measures: ['net_sales', 'orders'], dimensions: ['month', 'category'], last: 366 } as any, admin);
    console.log('builder', b.rowCount, JSON.stringify(b.rows.slice(0, 2)));
    expect(1).toBe(1);
  });
});
