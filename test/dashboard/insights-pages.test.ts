import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import type { TrackedJob } from '../../src/infra/jobs/tracked-job.js';
import { ExportsService } from '../../src/insights/exports/exports.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { ROOT } from '../support/build.js';
import { addStaff, adminCall, staffToken, supportSession, type TestStaff } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ok } from '../support/responses.js';
import { buildDashboard, expectAccessible, launchChromium, shoot } from './browser.js';

/**
 * The dashboard's Insights tools (issue 13) in Chromium against the real service on a seeded store: the
 * builder's row-limit refusal offers an export that downloads a CSV, its answer paged and sorted, saved
 * reports paged with the API's cursor and reopened in the builder, schedules by email and to a data hub
 * connection with Deliver now, the settings, the exports polled, a report filter, the funnel chart,
 * Arabic right to left, a member without the data hub's permission, a support session without write
 * controls; axe-core on each state and screenshots (ins-*) under test-results/dashboard/.
 */
const RUN = randomBytes(4).toString('hex');
const BUILD_DIR = join(ROOT, '.data', `test-dashboard-ins-${RUN}`);
const DATA_DIR = join(ROOT, '.data', `test-dashboard-ins-data-${RUN}`);

declare const document: { documentElement: { dir: string; lang: string } };
const VIEWPORT = { width: 1280, height: 900 };

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
  let token: string;
  /** The owner's call to the API (bearer), expecting `status`: its JSON body. */
  const call = async (method: string, url: string, body?: unknown, status = 200) =>
    ok(await adminCall(t.app, method, url, token, body), status);
  const remove = async (url: string) => expect((await adminCall(t.app, 'DELETE', url, token)).statusCode).toBe(204);
  /** A new browser context signed in as `staff`, on the overview. */
  const signedIn = async (staff: TestStaff) => {
    const staffContext = await browser.newContext({ locale: 'en-GB', viewport: VIEWPORT });
    const staffPage = await staffContext.newPage();
    await staffPage.goto(`${base}/admin/?store=${store.storeId}`);
    await staffPage.getByLabel('Email').fill(staff.email);
    await staffPage.getByLabel('Password').fill(staff.password);
    await staffPage.getByRole('button', { name: 'Sign in' }).click();
    await staffPage.locator('.card .figure').first().waitFor();
    return { staffContext, staffPage };
  };

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
    token = await staffToken(t.app, owner);
    await building;
    base = (await t.listen()).replace('127.0.0.1', 'localhost');
    browser = await launchChromium();
    context = await browser.newContext({ locale: 'en-GB', viewport: VIEWPORT, acceptDownloads: true });
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

  it('a builder answer pages through every row it holds and sorts by a measure; saving it lists it among the saved reports', async () => {
    await page.getByRole('combobox', { name: 'Dimension 2' }).selectOption('');
    const answered = page.waitForResponse((response) => response.url().endsWith('/admin/insights/builder/run'));
    await page.getByRole('button', { name: 'Run' }).click();
    const answer = (await (await answered).json()) as { rows: { units_sold: number }[] };
    expect(answer.rows.length).toBeGreaterThan(250);
    await page.locator('[data-result] .panel canvas').waitFor();
    const result = page.locator('[data-result]');
    const shown = result.locator('tbody tr');
    await expect.poll(() => shown.count()).toBe(100);
    // Page after page, every row the answer holds, and no more.
    let seen = 100;
    const next = result.getByRole('button', { name: 'Next page' });
    for (let number = 2; await next.isEnabled(); number++) {
      await next.click();
      await result.getByText(`Page ${number}`, { exact: true }).waitFor();
      seen += await shown.count();
    }
    expect(seen).toBe(answer.rows.length);
    expect(await shown.count()).toBe(answer.rows.length % 100 || 100);
    await expectAccessible(page, 'builder result, last page (en)');
    // Sorted here by a measure header, largest first then smallest first, from the first page again.
    const units = answer.rows.map((row) => row.units_sold);
    await result.getByRole('button', { name: 'Sort by Units sold' }).click();
    await expect.poll(() => result.locator('th[aria-sort="descending"]').count()).toBe(1);
    await result.getByText('Page 1', { exact: true }).waitFor();
    expect(await shown.first().locator('td').nth(1).textContent()).toBe(Math.max(...units).toLocaleString('en-GB'));
    await result.getByRole('button', { name: 'Sort by Units sold' }).click();
    await expect.poll(() => result.locator('th[aria-sort="ascending"]').count()).toBe(1);
    expect(await shown.first().locator('td').nth(1).textContent()).toBe(Math.min(...units).toLocaleString('en-GB'));
    await expectAccessible(page, 'builder result, sorted (en)');
    await shoot(page, 'ins-builder-sorted-en');

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
    await expect.poll(() => page.locator('[data-result] tbody tr').count()).toBe(100);
    expect(await page.locator('[data-result]').getByRole('button', { name: 'Next page' }).isEnabled()).toBe(true);
    await shoot(page, 'ins-saved-report-run-en');
  }, 90_000);

  it('the saved reports list pages with the API’s cursor rather than stopping at one page', async () => {
    const extra: string[] = [];
    for (let index = 0; index < 26; index++) {
      const body = { name: `Paged ${String(index).padStart(2, '0')}`, definition: { report: 'products', params: { last: 30 } } };
      extra.push((await call('POST', '/admin/insights/saved-reports', body, 201)).id);
    }
    try {
      const first = page.waitForRequest((request) => request.url().includes('/admin/insights/saved-reports?limit=25'));
      await page.getByRole('link', { name: 'Saved reports', exact: true }).click();
      await first;
      const rows = page.locator('[data-page="saved-reports"] tbody tr');
      await page.locator('[data-saved-report="Paged 25"]').waitFor();
      expect(await rows.count()).toBe(25);
      const second = page.waitForRequest((request) => /\/admin\/insights\/saved-reports\?limit=25&cursor=./.test(request.url()));
      await page.getByRole('button', { name: 'Next page' }).click();
      await second;
      // 27 in all: the two oldest on the second page.
      await page.locator('[data-saved-report="Units by day"]').waitFor();
      await page.getByText('Page 2', { exact: true }).waitFor();
      expect(await rows.count()).toBe(2);
      expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
      await expectAccessible(page, 'saved reports, page 2 (en)');
      await shoot(page, 'ins-saved-reports-page-2-en');
      await page.getByRole('button', { name: 'Previous page' }).click();
      await page.locator('[data-saved-report="Paged 25"]').waitFor();
    } finally {
      for (const id of extra) await remove(`/admin/insights/saved-reports/${id}`);
    }
  }, 60_000);

  it('a saved builder report opens in the builder filled in, and saves back (PATCH) or as a copy under a new name', async () => {
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const [from, to] = [day(90), day(2)];
    const top = await call('GET', `/admin/insights/reports/products?from=${from}&to=${to}&sort=-units_sold&limit=1`);
    const product = String(top.rows[0].product);
    const builder = {
      measures: ['units_sold', 'gross_sales'],
      dimensions: ['product'],
      filters: [{ dimension: 'product', op: 'in', values: [product] }],
      from,
      to,
      compare: 'previous_period',
      sort: '-units_sold',
      limit: 10,
    };
    const saved = await call('POST', '/admin/insights/saved-reports', { name: 'Top product', definition: { builder } }, 201);

    // From another page: the list is read again.
    await page.getByRole('link', { name: 'Report builder' }).click();
    await page.getByRole('link', { name: 'Saved reports', exact: true }).click();
    await page.getByRole('button', { name: 'Edit Top product in the builder' }).click();
    await page.getByRole('heading', { level: 1, name: 'Report builder' }).waitFor();
    const address = new URL(page.url()).searchParams;
    expect([address.get('saved'), address.get('from'), address.get('to'), address.get('compare')]).toEqual([
      saved.id,
      from,
      to,
      'previous_period',
    ]);
    const units = page.getByRole('checkbox', { name: 'Units sold', exact: true });
    await units.waitFor();
    expect(await units.isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'Gross sales', exact: true }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'Net sales', exact: true }).isChecked()).toBe(false);
    expect(await page.getByRole('combobox', { name: 'Dimension 1' }).inputValue()).toBe('product');
    expect(await page.getByRole('combobox', { name: 'Dimension 2' }).inputValue()).toBe('');
    const filter = page.locator('[data-filter="0"]');
    expect(await filter.getByRole('combobox', { name: 'Filter by' }).inputValue()).toBe('product');
    expect(await filter.getByRole('combobox', { name: 'Condition' }).inputValue()).toBe('in');
    expect(await filter.getByRole('combobox', { name: 'Values (comma separated)' }).inputValue()).toBe(product);
    expect(await page.getByRole('combobox', { name: 'Sort', exact: true }).inputValue()).toBe('-units_sold');
    expect(await page.getByRole('spinbutton', { name: 'Top N rows (optional)' }).inputValue()).toBe('10');
    expect(await page.getByRole('combobox', { name: 'Period' }).inputValue()).toBe('custom');
    expect([
      await page.getByLabel('From', { exact: true }).inputValue(),
      await page.getByLabel('To', { exact: true }).inputValue(),
    ]).toEqual([from, to]);
    expect(await page.getByRole('combobox', { name: 'Compare with' }).inputValue()).toBe('previous_period');
    expect(await page.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('Top product');
    // It runs as saved: the one product.
    await page.getByRole('button', { name: 'Run' }).click();
    await expect.poll(() => page.locator('[data-result] tbody tr').count()).toBe(1);
    await expectAccessible(page, 'saved report opened in the builder (en)');
    await shoot(page, 'ins-builder-opened-en');

    // Saved back: the same report, its definition replaced.
    await page.getByRole('checkbox', { name: 'Gross sales', exact: true }).uncheck();
    const patched = page.waitForRequest(
      (request) => request.method() === 'PATCH' && request.url().endsWith(`/admin/insights/saved-reports/${saved.id}`),
    );
    await page.getByRole('button', { name: 'Save changes to “Top product”' }).click();
    expect((await patched).postDataJSON()).toEqual({
      name: 'Top product',
      definition: { builder: { ...builder, measures: ['units_sold'] } },
    });
    await page.getByText('Saved changes to “Top product”.').waitFor();
    expect((await call('GET', `/admin/insights/saved-reports/${saved.id}`)).definition.builder.measures).toEqual(['units_sold']);

    // A copy needs a name of its own; then it is a new saved report, which the builder now saves to.
    await page.getByRole('button', { name: 'Save as a new report' }).click();
    await page.locator('[data-field-errors="name"]').getByText('Give the new report a name of its own.').waitFor();
    await expectAccessible(page, 'builder copy without a new name (en)');
    await page.getByRole('textbox', { name: 'Name' }).fill('Top product, last quarter');
    const copied = page.waitForResponse(
      (response) => response.url().endsWith('/admin/insights/saved-reports') && response.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Save as a new report' }).click();
    const copy = (await (await copied).json()) as { id: string; definition: unknown };
    expect(copy.definition).toEqual({ builder: { ...builder, measures: ['units_sold'] } });
    await page.getByText('Saved as “Top product, last quarter”.').waitFor();
    await page.getByRole('button', { name: 'Save changes to “Top product, last quarter”' }).waitFor();
    const names = (await call('GET', '/admin/insights/saved-reports?limit=100')).items.map((item: { name: string }) => item.name);
    expect(names).toEqual(expect.arrayContaining(['Top product', 'Top product, last quarter', 'Units by day']));
    await shoot(page, 'ins-builder-copy-en');
    await remove(`/admin/insights/saved-reports/${copy.id}`);
    await remove(`/admin/insights/saved-reports/${saved.id}`);
  }, 60_000);

  it('creating a schedule shows it in the list with its cadence and next run', async () => {
    await page.getByRole('link', { name: 'Schedules', exact: true }).click();
    await page.getByRole('button', { name: 'New schedule' }).click();
    const form = page.locator('[data-schedule-form]');
    await form.getByRole('combobox', { name: 'Saved report' }).selectOption({ label: 'Units by day' });
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

  it('a schedule to a data hub connection: its field errors beside the fields, skipEmpty kept, Deliver now writing the file', async () => {
    const drop = await call(
      'POST',
      '/admin/data-hub/connections',
      { name: 'Reports drop', kind: 'platform_drop', config: { prefix: 'reports' } },
      201,
    );
    await call('POST', `/admin/data-hub/connections/${drop.id}/test`);
    await call('POST', `/admin/data-hub/connections/${drop.id}/activate`);
    await page.getByRole('link', { name: 'Schedules', exact: true }).click();
    await page.locator('[data-schedule="Monday units"]').waitFor();
    await page.getByRole('button', { name: 'New schedule' }).click();
    const form = page.locator('[data-schedule-form]');
    await form.getByRole('combobox', { name: 'Saved report' }).selectOption({ label: 'Units by day' });
    await form.getByRole('textbox', { name: 'Name' }).fill('Daily drop');
    await form.getByRole('combobox', { name: 'Frequency' }).selectOption('daily');
    await form.getByRole('radio', { name: 'Data hub connection' }).check();
    const connection = form.getByRole('combobox', { name: 'Connection' });
    await expect.poll(() => connection.inputValue()).toBe(drop.id);
    expect(await connection.locator('option').allTextContents()).toEqual(['Reports drop · Active']);
    // A file name whose extension is not the format's: refused, and said beside the field.
    await form.getByRole('textbox', { name: 'File name' }).fill('units-{yyyy}{MM}{dd}.xlsx');
    const refused = page.waitForResponse(
      (response) => response.url().endsWith('/admin/insights/schedules') && response.request().method() === 'POST',
    );
    await form.getByRole('button', { name: 'Save' }).click();
    expect((await refused).status()).toBe(400);
    const fieldError = form.locator('[data-field-errors="destination.pathTemplate"]');
    expect(await fieldError.textContent()).toContain('.csv');
    const fileName = form.getByRole('textbox', { name: 'File name' });
    expect(await fileName.getAttribute('aria-invalid')).toBe('true');
    expect((await fileName.getAttribute('aria-describedby'))!.split(' ')).toContain(await fieldError.getAttribute('id'));
    await expectAccessible(page, 'schedule form, field error (en)');
    await shoot(page, 'ins-schedule-field-error-en');

    await form.getByRole('textbox', { name: 'File name' }).fill('units-{yyyy}{MM}{dd}.csv');
    await form.getByRole('checkbox', { name: 'Skip deliveries with no rows' }).check();
    const created = page.waitForResponse(
      (response) => response.url().endsWith('/admin/insights/schedules') && response.request().method() === 'POST',
    );
    await form.getByRole('button', { name: 'Save' }).click();
    const response = await created;
    expect(response.status()).toBe(201);
    expect(response.request().postDataJSON()).toMatchObject({
      destination: { kind: 'connection', connectionId: drop.id, pathTemplate: 'units-{yyyy}{MM}{dd}.csv' },
      skipEmpty: true,
    });
    const row = page.locator('[data-schedule="Daily drop"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('Reports drop: units-{yyyy}{MM}{dd}.csv');
    expect(await row.textContent()).toContain('skipped when empty');

    // Edited again: the form holds what was saved.
    await row.getByRole('button', { name: 'Edit' }).click();
    expect(await form.getByRole('checkbox', { name: 'Skip deliveries with no rows' }).isChecked()).toBe(true);
    expect(await form.getByRole('radio', { name: 'Data hub connection' }).isChecked()).toBe(true);
    expect(await form.getByRole('combobox', { name: 'Connection' }).inputValue()).toBe(drop.id);
    expect(await form.getByRole('textbox', { name: 'File name' }).inputValue()).toBe('units-{yyyy}{MM}{dd}.csv');
    expect(await form.getByRole('combobox', { name: 'Frequency' }).inputValue()).toBe('daily');
    await expectAccessible(page, 'schedule form, connection (en)');
    await shoot(page, 'ins-schedule-connection-en');
    await form.getByRole('button', { name: 'Cancel' }).click();

    // Deliver now: a delivery of its own, shown in the deliveries as it is written.
    const delivered = page.waitForResponse(
      (answer) => /\/admin\/insights\/schedules\/[\w-]+\/deliveries$/.test(answer.url()) && answer.request().method() === 'POST',
    );
    await row.getByRole('button', { name: 'Deliver Daily drop now' }).click();
    expect((await delivered).status()).toBe(202);
    const delivery = page.locator('[data-deliveries] tr[data-trigger="manual"]');
    await page.locator('[data-deliveries] tr[data-trigger="manual"][data-status="delivered"]').waitFor({ timeout: 60_000 });
    expect(await delivery.count()).toBe(1);
    expect(await delivery.textContent()).toMatch(/Deliver now.*Delivered.*Reports drop\/units-\d{8}\.csv/);
    // The schedule's last delivery follows, without reading the page again.
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('Delivered ·');
    const files = await call('GET', `/admin/data-hub/connections/${drop.id}/files`);
    expect(files.items.map((file: { name: string }) => file.name)).toEqual([expect.stringMatching(/^units-\d{8}\.csv$/)]);
    await expectAccessible(page, 'schedule delivered now (en)');
    await shoot(page, 'ins-schedule-delivered-en');
  }, 90_000);

  it('a member without data.flows.manage is offered email only, and saving a connection schedule leaves its destination', async () => {
    const analyst = await addStaff(t.app, store.storeId, 'analyst', { name: 'Ana Analyst' });
    const { staffContext, staffPage } = await signedIn(analyst);
    const connectionsAsked: string[] = [];
    staffPage.on('request', (request) => request.url().includes('/admin/data-hub/') && connectionsAsked.push(request.url()));
    await staffPage.goto(`${base}/admin/app/insights/schedules`);
    const row = staffPage.locator('[data-schedule="Daily drop"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('Data hub connection: units-{yyyy}{MM}{dd}.csv');
    // Sending its file now is writing into the connection: not offered (and refused by the API).
    expect(await row.getByRole('button', { name: /^Deliver .* now$/ }).count()).toBe(0);
    await staffPage.getByRole('button', { name: 'New schedule' }).click();
    const form = staffPage.locator('[data-schedule-form]');
    await form.getByRole('textbox', { name: 'Email recipients' }).waitFor();
    expect(await form.getByRole('radio').count()).toBe(0);
    await form.getByRole('button', { name: 'Cancel' }).click();
    await row.getByRole('button', { name: 'Edit' }).click();
    await form.getByText('This schedule writes to a data hub connection').waitFor();
    expect(await form.getByRole('combobox', { name: 'Connection' }).count()).toBe(0);
    await expectAccessible(staffPage, 'schedule form, connection locked (en)');
    await shoot(staffPage, 'ins-schedule-locked-en');
    const patched = staffPage.waitForResponse((response) => response.request().method() === 'PATCH');
    await form.getByRole('textbox', { name: 'Name' }).fill('Daily drop, renamed');
    await form.getByRole('button', { name: 'Save' }).click();
    const response = await patched;
    expect(response.status()).toBe(200);
    expect(response.request().postDataJSON()).toEqual({ name: 'Daily drop, renamed' });
    await staffPage.locator('[data-schedule="Daily drop, renamed"]').waitFor();
    expect(connectionsAsked).toEqual([]);
    await staffContext.close();
  }, 60_000);

  it('the settings page loads and saves: the time zone from the IANA list, the currency by its ISO 4217 name, an empty grace explained', async () => {
    const settings = await call('GET', '/admin/insights/settings');
    await page.getByRole('link', { name: 'Insights settings' }).click();
    await page.getByRole('combobox', { name: 'Weeks start on' }).waitFor();
    // Every IANA zone the browser knows, by region, each named with its offset; the store's chosen.
    const zone = page.getByRole('combobox', { name: 'Time zone' });
    expect(await zone.inputValue()).toBe(settings.timezone);
    const known = await page.evaluate(() =>
      (Intl as unknown as { supportedValuesOf: (key: string) => string[] }).supportedValuesOf('timeZone'),
    );
    expect(known.length).toBeGreaterThan(300);
    const offered = await zone
      .locator('option')
      .evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value));
    expect(offered).toEqual(expect.arrayContaining(known));
    expect(await zone.locator('optgroup').count()).toBeGreaterThan(5);
    // Ids and offsets isolated (U+2068…U+2069), so that they read in order in Arabic too.
    expect(await zone.locator('option[value="Asia/Riyadh"]').textContent()).toMatch(
      /^\u2068Asia\/Riyadh\u2069 — \u2068GMT\+03:00\u2069, .+/,
    );
    // The store's currency, named: set when the store was made, not changed here.
    const currency = page.getByRole('combobox', { name: 'Currency' });
    expect(await currency.inputValue()).toBe(settings.currency);
    expect(await currency.locator(`option[value="${settings.currency}"]`).textContent()).toBe(
      `\u2068${settings.currency}\u2069 — ${new Intl.DisplayNames(['en-GB'], { type: 'currency' }).of(settings.currency)}`,
    );
    expect(await currency.locator('option').count()).toBeGreaterThan(100);
    expect(await currency.isDisabled()).toBe(true);
    // What an empty grace means, said beside it.
    const grace = page.getByRole('spinbutton', { name: 'Grace before an order counts as late (hours)' });
    expect(await grace.getAttribute('placeholder')).toBe('0');
    const hint = page.locator(`#${(await grace.getAttribute('aria-describedby'))!.split(' ')[0]}`);
    expect(await hint.textContent()).toContain('Empty or 0: late as soon as the promised time passes.');
    await page.getByRole('combobox', { name: 'Weeks start on' }).selectOption('monday');
    const patched = page.waitForRequest((request) => request.url().endsWith('/admin/insights/settings') && request.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await patched).postDataJSON()).toMatchObject({ weekStartsOn: 'monday', timezone: settings.timezone });
    await page.getByText('Settings saved.').waitFor();
    await expectAccessible(page, 'settings (en)');
    await shoot(page, 'ins-settings-en');
  }, 60_000);

  it('the exports page lists the exports, reading them again while one is being written', async () => {
    // The export's job held back until the page has shown it queued.
    const exportJob = (t.app.get(ExportsService) as unknown as { job: TrackedJob }).job;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const run = exportJob.run.bind(exportJob);
    const holding = vi.spyOn(exportJob, 'run').mockImplementationOnce(async (id) => held.then(() => run(id)));
    try {
      const builder = { measures: ['units_sold'], dimensions: ['day'], last: 30 };
      const started = await call('POST', '/admin/insights/exports', { source: { builder }, format: 'csv' }, 202);
      await page.getByRole('link', { name: 'Exports', exact: true }).click();
      await page.locator(`[data-export="${started.id}"][data-status="queued"]`).waitFor();
      await expect.poll(() => holding.mock.calls.length).toBe(1);
      const readAgain = page.waitForRequest((request) => request.url().includes('/admin/insights/exports?limit=25'));
      await readAgain;
      release();
      await page.locator(`[data-export="${started.id}"][data-status="succeeded"]`).waitFor({ timeout: 30_000 });
    } finally {
      release();
      holding.mockRestore();
    }
    expect(await page.getByRole('link', { name: /^Download / }).count()).toBeGreaterThan(0);
    await expectAccessible(page, 'exports (en)');
    await shoot(page, 'ins-exports-en');
  }, 60_000);

  it('a report offers the filters its answer takes; a typed name is resolved through the values endpoint, and its chip names it', async () => {
    const answered = page.waitForResponse((response) => response.url().includes('/admin/insights/reports/products?'));
    await page.getByRole('link', { name: 'Sales by product' }).click();
    const products = (await (await answered).json()) as {
      filterable: string[];
      rows: { product: string; labels: { product: { en: string; ar: string } } }[];
    };
    await page.locator('.panel canvas').first().waitFor();
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThan(1);
    // The dimensions its answer says it can be filtered by, and no other.
    const dimension = page.getByRole('combobox', { name: 'Filter by' });
    const offered = await dimension
      .locator('option')
      .evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value));
    expect(offered.sort()).toEqual([...products.filterable].sort());
    await dimension.selectOption('product');
    const { product: id, labels } = products.rows[0];
    const name = labels.product.en;
    // Part of a name names no product: no filter, the products it is like offered instead.
    const value = page.getByRole('combobox', { name: 'Value' });
    const part = name.slice(0, 4);
    const searched = page.waitForResponse(
      (response) => response.url().includes('/admin/insights/dimensions/product/values') && response.url().includes(`q=${part}`),
    );
    await value.fill(part);
    expect((await searched).status()).toBe(200);
    const asked: string[] = [];
    const listen = (request: { url: () => string }) =>
      request.url().includes('/admin/insights/reports/products') && asked.push(request.url());
    page.on('request', listen);
    await page.getByRole('button', { name: 'Add filter' }).click();
    const choices = page.locator('[data-value-choices]');
    await choices.waitFor();
    page.off('request', listen);
    expect(await choices.locator('p').textContent()).toBe(`No value of Product is named “${part}”. Choose one of these:`);
    expect(await choices.getByRole('button', { name, exact: true }).count()).toBe(1);
    expect(asked).toEqual([]);
    expect(page.url()).not.toContain('filter=');
    expect(await page.locator('.ins-chips').count()).toBe(0);
    expect(await value.getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'report filter, a name that names none (en)');
    await shoot(page, 'ins-report-filter-choices-en');
    // The whole name, in another case: resolved to the product's id, and its chip names it.
    const filtered = page.waitForRequest(
      (request) => request.url().includes('/reports/products') && request.url().includes(`filter%5B%5D=product%3A${id}`),
    );
    await value.fill(name.toUpperCase());
    await page.getByRole('button', { name: 'Add filter' }).click();
    await filtered;
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.locator('.panel canvas').first().waitFor();
    const chip = page.locator('[data-filter-chip="product"] span');
    expect(await chip.textContent()).toBe(`Product: ${name}`);
    expect(new URL(page.url()).searchParams.getAll('filter')).toEqual([`product:${id}`]);
    await expectAccessible(page, 'filtered report (en)');
    await shoot(page, 'ins-report-filter-en');
    // Read again (a reload): still named, in either language.
    await page.reload();
    await expect.poll(() => chip.textContent()).toBe(`Product: ${name}`);
    await page.getByRole('combobox', { name: 'Language', exact: true }).selectOption('ar');
    await expect.poll(() => page.locator('[data-filter-chip="product"] span').textContent()).toBe(`المنتج: ${labels.product.ar}`);
    await expectAccessible(page, 'filtered report (ar)');
    await shoot(page, 'ins-report-filter-ar');
    await page.getByRole('combobox', { name: 'اللغة', exact: true }).selectOption('en');
    // The filtered report, exported from its page.
    const exported = page.waitForRequest((request) => request.url().endsWith('/admin/insights/exports') && request.method() === 'POST');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    expect((await exported).postDataJSON()).toMatchObject({
      source: { report: 'products', params: { filters: [`product:${id}`] } },
      format: 'csv',
    });
    await page.locator('.ins-export[data-status="succeeded"] [data-download]').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: /^Remove filter / }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThan(1);
    // The language switch is still the one control named Language on a report page.
    expect(await page.getByLabel('Language').count()).toBe(1);
  }, 90_000);

  it('a filter value the API cannot resolve: its message in the page’s language, and the values it suggests, one of which takes its place', async () => {
    const refused = page.waitForResponse((response) => response.url().includes('/admin/insights/reports/products?'));
    await page.goto(`${base}/admin/app/insights/reports/products?filter=category%3ASmartfonez`);
    const response = await refused;
    expect(response.status()).toBe(400);
    const body = (await response.json()) as {
      code: string;
      message_en: string;
      message_ar: string;
      suggestion: { message_en: string; values: { value: string; label_en: string }[] };
    };
    expect(body.code).toBe('unknown_dimension_value');
    expect(body.suggestion.values.length).toBeGreaterThan(0);
    const problem = page.locator('.problem[data-code="unknown_dimension_value"]');
    await expect.poll(() => problem.textContent()).toContain(body.message_en);
    expect(await problem.textContent()).toContain(body.suggestion.message_en);
    const chip = page.locator('[data-filter-chip="category"]');
    expect(await chip.getAttribute('data-invalid')).toBe('true');
    expect(await chip.locator('span').textContent()).toBe('Category: Smartfonez');
    const suggested = page.locator('#report-filter-suggested');
    expect(await suggested.getByRole('button').allTextContents()).toEqual(body.suggestion.values.map((choice) => choice.label_en));
    await expectAccessible(page, 'filter value refused (en)');
    await shoot(page, 'ins-report-filter-refused-en');
    await page.getByRole('combobox', { name: 'Language', exact: true }).selectOption('ar');
    await expect.poll(() => problem.textContent()).toContain(body.message_ar);
    await expectAccessible(page, 'filter value refused (ar)');
    await shoot(page, 'ins-report-filter-refused-ar');
    await page.getByRole('combobox', { name: 'اللغة', exact: true }).selectOption('en');

    const [choice] = body.suggestion.values;
    const answered = page.waitForResponse((answer) => answer.url().includes('/admin/insights/reports/products?'));
    await suggested.getByRole('button', { name: choice.label_en, exact: true }).click();
    expect((await answered).status()).toBe(200);
    expect(new URL(page.url()).searchParams.getAll('filter')).toEqual([`category:${choice.value}`]);
    await expect.poll(() => chip.locator('span').textContent()).toBe(`Category: ${choice.label_en}`);
    expect(await chip.getAttribute('data-invalid')).toBeNull();
    expect(await problem.count()).toBe(0);
  }, 60_000);

  it('a filter the report cannot take: the API’s message and its per-field error, in the page’s language; the funnel offers no filter', async () => {
    const refused = page.waitForResponse((response) => response.url().includes('/admin/insights/reports/funnel?'));
    await page.goto(`${base}/admin/app/insights/reports/funnel?filter=tax_rate%3A1500`);
    const response = await refused;
    expect(response.status()).toBe(400);
    const body = (await response.json()) as { message_en: string; errors: { field: string; message_en: string; message_ar: string }[] };
    expect(body.errors.map((error) => error.field)).toEqual(['filter[0]']);
    const problem = page.locator('.problem');
    await expect.poll(() => problem.textContent()).toContain(body.message_en);
    expect(await problem.locator('[data-field-errors] li').allTextContents()).toEqual([body.errors[0].message_en]);
    expect(await page.locator('[data-filter-chip="tax_rate"]').getAttribute('data-invalid')).toBe('true');
    expect(await page.getByRole('combobox', { name: 'Filter by' }).count()).toBe(0);
    await expectAccessible(page, 'filter refused (en)');
    await shoot(page, 'ins-report-filter-not-filterable-en');
    await page.getByRole('combobox', { name: 'Language', exact: true }).selectOption('ar');
    await expect.poll(() => problem.locator('[data-field-errors] li').allTextContents()).toEqual([body.errors[0].message_ar]);
    await shoot(page, 'ins-report-filter-not-filterable-ar');
    await page.getByRole('combobox', { name: 'اللغة', exact: true }).selectOption('en');
    // Without it: the funnel, which says it cannot be filtered.
    const answered = page.waitForResponse((answer) => answer.url().includes('/admin/insights/reports/funnel?'));
    await page.getByRole('button', { name: /^Remove filter / }).click();
    expect(((await (await answered).json()) as { filterable: string[] }).filterable).toEqual([]);
    await page.getByText('This report cannot be filtered.').waitFor();
    expect(await page.getByRole('combobox', { name: 'Filter by' }).count()).toBe(0);
  }, 60_000);

  it('the builder’s measures: every one in view, grouped by area, found by a search in either language', async () => {
    const catalogue = (await call('GET', '/admin/insights/measures')).items as { name: string; area: string; builder?: boolean }[];
    const builderMeasures = catalogue.filter((measure) => measure.builder !== false);
    await page.getByRole('link', { name: 'Report builder' }).click();
    const picker = page.locator('.ins-measures');
    await picker.getByRole('checkbox', { name: 'Net sales', exact: true }).waitFor();
    expect(await picker.getByRole('checkbox').count()).toBe(builderMeasures.length);
    const areas = {
      sales: 'Sales',
      products: 'Products',
      customers: 'Customers',
      fulfilment: 'Fulfilment',
      finance: 'Finance',
      behaviour: 'Behaviour',
    };
    expect(await picker.locator('fieldset.ins-measure-area > legend').allTextContents()).toEqual(
      [...new Set(builderMeasures.map((measure) => measure.area))].map((area) => areas[area as keyof typeof areas]),
    );
    // No box of its own to scroll: every measure is on the page.
    const scrolling = await picker.evaluate((root) =>
      [root, ...(root as unknown as { querySelectorAll: (css: string) => unknown[] }).querySelectorAll('*')]
        .map((element) => element as { scrollHeight: number; clientHeight: number; className: string })
        .filter((element) => element.scrollHeight > element.clientHeight + 1)
        .map((element) => element.className),
    );
    expect(scrolling).toEqual([]);
    await expectAccessible(page, 'builder measures (en)');
    await shoot(page, 'ins-builder-measures-en');
    // Found by a word of their names or descriptions, in English or in Arabic; the chosen one stays in view.
    const search = picker.getByRole('searchbox', { name: 'Find a measure' });
    await search.fill('return');
    await picker.getByRole('checkbox', { name: 'Return rate', exact: true }).waitFor();
    expect(await picker.getByRole('checkbox', { name: 'Orders', exact: true }).count()).toBe(0);
    expect(await picker.getByRole('checkbox', { name: 'Net sales', exact: true }).isChecked()).toBe(true);
    await search.fill('المرتجعات');
    await picker.getByRole('checkbox', { name: 'Returns', exact: true }).waitFor();
    expect(await picker.getByRole('checkbox', { name: 'Sessions', exact: true }).count()).toBe(0);
    await shoot(page, 'ins-builder-measures-search-en');
    await search.fill('');
    await expect.poll(() => picker.getByRole('checkbox').count()).toBe(builderMeasures.length);
  }, 60_000);

  it('the funnel report is drawn as a funnel whose steps tell their conversion', async () => {
    const answered = page.waitForResponse((response) => response.url().includes('/admin/insights/reports/funnel?'));
    await page.getByRole('link', { name: 'Conversion funnel' }).click();
    const funnel = (await (await answered).json()) as { rows: { step_sessions: number; step_conversion: number }[] };
    expect(funnel.rows).toHaveLength(5);
    expect(funnel.rows[1].step_sessions).toBeGreaterThan(0);
    const chart = page.locator('.chart[data-chart-kind="funnel"]');
    await chart.locator('canvas').waitFor();
    // The second step (a fifth of the funnel's height down), hovered: its sessions and its conversion.
    const box = (await chart.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.3, box.y + 8 + ((box.height - 16) / 5) * 1.5);
    await expect.poll(() => chart.textContent()).toContain('of the step before');
    const tooltip = (await chart.textContent())!;
    expect(tooltip).toContain('Viewed a product');
    expect(tooltip).toContain(`${funnel.rows[1].step_sessions.toLocaleString('en-GB')} sessions`);
    expect(tooltip).toContain('of all sessions');
    // The table holds the steps alone (the totals' columns are the totals'), in their fixed order: no sorting.
    expect(await page.locator('[data-report="funnel"] thead th').allTextContents()).toEqual([
      'Step',
      'Sessions',
      'From previous step',
      'From start',
    ]);
    expect(await page.getByRole('button', { name: /^Sort by/ }).count()).toBe(0);
    await expectAccessible(page, 'funnel (en)');
    await shoot(page, 'ins-funnel-en');
  }, 60_000);

  it('bars are named by every dimension of their row; two measures over time each read in their own unit; statuses in words', async () => {
    type Answer = {
      columns: { name: string; kind: string }[];
      rows: (Record<string, unknown> & { labels?: Record<string, { en: string }> })[];
    };
    // Fulfilment splits by fulfilment type and shipping method: "Delivery · Standard", not "Delivery" twice.
    const fulfilment = page.waitForResponse((response) => response.url().includes('/admin/insights/reports/fulfilment?'));
    await page.goto(`${base}/admin/app/insights/reports/fulfilment?last=365`);
    const answer = (await (await fulfilment).json()) as Answer;
    const dimensions = answer.columns.filter((column) => column.kind === 'dimension');
    expect(dimensions.length).toBe(2);
    const [first] = answer.rows;
    const named = dimensions.map((dimension) => first.labels?.[dimension.name]?.en ?? String(first[dimension.name])).join(' · ');
    const bars = page.locator('.chart[data-chart-kind="bar"]');
    await bars.locator('canvas').waitFor();
    const box = (await bars.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.6, box.y + 8 + (box.height - 40) / answer.rows.length / 2);
    await expect.poll(() => bars.textContent()).toContain(named);

    // Late orders: a count and a ratio over time; the tooltip gives each in its own unit (the rate as a percentage).
    const late = page.waitForResponse((response) => response.url().includes('/admin/insights/reports/late_orders?'));
    await page.goto(`${base}/admin/app/insights/reports/late_orders?last=365&grain=month`);
    const lateAnswer = (await (await late).json()) as Answer;
    const line = page.locator('.chart[data-chart-kind="line"]');
    await line.locator('canvas').waitFor();
    const lineBox = (await line.boundingBox())!;
    await page.mouse.move(lineBox.x + lineBox.width * 0.5, lineBox.y + lineBox.height * 0.5);
    await expect.poll(() => line.textContent()).toContain('On-time rate');
    expect(await line.textContent()).toMatch(/On-time rate\s*[\d.]+%/);
    // Each late order's status in words.
    expect(lateAnswer.rows.length).toBeGreaterThan(0);
    const statuses = await page.locator('[data-report="late_orders"] tbody tr td:nth-child(5)').allTextContents();
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.map((status) => status.trim())).toEqual(lateAnswer.rows.slice(0, statuses.length).map((row) => row.labels?.status?.en));
    expect(statuses.every((status) => /^[A-Z][a-z]/.test(status))).toBe(true);
    await shoot(page, 'ins-late-orders-en');
  }, 60_000);

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
    await page.getByRole('link', { name: 'مسار التحويل' }).click();
    await page.locator('.chart[data-chart-kind="funnel"][dir="rtl"] canvas').waitFor();
    await expectAccessible(page, 'ins-funnel-ar');
    await shoot(page, 'ins-funnel-ar');
    await page.getByRole('combobox', { name: 'اللغة', exact: true }).selectOption('en');
  }, 60_000);

  it('a support session sees the Insights pages without write controls', async () => {
    const support = await supportSession(t.app, store.storeId);
    const supportContext = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    const supportPage = await supportContext.newPage();
    // As the agent opens it: the token pasted on the sign-in page (POST /admin/auth/support-session sets the cookies).
    await supportPage.goto(`${base}/admin/?store=${store.storeId}`);
    await supportPage.getByLabel('Support access token').fill(support.token);
    await supportPage.getByRole('button', { name: 'Open the support session' }).click();
    await supportPage.locator('.card .figure').first().waitFor();
    await supportPage.goto(`${base}/admin/app/insights/saved-reports`);
    await supportPage.locator('[data-saved-report="Units by day"]').waitFor();
    expect(await supportPage.locator('[data-write]').count()).toBe(0);
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
