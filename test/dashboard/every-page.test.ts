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
 * WCAG 2.1 AA rules, and is saved as `page-<name>-<lang>.png` under test-results/dashboard/. The same on a
 * 390 px phone (`page-<name>-<lang>-390.png`): the navigation folded behind the menu button, the page's own
 * content on the first screen, nothing wider than the screen but inside a frame that scrolls. The sign-in
 * page asks the service nothing it refuses; Arabic counts are grammatical and each member chooses the digits.
 */
const BUILD_DIR = join(ROOT, '.data', `test-dashboard-pages-${randomBytes(4).toString('hex')}`);

declare const document: {
  documentElement: { dir: string; lang: string };
  querySelector: (selector: string) => unknown;
};

/** A phone's width: the iPhone 12 to 15's 390 CSS pixels. */
const PHONE = { width: 390, height: 844 };

describe('every dashboard page in both languages', { timeout: 240_000 }, () => {
  const t = useTestApp({ DASHBOARD_DIR: BUILD_DIR });
  let base: string;
  let storeId: string;
  let owner: TestStaff;
  let analyst: TestStaff;
  let browser: Browser;
  const pages: [name: string, path: string][] = [];

  beforeAll(async () => {
    const building = buildDashboard(BUILD_DIR);
    storeId = (await t.store({ name: 'Every Page Store' })).storeId;
    await t.app.get(DemoStoreService).seed(storeId, { orders: 200, productCount: 30 });
    await t.app.get(StoreService).setPlan(storeId, 'pro');
    owner = await addStaff(t.app, storeId, 'owner', { name: 'Olivia Owner' });
    analyst = await addStaff(t.app, storeId, 'analyst', { name: 'Amal Analyst' });
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

  /** The requests of `page` the service refused (4xx) or failed (5xx) while `work` ran. */
  const refusedDuring = async (page: Page, work: () => Promise<unknown>) => {
    const refused: string[] = [];
    const listener = (response: { status(): number; url(): string }) => {
      if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
    };
    page.on('response', listener);
    await work();
    await page.waitForLoadState('networkidle');
    page.off('response', listener);
    return refused;
  };

  /** The sign-in form filled and sent; resolves once a page of the app shows. */
  const signIn = async (page: Page, staff: TestStaff) => {
    await page.locator('input[name="email"]').fill(staff.email);
    await page.locator('input[name="password"]').fill(staff.password);
    await page.locator('form button[type="submit"]').first().click();
    await page.locator('[data-page], section[aria-labelledby="page-title"]').first().waitFor();
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
      // A browser that has no session asks for none: no 401 on the way to the form (issue 25, item 14).
      const refused = await refusedDuring(page, async () => {
        await page.goto(`${base}/admin/?store=${storeId}`);
        await page.locator('input[name="email"]').waitFor();
      });
      expect(refused, 'requests the sign-in page made that were refused').toEqual([]);
      expect(await page.evaluate(() => document.documentElement.dir)).toBe(lang === 'ar' ? 'rtl' : 'ltr');
      await expectAccessible(page, `sign-in (${lang})`);
      await shoot(page, `page-sign-in-${lang}`);
      await signIn(page, owner);

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

    it(`every page fits a ${PHONE.width} px phone, its navigation behind the menu button (${lang})`, async () => {
      const context = await browser.newContext({ locale: lang === 'ar' ? 'ar-SA' : 'en-GB', viewport: PHONE });
      const page = await context.newPage();
      const failures: string[] = [];
      page.on('pageerror', (error) => failures.push(`${page.url()}: ${error.message}`));
      await page.goto(`${base}/admin/?store=${storeId}`);
      await page.locator('input[name="email"]').waitFor();
      expect(await fitsTheScreen(page), `sign-in (${lang}, phone)`).toEqual([]);
      await shoot(page, `page-sign-in-${lang}-${PHONE.width}`);
      await signIn(page, owner);
      const menu = page.locator('button[aria-controls="side-nav"]');
      for (const [name, path] of pages) {
        await page.goto(`${base}/admin/app${path}`);
        await page.locator('#page-title').waitFor({ timeout: 15_000 });
        await settled(page);
        const where = `${name} (${lang}, phone)`;
        await shoot(page, `page-${name}-${lang}-${PHONE.width}`);
        expect(await page.locator('.problem, [role="alert"]').allTextContents(), where).toEqual([]);
        expect(await page.locator('#side-nav').isVisible(), where).toBe(false);
        expect(await menu.getAttribute('aria-expanded'), where).toBe('false');
        // The page's own title is on the first screen, not below the navigation.
        const title = (await page.locator('#page-title').boundingBox())!;
        expect(title.y + title.height, where).toBeLessThan(PHONE.height / 2);
        expect(await fitsTheScreen(page), where).toEqual([]);
        await expectAccessible(page, where);
      }
      // The menu opens at the page's start with every section and the header's tools, and closes once a section is chosen.
      const language = page.locator('select[name="language"]');
      expect(await language.isVisible()).toBe(false);
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      const navigation = page.locator('#side-nav');
      expect(await navigation.isVisible()).toBe(true);
      expect(await language.isVisible()).toBe(true);
      expect(await fitsTheScreen(page)).toEqual([]);
      await expectAccessible(page, `menu (${lang}, phone)`);
      await shoot(page, `page-menu-${lang}-${PHONE.width}`);
      await navigation.getByRole('link', { name: lang === 'ar' ? 'التدفقات' : 'Flows', exact: true }).click();
      await page.waitForURL(/\/data-hub\/flows$/);
      await page.locator('[data-flow="Nightly stock"]').waitFor();
      expect(await navigation.isVisible()).toBe(false);
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(failures).toEqual([]);
      await context.close();
    });
  }

  it('a session whose access cookie expired is renewed through its refresh cookie, with no refused request', async () => {
    const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}/admin/?store=${storeId}`);
    await signIn(page, owner);
    await settled(page);
    // What the browser keeps once the 15-minute access and CSRF cookies have expired: the refresh cookie alone.
    await context.clearCookies({ name: 'adm_access' });
    await context.clearCookies({ name: 'adm_csrf' });
    const refused = await refusedDuring(page, async () => {
      await page.goto(`${base}/admin/app/data-hub/flows`);
      await page.locator('[data-flow="Nightly stock"]').waitFor();
    });
    expect(refused).toEqual([]);
    // Signed out, the sign-in page asks nothing either.
    const signedOut = await refusedDuring(page, async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.locator('input[name="email"]').waitFor();
      await page.reload();
      await page.locator('input[name="email"]').waitFor();
    });
    expect(signedOut).toEqual([]);
    await context.close();
  });

  it('Arabic counts take their plural forms; each member chooses Arabic-Indic or Western digits, remembered', async () => {
    const context = await browser.newContext({ locale: 'ar-SA', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}/admin/?store=${storeId}`);
    await signIn(page, owner);
    await page.goto(`${base}/admin/app/insights/overview?last=7`);
    const presets = () => page.locator('select[name="range"] option').allTextContents();
    await expect.poll(presets).toEqual(['آخر ٧ أيام', 'آخر ٣٠ يومًا', 'آخر ٩٠ يومًا', 'آخر ٣٦٥ يومًا', 'كل الفترات', 'تواريخ مخصّصة']);
    const figure = page.locator('[data-measure="net_sales"] .figure');
    await expect.poll(() => figure.textContent()).toMatch(/[٠-٩]/);
    const digits = page.getByRole('combobox', { name: 'الأرقام' });
    expect(await digits.inputValue()).toBe('arab');
    await digits.selectOption('latn');
    await expect.poll(presets).toEqual(['آخر 7 أيام', 'آخر 30 يومًا', 'آخر 90 يومًا', 'آخر 365 يومًا', 'كل الفترات', 'تواريخ مخصّصة']);
    await expect.poll(() => figure.textContent()).toMatch(/^[^٠-٩]*\d[^٠-٩]*$/);
    await shoot(page, 'page-overview-ar-latn');
    // Remembered: after a reload, and for this member only.
    await page.reload();
    await expect.poll(presets).toContain('آخر 7 أيام');
    await page.getByRole('button', { name: 'تسجيل الخروج' }).click();
    await signIn(page, analyst);
    await page.goto(`${base}/admin/app/insights/overview?last=7`);
    await expect.poll(presets).toContain('آخر ٧ أيام');
    expect(await page.getByRole('combobox', { name: 'الأرقام' }).inputValue()).toBe('arab');
    // English pages write Western digits and offer no choice.
    await page.getByRole('combobox', { name: 'اللغة', exact: true }).selectOption('en');
    await expect.poll(presets).toContain('Last 7 days');
    expect(await page.getByRole('combobox', { name: 'Digits' }).count()).toBe(0);
    await context.close();
  });
});

/**
 * What does not fit the screen's width: the document scrolling sideways, or a table frame, chart or
 * headline card running past the screen's edges or past its own box. Empty when everything fits.
 */
async function fitsTheScreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = document as unknown as {
      documentElement: { scrollWidth: number; clientWidth: number };
      querySelectorAll(selector: string): Iterable<{
        className: string;
        scrollWidth: number;
        clientWidth: number;
        getBoundingClientRect(): { left: number; right: number };
      }>;
    };
    const width = doc.documentElement.clientWidth;
    const problems: string[] = [];
    if (doc.documentElement.scrollWidth > width) problems.push(`the page is ${doc.documentElement.scrollWidth} px wide`);
    for (const element of doc.querySelectorAll('.table-wrap, .chart, canvas, .card, .card .figure, form, .panel')) {
      const box = element.getBoundingClientRect();
      if (box.left < -0.5 || box.right > width + 0.5) problems.push(`${element.className || 'canvas'} spans ${box.left}–${box.right} px`);
      if (element.className.includes('card') || element.className === 'figure')
        if (element.scrollWidth > element.clientWidth) problems.push(`${element.className} overflows its box`);
    }
    return problems;
  });
}
