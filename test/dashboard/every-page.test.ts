import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTS } from '../../dashboard/src/lib/reports.js';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { activeDrop, HUB, stockMapping } from '../data-hub/hub-fixtures.js';
import { ROOT } from '../support/build.js';
import { addStaff, adminCall, staffToken, type TestStaff } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { ok } from '../support/responses.js';
import { buildDashboard, expectAccessible, launchChromium, shoot } from './browser.js';

/**
 * Every page of the dashboard, in English and in Arabic, on a pro store with the demo's orders and one of
 * each thing a page shows (saved reports, a schedule, an export, a connection, a mapping, a flow and its
 * run): each loads its data with no error shown, is laid out in its language's direction, passes axe-core's
 * WCAG 2.1 AA rules, and is saved as `page-<name>-<lang>.png` under test-results/dashboard/.
 */
const BUILD_DIR = join(ROOT, '.data', `test-dashboard-pages-${randomBytes(4).toString('hex')}`);

declare const document: {
  documentElement: { dir: string; lang: string };
  querySelector: (selector: string) => unknown;
};

describe('every dashboard page in both languages', { timeout: 240_000 }, () => {
  const t = useTestApp({ DASHBOARD_DIR: BUILD_DIR });
  let base: string;
  let storeId: string;
  let owner: TestStaff;
  let browser: Browser;
  const pages: [name: string, path: string][] = [];

  beforeAll(async () => {
    const building = buildDashboard(BUILD_DIR);
    storeId = (await t.store({ name: 'Every Page Store' })).storeId;
    await t.app.get(DemoStoreService).seed(storeId, { orders: 200, productCount: 30 });
    await t.app.get(StoreService).setPlan(storeId, 'pro');
    owner = await addStaff(t.app, storeId, 'owner', { name: 'Olivia Owner' });
    const token = await staffToken(t.app, owner);
    const call = async (method: string, path: string, body?: unknown, status = 201) =>
      ok(await adminCall(t.app, method, path, token, body), status);

    const savedReport = await call('POST', '/admin/insights/saved-reports', {
      name: 'Products this month',
      definition: { report: 'products', params: { last: 30 } },
    });
    await call('POST', '/admin/insights/saved-reports', {
      name: 'Sales by day',
      definition: { builder: { measures: ['net_sales', 'orders'], dimensions: ['day'], last: 30 } },
    });
    const schedule = await call('POST', '/admin/insights/schedules', {
      savedReportId: savedReport.id,
      name: 'Monday products',
      cadence: { frequency: 'weekly', time: '08:00', weekday: 'monday' },
      format: 'csv',
      destination: { kind: 'email', recipients: ['owner@shop.example'] },
    });
    await call('POST', `/admin/insights/schedules/${schedule.id}/deliveries`, undefined, 202);
    await call('POST', '/admin/insights/exports', { source: { savedReportId: savedReport.id }, format: 'csv' }, 202);

    const drop = await activeDrop(t.app, token, 'stock');
    const mapping = await stockMapping(t.app, token);
    const flow = await call('POST', `${HUB}/flows`, {
      name: 'Nightly stock',
      connectionId: drop.id,
      mappingId: mapping,
      direction: 'import',
      format: 'csv',
      fileTemplate: 'stock-*.csv',
      schedule: { cron: '30 2 * * *', timezone: 'Asia/Riyadh' },
    });
    const [sku] = (await t.db.rows<{ sku: string }>(`select sku from product_variants where store_id = $1 limit 1`, [storeId])).map(
      (row) => row.sku,
    );
    await drop.upload('stock-1.csv', `sku,qty\n${sku},7\nNOPE-1,3\n${sku},abc\n`);
    const run = await call('POST', `${HUB}/flows/${flow.id}/runs`, {}, 202);
    await t.app.get(RunsService).execute(run.id);

    pages.push(
      ['overview', '/insights/overview?last=30&compare=previous_period'],
      ...REPORTS.filter((report) => report.name !== 'overview').map((report): [string, string] => [
        `report-${report.name}`,
        `/insights/reports/${report.name}?last=30`,
      ]),
      ['builder', '/insights/builder'],
      ['saved-reports', '/insights/saved-reports'],
      ['saved-report', `/insights/saved-reports/${savedReport.id}`],
      ['exports', '/insights/exports'],
      ['schedules', '/insights/schedules'],
      ['settings', '/insights/settings'],
      ['connections', '/data-hub/connections'],
      ['connection-new', '/data-hub/connections/new'],
      ['connection', `/data-hub/connections/${drop.id}`],
      ['mappings', '/data-hub/mappings'],
      ['mapping-new', '/data-hub/mappings/new'],
      ['mapping', `/data-hub/mappings/${mapping}`],
      ['flows', '/data-hub/flows'],
      ['flow-new', '/data-hub/flows/new'],
      ['flow', `/data-hub/flows/${flow.id}`],
      ['run', `/data-hub/runs/${run.id}`],
    );
    await building;
    base = (await t.listen()).replace('127.0.0.1', 'localhost');
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await rm(BUILD_DIR, { recursive: true, force: true });
  });

  /** The page once its data is in: nothing loading, nothing busy, no request in flight. */
  const settled = async (page: Page) => {
    await page.waitForLoadState('networkidle');
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"], p[role="status"]'));
  };

  it('the contract’s sixteen reports all have a page', () => {
    expect(REPORTS.map((report) => report.name).sort()).toEqual(
      [
        'brands',
        'categories',
        'cohorts',
        'customer_groups',
        'customers',
        'fulfilment',
        'funnel',
        'late_orders',
        'not_selling',
        'overview',
        'payments',
        'products',
        'searches',
        'tax',
        'top_customers',
        'variants',
      ].sort(),
    );
  });

  for (const lang of ['en', 'ar'] as const) {
    it(`every page loads its data, accessible and ${lang === 'ar' ? 'right to left' : 'left to right'} (${lang})`, async () => {
      const context = await browser.newContext({ locale: lang === 'ar' ? 'ar-SA' : 'en-GB', viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const failures: string[] = [];
      page.on('pageerror', (error) => failures.push(`${page.url()}: ${error.message}`));
      page.on('response', (response) => {
        if (response.url().includes('/admin/') && response.status() >= 500) failures.push(`${response.status()} ${response.url()}`);
      });
      await page.goto(`${base}/admin/?store=${storeId}`);
      await page.locator('input[name="email"]').waitFor();
      expect(await page.evaluate(() => document.documentElement.dir)).toBe(lang === 'ar' ? 'rtl' : 'ltr');
      await expectAccessible(page, `sign-in (${lang})`);
      await shoot(page, `page-sign-in-${lang}`);
      await page.locator('input[name="email"]').fill(owner.email);
      await page.locator('input[name="password"]').fill(owner.password);
      await page.locator('form button[type="submit"]').first().click();
      await page.locator('[data-page], section[aria-labelledby="page-title"]').first().waitFor();

      for (const [name, path] of pages) {
        await page.goto(`${base}/admin/app${path}`);
        await page
          .locator('#page-title')
          .waitFor({ timeout: 15_000 })
          .catch(async (error: Error) => {
            await shoot(page, `page-${name}-${lang}-failed`);
            throw new Error(`${name} (${lang}) shows no title: ${error.message}\n${failures.join('\n')}`);
          });
        await settled(page);
        const shown = await page.locator('.problem, [role="alert"]').allTextContents();
        expect(shown, `${name} (${lang}) shows an error`).toEqual([]);
        expect(await page.evaluate(() => [document.documentElement.dir, document.documentElement.lang])).toEqual([
          lang === 'ar' ? 'rtl' : 'ltr',
          lang,
        ]);
        await expectAccessible(page, `${name} (${lang})`);
        await shoot(page, `page-${name}-${lang}`);
      }
      expect(failures).toEqual([]);
      await context.close();
    });
  }
});
