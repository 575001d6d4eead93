import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { ROOT } from '../support/build.js';
import { addStaff, supportSession, type TestStaff } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { buildDashboard, expectAccessible, launchChromium, shoot } from './browser.js';

/**
 * The dashboard's Insights tools (issue 13) in Chromium against the real service on a seeded store: the
 * builder's row-limit refusal offers an export that downloads a CSV, a saved report, a schedule, the
 * settings, a report filter, Arabic right to left, a support session without write controls; axe-core
 * on each page and screenshots (ins-*) under test-results/dashboard/.
 */
const RUN = randomBytes(4).toString('hex');
const BUILD_DIR = join(ROOT, '.data', `test-dashboard-ins-${RUN}`);
const DATA_DIR = join(ROOT, '.data', `test-dashboard-ins-data-${RUN}`);

declare const document: { documentElement: { dir: string; lang: string } };

describe('the dashboard’s Insights pages in a browser', () => {
  const t = useTestApp(
    { DASHBOARD_DIR: BUILD_DIR, DATA_DIR: DATA_DIR, JOB_RETRY_DELAY_SECONDS: '1' },
    { schedulers: true, ownDatabase: true },
  );
  let base: string;
  let store: TestStore;
  let owner: TestStaff;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    const building = buildDashboard(BUILD_DIR);
    store = await t.store({ name: 'Insights Pages Store' });
    await t.app.get(DemoStoreService).seed(store.storeId, { orders: 300, productCount: 40 });
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    // 6,000 more days × variants of sales in the rollup: more rows than the builder answers on screen.
    await t.db.query(
      `insert into insights_products_daily (store_id, day, variant_id, product_id, category_id, brand_id, units_sold, gross_sales)
       select $1, current_date - (i % 300), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 1, 100
       from generate_series(1, 6000) as i`,
      [store.storeId],
    );
    owner = await addStaff(t.app, store.storeId, 'owner', { name: 'Olivia Owner' });
    await building;
    base = (await t.listen()).replace('127.0.0.1', 'localhost');
    browser = await launchChromium();
    context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    await page.goto(`${base}/admin/?store=${store.storeId}`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.card .figure').first().waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await rm(BUILD_DIR, { recursive: true, force: true });
    await rm(DATA_DIR, { recursive: true, force: true });
  }, 60_000);

  it('the builder refuses a query over 5,000 rows and offers its export, which downloads a CSV', async () => {
    await page.getByRole('link', { name: 'Report builder' }).click();
    await page.getByRole('heading', { level: 1, name: 'Report builder' }).waitFor();
    await page.getByRole('combobox', { name: 'Period' }).selectOption('365');
    await page.getByRole('checkbox', { name: 'Net sales', exact: true }).uncheck();
    await page.getByRole('checkbox', { name: 'Units sold', exact: true }).check();
    await page.getByRole('combobox', { name: 'Dimension 1' }).selectOption('day');
    await page.getByRole('combobox', { name: 'Dimension 2' }).selectOption('variant');
    const ran = page.waitForRequest((request) => request.url().endsWith('/admin/insights/builder/run'));
    await page.getByRole('button', { name: 'Run' }).click();
    expect((await ran).postDataJSON()).toMatchObject({ measures: ['units_sold'], dimensions: ['day', 'variant'], last: 365 });
    const refusal = page.locator('.ins-over-limit');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/[\d,]{5,} rows, over the 5,000-row limit/);
    await expectAccessible(page, 'builder refusal (en)');
    await shoot(page, 'ins-builder-refusal-en');

    const started = page.waitForResponse(
      (response) => response.url().endsWith('/admin/insights/exports') && response.request().method() === 'POST',
    );
    await refusal.getByRole('button', { name: 'Export all rows as CSV' }).click();
    expect((await started).status()).toBe(202);
    const link = page.locator('[data-download]');
    await page.locator('.ins-export[data-status="succeeded"], .ins-export[data-status="failed"]').waitFor({ timeout: 90_000 });
    expect(await page.locator('.ins-export').getAttribute('data-status'), (await page.locator('.ins-export').textContent()) ?? '').toBe(
      'succeeded',
    );
    expect(await page.locator('.ins-export progress').getAttribute('value')).toBe('100');
    const downloading = page.waitForEvent('download');
    await link.click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const bytes = await readFile(await download.path());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const header = bytes.subarray(3).toString('utf8').split(/\r?\n/)[0];
    expect(header).toMatch(/Day.*Variant.*Units sold/);
    expect(bytes.subarray(3).toString('utf8').trim().split(/\r?\n/).length).toBeGreaterThan(5000);
    await shoot(page, 'ins-builder-export-en');
  }, 150_000);

  it('a builder query runs into a chart and a table, and saving it lists it among the saved reports', async () => {
    await page.getByRole('combobox', { name: 'Dimension 2' }).selectOption('');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('[data-result] .panel canvas').waitFor();
    await expect.poll(() => page.locator('[data-result] tbody tr').count()).toBeGreaterThan(100);
    await page.getByRole('textbox', { name: 'Name' }).fill('Units by day');
    const saved = page.waitForResponse((response) => response.url().endsWith('/admin/insights/saved-reports'));
    await page.getByRole('button', { name: 'Save as a report' }).click();
    expect((await saved).status()).toBe(201);
    await page.locator('[data-saved]').waitFor();
    await expectAccessible(page, 'builder result (en)');
    await shoot(page, 'ins-builder-en');

    await page.getByRole('link', { name: 'Saved reports', exact: true }).click();
    await page.locator('[data-saved-report="Units by day"]').waitFor();
    await expectAccessible(page, 'saved reports (en)');
    await shoot(page, 'ins-saved-reports-en');
    // Renamed, then back.
    const row = page.locator('[data-saved-report="Units by day"]');
    await row.getByRole('button', { name: 'Rename' }).click();
    await row.getByRole('textbox', { name: 'New name' }).fill('Units per day');
    await row.getByRole('button', { name: 'Save' }).click();
    await page.locator('[data-saved-report="Units per day"]').waitFor();
    const renamed = page.locator('[data-saved-report="Units per day"]');
    await renamed.getByRole('button', { name: 'Rename' }).click();
    await renamed.getByRole('textbox', { name: 'New name' }).fill('Units by day');
    await renamed.getByRole('button', { name: 'Save' }).click();
    await page.locator('[data-saved-report="Units by day"]').waitFor();
    await page.getByRole('button', { name: 'Open Units by day' }).click();
    await page.getByRole('heading', { level: 1, name: 'Units by day' }).waitFor();
    await expect.poll(() => page.locator('[data-result] tbody tr').count()).toBeGreaterThan(100);
    await shoot(page, 'ins-saved-report-run-en');
  }, 60_000);

  it('creating a schedule shows it in the list with its cadence and next run', async () => {
    await page.getByRole('link', { name: 'Schedules', exact: true }).click();
    await page.getByRole('button', { name: 'New schedule' }).click();
    const form = page.locator('[data-schedule-form]');
    await form.getByRole('textbox', { name: 'Name' }).fill('Monday units');
    await form.getByRole('combobox', { name: 'Frequency' }).selectOption('weekly');
    await form.getByRole('combobox', { name: 'Day of the week' }).selectOption('monday');
    await form.getByRole('textbox', { name: 'Email recipients' }).fill('owner@example.com, finance@example.com');
    await expectAccessible(page, 'schedule form (en)');
    const created = page.waitForResponse(
      (response) => response.url().endsWith('/admin/insights/schedules') && response.request().method() === 'POST',
    );
    await form.getByRole('button', { name: 'Save' }).click();
    expect((await created).status()).toBe(201);
    const row = page.locator('[data-schedule="Monday units"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('Every Monday at 08:00');
    expect(await row.textContent()).toContain('Units by day');
    await row.getByRole('button', { name: 'Deliveries of Monday units' }).click();
    await page.locator('[data-deliveries]').getByText('No deliveries yet.').waitFor();
    await expectAccessible(page, 'schedules (en)');
    await shoot(page, 'ins-schedules-en');
  }, 60_000);

  it('the settings page loads and saves', async () => {
    await page.getByRole('link', { name: 'Insights settings' }).click();
    await page.getByRole('combobox', { name: 'Weeks start on' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Time zone' }).inputValue()).toMatch(/\//);
    await page.getByRole('combobox', { name: 'Weeks start on' }).selectOption('monday');
    const patched = page.waitForRequest((request) => request.url().endsWith('/admin/insights/settings') && request.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await patched).postDataJSON()).toMatchObject({ weekStartsOn: 'monday' });
    await page.getByText('Settings saved.').waitFor();
    await expectAccessible(page, 'settings (en)');
    await shoot(page, 'ins-settings-en');
  }, 60_000);

  it('the exports page lists the export with its download', async () => {
    await page.getByRole('link', { name: 'Exports', exact: true }).click();
    await page.locator('[data-export][data-status="succeeded"]').first().waitFor();
    expect(await page.getByRole('link', { name: /^Download / }).count()).toBeGreaterThan(0);
    await expectAccessible(page, 'exports (en)');
    await shoot(page, 'ins-exports-en');
  }, 60_000);

  it('a report filter, found through the value search, changes the request and the chart', async () => {
    await page.getByRole('link', { name: 'Sales by product' }).click();
    await page.locator('.panel canvas').first().waitFor();
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThan(1);
    await page.getByRole('combobox', { name: 'Filter by' }).selectOption('product');
    const first = page.locator('tbody tr').first().locator('td').first();
    const name = (await first.textContent())!.trim();
    const searched = page.waitForResponse(
      (response) => response.url().includes('/admin/insights/dimensions/product/values') && response.url().includes('q='),
    );
    await page.getByRole('combobox', { name: 'Value' }).fill(name.slice(0, 4));
    expect((await searched).status()).toBe(200);
    const value = await page.locator('#report-filter-values option').first().getAttribute('value');
    expect(value).toBeTruthy();
    await page.getByRole('combobox', { name: 'Value' }).fill(value!);
    const filtered = page.waitForRequest(
      (request) =>
        request.url().includes('/reports/products') && request.url().includes(`filter%5B%5D=product%3A${encodeURIComponent(value!)}`),
    );
    await page.getByRole('button', { name: 'Add filter' }).click();
    await filtered;
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.locator('.panel canvas').first().waitFor();
    // The chip names the product, not its id.
    expect(await page.locator('.ins-chips').textContent()).toContain(name);
    expect(page.url()).toContain('filter=product');
    await expectAccessible(page, 'filtered report (en)');
    await shoot(page, 'ins-report-filter-en');
    // The filtered report, exported from its page.
    const exported = page.waitForRequest((request) => request.url().endsWith('/admin/insights/exports') && request.method() === 'POST');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    expect((await exported).postDataJSON()).toMatchObject({
      source: { report: 'products', params: { filters: [`product:${value}`] } },
      format: 'csv',
    });
    await page.locator('.ins-export[data-status="succeeded"] [data-download]').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: /^Remove filter / }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThan(1);
    // The language switch is still the one control named Language on a report page.
    expect(await page.getByLabel('Language').count()).toBe(1);
  }, 90_000);

  it('in Arabic the Insights pages are right to left with Arabic labels', async () => {
    await page.getByRole('combobox', { name: 'Language', exact: true }).selectOption('ar');
    await expect.poll(() => page.evaluate(() => [document.documentElement.dir, document.documentElement.lang])).toEqual(['rtl', 'ar']);
    for (const [link, shot] of [
      ['منشئ التقارير', 'ins-builder-ar'],
      ['التقارير المحفوظة', 'ins-saved-reports-ar'],
      ['الجداول الزمنية', 'ins-schedules-ar'],
      ['التصديرات', 'ins-exports-ar'],
      ['إعدادات التحليلات', 'ins-settings-ar'],
    ]) {
      await page.getByRole('link', { name: link }).click();
      await page.getByRole('heading', { level: 1, name: link }).waitFor();
      await page
        .locator('[role="status"]')
        .filter({ hasText: 'جارٍ' })
        .waitFor({ state: 'detached' })
        .catch(() => undefined);
      await page.locator('section[data-page] table, section[data-page] form').first().waitFor();
      await expectAccessible(page, `${shot}`);
      await shoot(page, shot);
    }
    await page.getByRole('combobox', { name: 'اللغة', exact: true }).selectOption('en');
  }, 60_000);

  it('a support session sees the Insights pages without write controls', async () => {
    const support = await supportSession(t.app, store.storeId);
    const supportContext = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    await supportContext.addCookies([
      { name: 'adm_access', value: support.token, url: `${base}/admin`, httpOnly: true, secure: true, sameSite: 'Strict' },
    ]);
    const supportPage = await supportContext.newPage();
    await supportPage.goto(`${base}/admin/app/insights/saved-reports`);
    await supportPage.locator('[data-saved-report="Units by day"]').waitFor();
    await supportPage.goto(`${base}/admin/app/insights/builder`);
    await supportPage.getByRole('button', { name: 'Run' }).waitFor();
    await supportPage.goto(`${base}/admin/app/insights/schedules`);
    await supportPage.locator('[data-schedule="Monday units"]').waitFor();
    expect(await supportPage.locator('[data-write]').count()).toBe(0);
    await supportPage.goto(`${base}/admin/app/insights/settings`);
    await supportPage.getByRole('combobox', { name: 'Weeks start on' }).waitFor();
    expect(await supportPage.locator('[data-write]').count()).toBe(0);
    await expectAccessible(supportPage, 'support settings (en)');
    await shoot(supportPage, 'ins-support-settings-en');
    await supportContext.close();
  }, 60_000);
});
