import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTS } from '../../dashboard/src/lib/reports.js';
import { DemoStoreService } from '../../src/demo/demo-store.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { ROOT } from '../support/build.js';
import { addStaff, type TestStaff } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { buildDashboard, expectAccessible, launchChromium, shoot } from './browser.js';

/**
 * The figures a merchant reads on the Insights pages (issue 25), in Chromium on a store with the demo's
 * orders (2,000, as `npm start` seeds): headline figures inside their cards at 1024, 1440 and 1920 px in
 * English and Arabic (compact where the full figure does not fit, the full one on hover); changes in
 * percentage points for ratios and in percent otherwise, coloured by each measure's `direction`; the
 * cohorts' whole triangle with a figure in each cell, a legend with values and months as names; every
 * chart naming its measure and its axes; "Never sold"; no comparison or grain where nothing is compared
 * or shown over time, no pager without a second page. Screenshots (ins-*) under test-results/dashboard/.
 */
const BUILD_DIR = join(ROOT, '.data', `test-dashboard-figures-${randomBytes(4).toString('hex')}`);
const WIDTHS = [1024, 1440, 1920];

// The page's globals, in the functions evaluated in the browser (the service's tsconfig has no DOM library).
declare const document: any;
declare const NodeFilter: any;

interface Column {
  name: string;
  kind: 'dimension' | 'measure';
  type: string;
  label_en: string;
  label_ar: string;
  direction?: 'higher_is_better' | 'lower_is_better' | 'neutral';
}
interface Answer {
  columns: Column[];
  totals: Record<string, number | null>;
  compareTotals: Record<string, number | null> | null;
  rows: Record<string, unknown>[];
  nextCursor: string | null;
  range: { from: string; to: string; grain: string };
}

/** What of a card's content lies outside it: each text's and each element's box, and a figure wider than its box. */
const overflowOf = (target: Page) =>
  target.evaluate(() => {
    const outside: string[] = [];
    for (const card of document.querySelectorAll('.card')) {
      const box = card.getBoundingClientRect();
      const out = (rect: { left: number; right: number; top: number; bottom: number }) =>
        rect.left < box.left - 0.5 || rect.right > box.right + 0.5 || rect.top < box.top - 0.5 || rect.bottom > box.bottom + 0.5;
      const texts = document.createTreeWalker(card, NodeFilter.SHOW_TEXT);
      for (let text = texts.nextNode(); text; text = texts.nextNode()) {
        if (text.parentElement.closest('.visually-hidden') || !text.textContent.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(text);
        if (out(range.getBoundingClientRect())) outside.push(`${card.dataset.measure}: “${text.textContent}”`);
      }
      for (const element of card.querySelectorAll('h3, p, canvas')) {
        if (out(element.getBoundingClientRect())) outside.push(`${card.dataset.measure}: <${element.localName}>`);
      }
      const figure = card.querySelector('.figure');
      if (figure.scrollWidth > figure.clientWidth)
        outside.push(`${card.dataset.measure}: figure ${figure.scrollWidth} > ${figure.clientWidth}`);
    }
    return outside;
  });

/**
 * The ECharts option a chart is drawn with (its functions left out), read through the page's own ECharts
 * module: the same module record, so the same instances. A string, kept out of Vitest's transform of `import()`.
 */
const chartOption = (target: Page, selector: string): Promise<any> =>
  target.evaluate(`(async () => {
    const url = performance.getEntriesByType('resource').map((entry) => entry.name).find((name) => /\\/assets\\/echarts-[\\w-]+\\.js$/.test(name));
    const { echarts } = await import(url);
    return JSON.parse(JSON.stringify(echarts.getInstanceByDom(document.querySelector(${JSON.stringify(selector)})).getOption()));
  })()`);

describe('the figures of the Insights pages in a browser, on the demo’s orders', { timeout: 240_000 }, () => {
  const t = useTestApp({ DASHBOARD_DIR: BUILD_DIR });
  let base: string;
  let storeId: string;
  let owner: TestStaff;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  /** The page at `path` (under /admin/app/), and the answer of the report it asks for. */
  const open = async (path: string, report: string): Promise<Answer> => {
    const answered = page.waitForResponse(
      (response) => response.url().includes(`/admin/insights/reports/${report}?`) && response.request().method() === 'GET',
    );
    await page.goto(`${base}/admin/app/${path}`);
    const response = await answered;
    expect(response.status(), await response.text()).toBe(200);
    return (await response.json()) as Answer;
  };
  const language = async (lang: 'en' | 'ar') => {
    const select = page.getByRole('combobox', { name: lang === 'ar' ? 'Language' : 'اللغة', exact: true });
    await select.selectOption(lang);
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe(lang);
  };

  beforeAll(async () => {
    const building = buildDashboard(BUILD_DIR);
    storeId = (await t.store({ name: 'Figures Store' })).storeId;
    await t.app.get(DemoStoreService).seed(storeId, { orders: 2000 });
    await t.app.get(StoreService).setPlan(storeId, 'pro');
    owner = await addStaff(t.app, storeId, 'owner', { name: 'Olivia Owner' });
    await building;
    base = (await t.listen()).replace('127.0.0.1', 'localhost');
    browser = await launchChromium();
    context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
    await page.goto(`${base}/admin/?store=${storeId}`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.card .figure').first().waitFor();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await rm(BUILD_DIR, { recursive: true, force: true });
  });

  it('headline figures stay inside their cards at 1024, 1440 and 1920 px in English and Arabic, compact where the full one does not fit', async () => {
    const money = (minor: number) => new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'SAR' }).format(minor / 100);
    for (const lang of ['en', 'ar'] as const) {
      for (const last of ['30', '365']) {
        const answer = await open(`insights/overview?last=${last}`, 'overview');
        if (lang !== 'en') await language(lang);
        await expect.poll(() => page.locator('.card .figure').count()).toBe(6);
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 900 });
          await expect.poll(() => overflowOf(page), { timeout: 3_000 }).toEqual([]);
          if (last === '30') await shoot(page, `ins-headlines-${lang}-${width}`);
        }
        // A year of the demo's net sales (near a million riyals, however many days the demo's history ends before
        // today) does not fit a card at 1024 px in English: compact, the full figure on hover. Arabic's full figure is
        // shorter, and some days fits: in full then, and nothing overflows either way (above).
        if (last === '365') {
          await page.setViewportSize({ width: 1024, height: 900 });
          await page.evaluate(() => document.fonts.ready);
          const netSales = page.locator('[data-measure="net_sales"] .figure');
          // The card measures its figure again as fonts and the language settle: judge it once it holds still.
          const settled = async () => {
            const before = await netSales.getAttribute('data-compact');
            await page.waitForTimeout(300);
            const after = await netSales.getAttribute('data-compact');
            const hidden = await netSales.locator('.visually-hidden').count();
            return before === after && (after === null) === (hidden === 0) ? 'settled' : 'changing';
          };
          await expect.poll(settled, { timeout: 10_000 }).toBe('settled');
          if (lang === 'en') await expect.poll(() => netSales.getAttribute('data-compact')).not.toBeNull();
          else if ((await netSales.getAttribute('data-compact')) === null) {
            expect(await netSales.getAttribute('title')).toBeFalsy();
            await language('en');
            continue;
          }
          const full = (await netSales.getAttribute('title'))!;
          expect(await netSales.locator('.visually-hidden').textContent()).toBe(full);
          expect((await netSales.locator('[aria-hidden="true"]').textContent())!.length).toBeLessThan(full.length);
          if (lang === 'en') expect(full).toBe(money(answer.totals.net_sales!));
          await expectAccessible(page, `headline figures, compact (${lang})`);
        }
        if (lang !== 'en') await language('en');
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('a ratio’s change is in percentage points, a count’s or money’s in percent, coloured by each measure’s direction', async () => {
    const signed = (lang: string) => new Intl.NumberFormat(lang, { maximumFractionDigits: 1, signDisplay: 'exceptZero' });
    const percent = new Intl.NumberFormat('en-GB', { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' });
    const rate = new Intl.NumberFormat('en-GB', { style: 'percent', maximumFractionDigits: 1 });
    const toneOf = (column: Column, now: number, before: number) =>
      now === before || column.direction === 'neutral'
        ? 'none'
        : now > before === (column.direction === 'higher_is_better')
          ? 'good'
          : 'bad';
    const overview = await open('insights/overview?last=30&compare=previous_period', 'overview');
    const ratio = overview.columns.find((column) => column.name === 'returning_customer_rate')!;
    const [now, before] = [overview.totals[ratio.name]!, overview.compareTotals![ratio.name]!];
    const delta = page.locator(`[data-measure="${ratio.name}"] .delta`);
    await expect.poll(() => delta.textContent()).toBe(`${signed('en-GB').format((now - before) * 100)} pt vs ${rate.format(before)}`);
    expect(await delta.getAttribute('data-tone')).toBe(toneOf(ratio, now, before));
    const orders = overview.columns.find((column) => column.name === 'orders')!;
    expect(await page.locator('[data-measure="orders"] .delta').textContent()).toBe(
      `${percent.format((overview.totals.orders! - overview.compareTotals!.orders!) / overview.compareTotals!.orders!)} vs ${overview.compareTotals!.orders!.toLocaleString('en-GB')}`,
    );
    expect(orders.direction).toBe('higher_is_better');
    await language('ar');
    await expect.poll(() => delta.textContent()).toContain('نقطة');
    await shoot(page, 'ins-overview-compared-ar');
    await language('en');
    await shoot(page, 'ins-overview-compared-en');

    // Taxes: a neutral measure (taxes) has no colour whichever way it moves; taxes refunded rising is bad news.
    const tax = await open('insights/reports/tax?last=90&compare=previous_period', 'tax');
    const totals = page.locator('.totals dl > div');
    await expect.poll(() => totals.count()).toBeGreaterThan(0);
    const measures = tax.columns.filter((column) => column.kind === 'measure' && column.name in tax.totals);
    expect(measures.map((column) => column.direction)).toContain('neutral');
    for (const column of measures) {
      const shown = totals.filter({ has: page.getByText(column.label_en, { exact: true }) }).locator('.delta');
      expect(await shown.getAttribute('data-tone'), column.name).toBe(
        toneOf(column, tax.totals[column.name]!, tax.compareTotals![column.name]!),
      );
    }
    await expectAccessible(page, 'taxes compared (en)');
    await shoot(page, 'ins-tax-compared-en');
  });

  it('cohorts: the whole triangle of the range, a figure in each cell, a legend with values, months as names; no comparison, grain or pager', async () => {
    const asked: string[] = [];
    const listen = (request: { url: () => string }) =>
      request.url().includes('/admin/insights/reports/cohorts') && asked.push(request.url());
    page.on('request', listen);
    // A comparison and a grain in the address (chosen on another page) are neither offered nor asked for here.
    const answer = await open('insights/reports/cohorts?last=365&compare=previous_period&grain=week', 'cohorts');
    page.off('request', listen);
    expect(asked, asked.join('\n')).toHaveLength(1);
    expect(asked[0]).not.toMatch(/[?&](compare|grain|limit)=/);
    expect(answer.nextCursor).toBeNull();
    const cohorts = [...new Set(answer.rows.map((row) => String(row.cohort)))].sort();
    expect(cohorts.length).toBeGreaterThanOrEqual(12);
    // Each cohort with every month from its first to the range's last.
    const monthOf = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7));
    expect(answer.rows.length).toBe(cohorts.reduce((cells, cohort) => cells + monthOf(answer.range.to) - monthOf(cohort) + 1, 0));
    const chart = page.locator('.chart[data-chart-kind="heatmap"]');
    await chart.locator('canvas').first().waitFor();
    const option = await chartOption(page, '.chart[data-chart-kind="heatmap"]');
    const month = new Intl.DateTimeFormat('en-GB', { month: 'short', year: 'numeric', timeZone: 'UTC' });
    expect(option.yAxis[0].data).toEqual(cohorts.map((cohort) => month.format(new Date(`${cohort.slice(0, 10)}T00:00:00Z`))));
    expect(option.yAxis[0].data[0]).toMatch(/^[A-Z][a-z]{2,3} \d{4}$/);
    expect(option.series[0].data).toHaveLength(answer.rows.length);
    expect(option.series[0].label.show).toBe(true);
    const label = (name: string) => answer.columns.find((column) => column.name === name)!.label_en;
    expect([option.xAxis[0].name, option.yAxis[0].name]).toEqual([label('months_since'), label('cohort')]);
    // The legend's steps, each with its values.
    const pieces = option.visualMap[0].pieces as { label: string }[];
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    for (const piece of pieces) expect(piece.label).toMatch(/\d+(\.\d)?%/);
    expect(option.visualMap[0].text).toEqual([label('retention_rate')]);
    await expect.poll(() => page.locator('[data-report="cohorts"] h2').first().textContent()).toContain(label('retention_rate'));
    expect(await page.getByRole('combobox', { name: 'Compare with' }).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: 'Shown by' }).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: 'Period' }).count()).toBe(1);
    // Its table: the whole triangle, paged here.
    expect(await page.locator('[data-report="cohorts"] tbody tr').count()).toBe(Math.min(100, answer.rows.length));
    // Its cohorts named as months there too.
    const firstCohort = String(answer.rows[0].cohort);
    expect(await page.locator('[data-report="cohorts"] tbody tr').first().locator('th, td').first().textContent()).toBe(
      month.format(new Date(`${firstCohort.slice(0, 10)}T00:00:00Z`)),
    );
    await expectAccessible(page, 'cohorts (en)');
    await shoot(page, 'ins-cohorts-en');

    await language('ar');
    await expect
      .poll(async () => (await chartOption(page, '.chart[data-chart-kind="heatmap"]')).yAxis[0].data[0])
      .toMatch(/^[\u0600-\u06FF]+ /);
    const arabic = await chartOption(page, '.chart[data-chart-kind="heatmap"]');
    expect(arabic.yAxis[0].data.join(' ')).not.toMatch(/[A-Za-z]/);
    expect(arabic.yAxis[0].name).toBe(answer.columns.find((column) => column.name === 'cohort')!.label_ar);
    await expectAccessible(page, 'cohorts (ar)');
    await shoot(page, 'ins-cohorts-ar');
    await language('en');
  });

  it('every chart names its measure and its axes', async () => {
    for (const report of REPORTS.filter((entry) => entry.chart !== 'table' && entry.name !== 'overview')) {
      const answer = await open(`insights/reports/${report.name}?last=365`, report.name);
      const panel = page.locator(`[data-report="${report.name}"] .panel`).first();
      await panel.locator('canvas').first().waitFor();
      const heading = (await panel.locator('h2').textContent())!;
      const measures = answer.columns.filter((column) => column.kind === 'measure').map((column) => column.label_en);
      expect(
        measures.some((measure) => heading.includes(measure)),
        `${report.name}: “${heading}” names none of ${measures.join(', ')}`,
      ).toBe(true);
      expect(await panel.getAttribute('aria-labelledby')).toBe(await panel.locator('h2').getAttribute('id'));
      const option = await chartOption(page, `[data-report="${report.name}"] .panel .chart`);
      if (report.chart === 'funnel') continue;
      for (const axis of [...option.xAxis, ...option.yAxis]) expect(axis.name, `${report.name}: an axis without a name`).toBeTruthy();
      if (report.chart === 'line') expect(option.xAxis[0].name).toBe({ day: 'Day', week: 'Week', month: 'Month' }[answer.range.grain]);
    }
    await page.goto(`${base}/admin/app/insights/overview`);
    await page.locator('.panel .chart canvas').waitFor();
    const trend = await chartOption(page, '.panel .chart');
    expect([trend.xAxis[0].name, trend.yAxis[0].name]).toEqual(['Day', 'Net sales']);
  });

  it('products not selling: “Never sold” for a product never sold, never “—” beside a day count; no comparison or grain', async () => {
    const answer = await open('insights/reports/not_selling?last=30&compare=previous_period&grain=week', 'not_selling');
    expect(answer.rows.some((row) => row.last_sold_on === null)).toBe(true);
    const rows = page.locator('[data-report="not_selling"] tbody tr');
    await expect.poll(() => rows.count()).toBe(answer.rows.length);
    const headers = await page.locator('[data-report="not_selling"] thead th').allTextContents();
    const [lastSold, days] = [headers.indexOf('Last sold'), headers.findIndex((header) => header.startsWith('Days since last sale'))];
    for (const [index, row] of answer.rows.entries()) {
      const cells = await rows.nth(index).locator('td').allTextContents();
      if (row.last_sold_on === null) expect([cells[lastSold], cells[days]]).toEqual(['Never sold', '—']);
      else expect(cells[days]).toMatch(/^\d[\d,]*$/);
      expect(cells[lastSold]).not.toBe('—');
    }
    expect(await page.getByRole('combobox', { name: 'Compare with' }).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: 'Shown by' }).count()).toBe(0);
    // More than a page of them: the pager is there.
    expect(answer.nextCursor).not.toBeNull();
    await page.getByRole('button', { name: 'Next page' }).waitFor();
    await expectAccessible(page, 'products not selling (en)');
    await shoot(page, 'ins-not-selling-en');
    await language('ar');
    await page.getByText('لم يُبع قط').first().waitFor();
    await shoot(page, 'ins-not-selling-ar');
    await language('en');

    // The funnel: one page of steps, no pager; no comparison or grain.
    await open('insights/reports/funnel?last=30', 'funnel');
    await page.locator('.chart[data-chart-kind="funnel"] canvas').waitFor();
    expect(await page.getByRole('button', { name: 'Next page' }).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: 'Rows per page' }).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: 'Compare with' }).count()).toBe(0);
    // A report over time keeps both.
    await open('insights/reports/late_orders?last=30', 'late_orders');
    await page.getByRole('combobox', { name: 'Compare with' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Shown by' }).count()).toBe(1);
  });
});
