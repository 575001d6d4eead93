import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { ROOT } from '../support/build.js';
import { addStaff, adminCall, staffToken, supportSession, type TestStaff } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ok } from '../support/responses.js';
import { startSshd, type SshdPeer } from '../support/peers/sshd.js';
import { activeDrop, HUB, stockMapping } from '../data-hub/hub-fixtures.js';
import { buildDashboard, expectAccessible, launchChromium, shoot } from './browser.js';

/**
 * The dashboard's data hub pages (issue 13) in Chromium against the real service: a platform drop
 * connection tested and activated; an SFTP connection refused per field, whose test fails with its
 * reason, then passes against a real sshd with the pinned host key shown; a stock file uploaded into
 * the drop through its page; a mapping built in the editor (mapping_invalid shown per field, versions
 * and restore); a flow refused per field, then its preview of the uploaded file with the rejected rows
 * and their reasons; a run started from the flow's page, followed by its runs list until it ends; pause
 * and mute; Arabic right to left; pickers that offer every one of more than 100 connections and
 * mappings; a member who may only read and a support session without write controls; 409
 * connection_in_use; a run's changes field by field and its rejected rows downloaded in the member's
 * language; Undo previewed (its counts and a conflict), confirmed, linked both ways, and refused once
 * undone elsewhere; the mapping editor's "clear when empty" and its key-only requirement. axe-core on
 * each state, screenshots (hub-*) under test-results/dashboard/.
 */
const BUILD_DIR = join(ROOT, '.data', `test-dashboard-hub-${randomBytes(4).toString('hex')}`);

declare const document: {
  documentElement: { dir: string; lang: string };
  activeElement: { getAttribute(name: string): string | null } | null;
};
declare const window: Record<string, unknown>;

describe('the dashboard’s data hub pages in a browser', { timeout: 60_000 }, () => {
  const t = useTestApp({ DASHBOARD_DIR: BUILD_DIR, DATAHUB_ALLOWED_HOSTS: '127.0.0.1' });
  let base: string;
  let store: TestStore;
  let owner: TestStaff;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let sshd: SshdPeer;
  let skus: string[];
  let dropId: string;
  let flowId: string;
  let flowUrl: string;

  beforeAll(async () => {
    const building = buildDashboard(BUILD_DIR);
    const starting = startSshd();
    store = await t.store({ name: 'Data Hub Pages Store', seedCatalogue: true, productCount: 8 });
    // Growth: the data hub, but not database_read (pro), which the form offers with its upgrade.
    await t.app.get(StoreService).setPlan(store.storeId, 'growth');
    skus = (await t.db.rows<{ sku: string }>(`select sku from product_variants where store_id = $1 order by sku`, [store.storeId])).map(
      (row) => row.sku,
    );
    await t.db.query(`update product_variants set stock = 5 where store_id = $1`, [store.storeId]);
    owner = await addStaff(t.app, store.storeId, 'owner', { name: 'Olivia Owner' });
    sshd = await starting;
    await building;
    base = (await t.listen()).replace('127.0.0.1', 'localhost');
    browser = await launchChromium();
    context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${base}/admin/?store=${store.storeId}`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.card .figure').first().waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await sshd?.stop();
    await rm(BUILD_DIR, { recursive: true, force: true });
  });

  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
  /** Each character of an element's text and the middle of its box, as laid out. */
  const characterPositions = (element: Locator) =>
    element.evaluate((root) => {
      const doc = (root as { ownerDocument: any }).ownerDocument;
      const walker = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
      const positions: { character: string; x: number }[] = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let index = 0; index < node.data.length; index++) {
          const range = doc.createRange();
          range.setStart(node, index);
          range.setEnd(node, index + 1);
          const box = range.getBoundingClientRect();
          positions.push({ character: node.data[index], x: box.left + box.width / 2 });
        }
      }
      return positions;
    });
  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
  /** The control a refusal's messages describe: invalid, and its `aria-describedby` naming the messages shown beside it. */
  const expectInvalid = async (control: Locator, field: string, message: RegExp) => {
    const errors = page.locator(`[data-field-errors="${field}"]`);
    await errors.waitFor();
    expect(await errors.textContent()).toMatch(message);
    expect(await control.getAttribute('aria-invalid')).toBe('true');
    expect((await control.getAttribute('aria-describedby'))!.split(' ')).toContain(await errors.getAttribute('id'));
  };

  it('creates a platform drop connection, tests it and activates it; database_read shows the plan upgrade', async () => {
    await nav('Connections');
    await heading('Connections');
    await page.getByText('No connection yet.').waitFor();
    await page.getByRole('link', { name: 'New connection' }).click();
    await heading('New connection');
    await page.getByRole('combobox', { name: 'Kind' }).selectOption('database_read');
    await expect.poll(() => page.locator('[data-upgrade]').getAttribute('data-upgrade')).toBe('pro');
    await expectAccessible(page, 'new connection, plan refusal (en)');
    await shoot(page, 'hub-connection-plan-en');
    await page.getByRole('combobox', { name: 'Kind' }).selectOption('platform_drop');
    await page.getByLabel('Name', { exact: true }).fill('Supplier drop');
    await page.getByLabel('Folder (prefix)').fill('stock');
    await expectAccessible(page, 'new connection (en)');
    await page.getByRole('button', { name: 'Create' }).click();
    await heading('Supplier drop');
    dropId = /connections\/([\w-]+)$/.exec(page.url())![1];
    await page.locator('[data-status="untested"]').first().waitFor();
    expect(await page.getByRole('button', { name: 'Activate' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Test the connection' }).click();
    await page.locator('[data-test-outcome="passed"]').waitFor();
    expect(await page.getByRole('button', { name: 'Activate' }).isDisabled()).toBe(false);
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.locator('[data-status="active"]').first().waitFor();
    await expectAccessible(page, 'drop connection (en)');
    await shoot(page, 'hub-connection-drop-en');
  });

  it('an SFTP connection refused per field, then created; its test fails with its reason, then passes against a real sshd and shows the pinned fingerprint', async () => {
    await nav('Connections');
    await page.getByRole('link', { name: 'New connection' }).click();
    await page.getByRole('combobox', { name: 'Kind' }).selectOption('sftp');
    await page.getByLabel('Name', { exact: true }).fill('Supplier SFTP');
    await page.getByLabel('Host', { exact: true }).fill('sftp example');
    await page.getByLabel('Port', { exact: true }).fill('1');
    await page.getByLabel('User name').fill(sshd.username);
    await page.getByLabel('Folder on the server').fill(sshd.root);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    // A host name with a space: validation_failed naming config.host, shown beside the Host field, which gets the focus.
    await page.getByRole('button', { name: 'Create' }).click();
    const host = page.getByLabel('Host', { exact: true });
    await expectInvalid(host, 'config.host', /wrong format/);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('config.host');
    expect(await page.locator('.problem').getAttribute('data-code')).toBe('validation_failed');
    expect(await page.getByLabel('User name').getAttribute('aria-invalid')).toBeNull();
    await expectAccessible(page, 'new sftp connection refused per field (en)');
    await shoot(page, 'hub-connection-invalid-en');
    await host.fill('127.0.0.1');
    await page.getByRole('button', { name: 'Create' }).click();
    await heading('Supplier SFTP');
    // Write-only: the page says which credentials are set, never their value.
    await expect.poll(() => page.locator('[data-credentials]').textContent()).toContain('password');
    expect(await page.content()).not.toContain('not the password');
    await page.getByRole('button', { name: 'Test the connection' }).click();
    await page.locator('[data-test-outcome="failed"]').waitFor();
    expect(await page.locator('[data-test-reason]').getAttribute('data-test-reason')).toBe('host_unreachable');
    expect((await page.locator('[data-test-reason]').textContent())!.length).toBeGreaterThan(20);
    expect(await page.getByRole('button', { name: 'Activate' }).isDisabled()).toBe(true);
    await expectAccessible(page, 'failed sftp connection (en)');
    await shoot(page, 'hub-connection-sftp-failed-en');

    // Fixed: the right port and password; the test passes and pins the host key, shown for confirmation.
    await page.getByLabel('Port', { exact: true }).fill(String(sshd.port));
    await page.getByLabel('Password', { exact: true }).fill(sshd.password);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('[data-status="untested"]').first().waitFor();
    await page.getByRole('button', { name: 'Test the connection' }).click();
    await page.locator('[data-test-outcome="passed"]').waitFor();
    const fingerprint = await sshd.hostKeyFingerprint();
    await expect.poll(() => page.locator('[data-fingerprint]').textContent()).toContain(fingerprint);
    expect(await page.locator('[data-fingerprint]').textContent()).toMatch(/^ssh-ed25519 SHA256:/);
    await expectAccessible(page, 'sftp connection with host key (en)');
    await shoot(page, 'hub-connection-sftp-passed-en');
    await page.getByRole('button', { name: 'Clear the pinned key' }).click();
    await page.getByText('No host key pinned yet').waitFor();
    await page.locator('[data-status="untested"]').first().waitFor();
  });

  it('uploads a stock file into the drop through its page: a refused name is shown beside its field, then the drop lists the file', async () => {
    const csv = ['SKU,Qty', `${skus[0]},7`, `${skus[1]},abc`, 'NOPE-1,3', `${skus[2]},12`].join('\n') + '\n';
    await nav('Connections');
    await page.locator('[data-connection="Supplier drop"]').getByRole('link').click();
    await heading('Supplier drop');
    await page.getByText('No file in the drop yet.').waitFor();
    await page.getByLabel('File to upload').setInputFiles({ name: 'stock 1.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    // The chosen file's name, made one the drop accepts.
    expect(await page.getByLabel('File name', { exact: true }).inputValue()).toBe('stock-1.csv');
    // A name the drop refuses (the API's validation_failed names it), shown beside its field.
    await page.getByLabel('File name', { exact: true }).fill('stock 1.csv');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expectInvalid(page.getByLabel('File name', { exact: true }), 'name', /1 to 200 letters, digits/);
    await expectAccessible(page, 'drop upload refused (en)');
    await page.getByLabel('File name', { exact: true }).fill('stock-1.csv');
    const uploaded = page.waitForResponse(
      (response) => response.request().method() === 'PUT' && response.url().endsWith('/files/stock-1.csv'),
    );
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    expect((await uploaded).status()).toBe(200);
    await page.locator('[data-uploaded="stock-1.csv"]').waitFor();
    const listed = page.locator('[data-file="stock-1.csv"]');
    await listed.waitFor();
    expect(await listed.textContent()).toContain(`${Buffer.byteLength(csv)} bytes`);
    expect(await page.locator('[data-field-errors]').count()).toBe(0);
    // What the drop holds is what was chosen, byte for byte.
    const href = (await listed.getByRole('link').getAttribute('href'))!;
    expect(await page.evaluate(async (url) => (await fetch(url)).text(), href)).toBe(csv);
    await expectAccessible(page, 'drop with its uploaded file (en)');
    await shoot(page, 'hub-drop-files-en');
  });

  it('builds a stock mapping in the editor: source fields read, mapping_invalid per field, versions and restore', async () => {
    await nav('Mappings');
    await heading('Mappings');
    await page.getByRole('link', { name: 'New mapping' }).click();
    await heading('New mapping');
    await page.getByLabel('Name', { exact: true }).fill('Supplier stock');
    await page.getByRole('combobox', { name: 'Structure' }).selectOption('stock');
    await page.getByRole('combobox', { name: 'Connection' }).selectOption({ label: 'Supplier drop' });
    await page.getByLabel('File name template', { exact: true }).fill('stock-*.csv');
    await page.getByRole('button', { name: 'Read the fields' }).click();
    await expect.poll(() => page.locator('[data-source-fields]').textContent()).toContain('SKU, Qty');
    // The structure's fields, with their descriptions and required marks.
    await expect.poll(() => page.locator('tr[data-field="stock"] th').textContent()).toMatch(/Units in stock.*\(integer\)/);
    expect(await page.locator('tr[data-field="sku"] abbr.required').count()).toBe(1);
    // Named as a merchant names them, each identifier beside its label as secondary text (issue 25, item 10).
    expect(await page.getByRole('combobox', { name: 'Structure' }).locator('option:checked').textContent()).toBe('Stock levels (stock)');
    expect(await page.locator('tr[data-field="sku"] th .field-label').textContent()).toBe('SKU');
    expect(await page.locator('tr[data-field="sku"] th code.identifier').textContent()).toBe('sku');
    expect(await page.locator('tr[data-field="stock"] th .field-label').textContent()).toBe('Stock');
    expect(await page.getByLabel('Transform to add to Stock').locator('option[value="to_integer"]').textContent()).toBe(
      'Whole number (to_integer)',
    );
    await page.getByLabel('Source column for SKU').fill('SKU');
    await page.getByLabel('Source column for Stock').fill('Qty');
    // A transform whose args its schema refuses: mapping_invalid, shown next to the field.
    await page.getByLabel('Transform to add to SKU').selectOption('default');
    await page.getByRole('button', { name: 'Add the transform to SKU' }).click();
    await page.getByLabel('Transform to add to Stock').selectOption('map_values');
    await page.getByRole('button', { name: 'Add the transform to Stock' }).click();
    const mapValues = page.locator('tr[data-field="stock"] [data-transform="map_values"]');
    expect(await mapValues.locator('.step-head strong').textContent()).toBe('Replace listed values');
    expect(await mapValues.locator('.step-head code.identifier').textContent()).toBe('map_values');
    expect(await mapValues.locator('legend').textContent()).toBe('Values and what they become * map');
    expect(await mapValues.getByLabel(/^A value not listed/).count()).toBe(1);
    await page.getByLabel('Value 1 in the file').fill('none');
    await page.getByLabel('Value 1 becomes').fill('0');
    await page.getByRole('button', { name: 'Create' }).click();
    await expectInvalid(page.getByLabel('Source column for SKU'), 'column.sku', /\(fields\[0\]\.transforms\[0\]\.args/);
    await expect.poll(() => page.locator('.problem').getAttribute('data-code')).toBe('mapping_invalid');
    expect(await page.getByLabel('Source column for Stock').getAttribute('aria-invalid')).toBeNull();
    await expectAccessible(page, 'mapping editor with errors (en)');
    await shoot(page, 'hub-mapping-invalid-en');
    await page.getByRole('button', { name: 'Remove Value for empty cells from SKU' }).click();
    await page.getByLabel('Transform to add to SKU').selectOption('trim');
    await page.getByRole('button', { name: 'Add the transform to SKU' }).click();
    await page.getByLabel('Transform to add to Stock').selectOption('to_integer');
    await page.getByRole('button', { name: 'Add the transform to Stock' }).click();
    const created = page.waitForRequest((request) => request.url().endsWith('/admin/data-hub/mappings') && request.method() === 'POST');
    await page.getByRole('button', { name: 'Create' }).click();
    expect((await created).postDataJSON()).toMatchObject({
      structure: 'stock',
      direction: 'import',
      fields: [
        { target: 'sku', source: 'SKU', transforms: [{ name: 'trim' }] },
        { target: 'stock', source: 'Qty', transforms: [{ name: 'map_values', args: { map: { none: '0' } } }, { name: 'to_integer' }] },
      ],
    });
    await heading('Supplier stock');
    await page.getByText('Current version: 1').waitFor();
    // Version 2 drops map_values; restoring version 1 writes version 3 equal to it.
    await page.getByRole('button', { name: 'Remove Replace listed values from Stock' }).click();
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByText('Current version: 2').waitFor();
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByText('Current version: 3').waitFor();
    await expect.poll(() => page.locator('tr[data-field="stock"] [data-transform]').count()).toBe(2);
    await expectAccessible(page, 'mapping editor (en)');
    await shoot(page, 'hub-mapping-en');
    // In Arabic, the labels are Arabic; the identifiers stay as the mapping names them.
    await page.getByLabel('Language').selectOption('ar');
    await expect.poll(() => page.locator('tr[data-field="stock"] th .field-label').textContent()).toBe('المخزون');
    expect(await page.locator('tr[data-field="stock"] th code.identifier').textContent()).toBe('stock');
    expect(await page.locator('tr[data-field="stock"] [data-transform="to_integer"] .step-head strong').textContent()).toBe('عدد صحيح');
    expect(await page.locator('tr[data-field="stock"] [data-transform="map_values"] legend').textContent()).toBe(
      'القيم وما تصبح عليه * map',
    );
    await expectAccessible(page, 'mapping editor (ar)');
    await shoot(page, 'hub-mapping-ar');
    await page.getByLabel('اللغة').selectOption('en');
  });

  it('creates a flow once its refused fields are fixed, previews the uploaded file with its counts and rejected rows, pauses and mutes it', async () => {
    await nav('Flows');
    await heading('Flows');
    await page.getByRole('link', { name: 'New flow' }).click();
    await heading('New flow');
    await page.getByLabel('Name', { exact: true }).fill('Supplier stock import');
    await page.getByRole('combobox', { name: 'Connection' }).selectOption({ label: 'Supplier drop (Active)' });
    await page.getByRole('combobox', { name: 'Mapping' }).selectOption({ label: 'Supplier stock (Stock levels, Import)' });
    await page.getByRole('textbox', { name: 'File name template' }).fill('stock-*.csv');
    await page.getByLabel('Run on a schedule').check();
    // A cron expression and a recipient the API refuses: each message beside its field, the first of them focused.
    await page.getByLabel('Cron expression').fill('every night');
    await page.getByLabel('Alert recipients').fill('ops at example');
    await page.getByRole('button', { name: 'Create' }).click();
    await expectInvalid(page.getByLabel('Cron expression'), 'schedule.cron', /not a cron expression/);
    await expectInvalid(page.getByLabel('Alert recipients'), 'alertRecipients', /email address/);
    // The field's own hint still describes it, before the refusal's message.
    const cronHint = (await page.getByLabel('Cron expression').getAttribute('aria-describedby'))!.split(' ')[0];
    expect(await page.locator(`[id="${cronHint}"]`).textContent()).toContain('Five fields: minute hour');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('schedule.cron');
    expect(await page.getByLabel('Time zone').getAttribute('aria-invalid')).toBeNull();
    await expectAccessible(page, 'new flow refused per field (en)');
    await shoot(page, 'hub-flow-invalid-en');
    await page.getByLabel('Cron expression').fill('0 3 * * *');
    await page.getByLabel('Alert recipients').fill('ops@example.com');
    await expectAccessible(page, 'new flow (en)');
    const posted = page.waitForResponse(
      (response) => response.url().endsWith('/admin/data-hub/flows') && response.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Create' }).click();
    const answer = await posted;
    expect(answer.status(), await answer.text()).toBe(201);
    await heading('Supplier stock import');
    flowUrl = page.url();
    flowId = /flows\/([\w-]+)$/.exec(flowUrl)![1];
    await page.getByText('No run yet.').waitFor();
    // The preview reads the file uploaded through the drop's page; the runs list shows it without a reload.
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const preview = page.locator('[data-preview]');
    await preview.waitFor();
    await expect.poll(() => page.locator('[data-run]').count()).toBe(1);
    expect(await page.locator('[data-run]').textContent()).toContain('stock-1.csv');
    await expect.poll(() => preview.locator('[data-count="read"] dd').textContent()).toBe('4');
    expect(await preview.locator('[data-count="rejected"] dd').textContent()).toBe('2');
    expect(await preview.locator('[data-count="changed"] dd').textContent()).toBe('2');
    await expect.poll(() => preview.locator('[data-rejected-line]').count()).toBe(2);
    const reasons = await preview.locator('[data-list="rejected"]').textContent();
    expect(reasons).toContain('abc');
    expect(reasons).toContain('NOPE-1');
    expect(await preview.locator('[data-reason]').count()).toBeGreaterThanOrEqual(2);
    await expectAccessible(page, 'flow preview (en)');
    await shoot(page, 'hub-flow-preview-en');

    await page.getByRole('button', { name: 'Preview the first 100 rows' }).click();
    await page.getByRole('heading', { name: 'Preview of the first 100 rows' }).waitFor();

    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.locator('[data-flow-state]').textContent()).toContain('Paused');
    await page.getByRole('button', { name: 'Mute alerts' }).click();
    await expect.poll(() => page.locator('[data-flow-state]').textContent()).toContain('Muted');
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => page.locator('[data-flow-state]').textContent()).toContain('Scheduled runs on');

    // Arabic: the same page, right to left, its labels and the rejected rows' reasons in Arabic.
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await page.locator('[data-preview] [data-rejected-line]').first().waitFor();
    await page.getByLabel('Language').selectOption('ar');
    await expect.poll(() => page.evaluate(() => [document.documentElement.dir, document.documentElement.lang])).toEqual(['rtl', 'ar']);
    await page.getByRole('heading', { name: 'الصفوف المرفوضة' }).first().waitFor();
    expect(await page.locator('[data-preview] [data-list="rejected"] .reasons').first().textContent()).toMatch(/[\u0600-\u06FF]/);
    // `stock: "abc" ليس رقماً.` reads right to left in order (issue 25, item 9): the field first (rightmost),
    // then the message, whose quoted value keeps both its quotes around it.
    const reason = page.locator('[data-preview] [data-reason="not_a_number"]').first();
    expect(await reason.textContent()).toBe('stock: "abc" ليس رقماً.');
    const laidOut = await characterPositions(reason);
    const at = (character: string, nth = 0) => laidOut.filter((item) => item.character === character)[nth].x;
    const [opening, closing] = [at('"'), at('"', 1)];
    expect(at('k')).toBeGreaterThan(opening);
    expect(opening).toBeGreaterThan(at('a'));
    expect(at('a')).toBeGreaterThan(closing);
    expect(closing).toBeGreaterThan(at('ل'));
    await expectAccessible(page, 'flow preview (ar)');
    await shoot(page, 'hub-flow-preview-ar');
    await nav('الاتصالات');
    await page.getByRole('heading', { level: 1, name: 'الاتصالات' }).waitFor();
    await page.locator('[data-connection="Supplier drop"]').waitFor();
    await expectAccessible(page, 'connections (ar)');
    await shoot(page, 'hub-connections-ar');
    await page.getByLabel('اللغة').selectOption('en');
  });

  it('runs the flow now: its runs list follows the run until it ends, then stops asking; the run page shows its rows', async () => {
    await page.goto(flowUrl);
    await heading('Supplier stock import');
    await page.locator('[data-run]').first().waitFor();
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await page.locator('[data-preview]').waitFor();
    let listReads = 0;
    const countListReads = (request: { method(): string; url(): string }) => {
      if (request.method() === 'GET' && request.url().includes(`/admin/data-hub/flows/${flowId}/runs?`)) listReads += 1;
    };
    page.on('request', countListReads);
    // Marks this document: still there at the end, the page was never reloaded.
    await page.evaluate(() => (window.hubNotReloaded = true));
    const started = page.waitForResponse(
      (response) => response.request().method() === 'POST' && response.url().endsWith(`/flows/${flowId}/runs`),
    );
    await page.getByRole('button', { name: 'Run now' }).click();
    const runId = (await (await started).json()).id as string;
    const row = page.locator(`[data-run="${runId}"]`);
    await row.locator('[data-status="queued"]').waitFor();
    await page.locator('[data-following]').waitFor();
    expect(await page.locator('[data-started]').textContent()).toBe('Run started. Open the run');
    // The preview shown before gave way to the run (issue 25, item 11).
    expect(await page.locator('[data-preview]').count()).toBe(0);
    await expectAccessible(page, 'flow with a queued run (en)');
    await shoot(page, 'hub-flow-run-queued-en');
    // While the run is queued the list is read again and again.
    const readsWhenQueued = listReads;
    await expect.poll(() => listReads, { timeout: 6_000 }).toBeGreaterThan(readsWhenQueued + 1);
    // The test app works no queue: the run's job is worked here, and the list shows its end by itself.
    await t.app.get(RunsService).execute(runId);
    await row.locator('[data-status="succeeded"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-following]').count()).toBe(0);
    expect(await row.textContent()).toContain('stock-1.csv');
    // Ended: no more reads.
    const readsWhenEnded = listReads;
    await page.waitForTimeout(4_500);
    expect(listReads).toBe(readsWhenEnded);
    page.off('request', countListReads);
    expect(page.url()).toBe(flowUrl);
    expect(await page.evaluate(() => window.hubNotReloaded)).toBe(true);
    await expectAccessible(page, 'flow with its ended run (en)');
    await shoot(page, 'hub-flow-runs-en');

    await page.locator('[data-started]').getByRole('link', { name: 'Open the run' }).click();
    await page.waitForURL(new RegExp(`/data-hub/runs/${runId}$`));
    await page.locator('[data-status="succeeded"]').first().waitFor({ timeout: 15_000 });
    await expect.poll(() => page.locator('[data-count="changed"] dd').textContent()).toBe('2');
    await expect.poll(() => page.locator('[data-list="rejected"] [data-rejected-line]').count()).toBe(2);
    // A row refused against the store (its SKU is unknown) lists its values too (issue 25, item 11).
    await expect.poll(() => page.locator('[data-rejected-line="4"] [data-value="sku"]').textContent()).toBe('sku: NOPE-1');
    expect(await page.locator('[data-rejected-line="4"] [data-value="stock"]').textContent()).toBe('stock: 3');
    expect(await page.locator('[data-rejected-line="3"] .row-values').textContent()).toBe(`Qty: abcSKU: ${skus[1]}`);
    // An import sends nothing: no "Sent" (issue 25, item 12).
    expect(await page.locator('[data-count="sent"]').count()).toBe(0);
    expect(await page.locator('[data-count="created"]').count()).toBe(1);
    await expectAccessible(page, 'run (en)');
    await shoot(page, 'hub-run-en');
    await nav('Flows');
    await page.locator('[data-flow="Supplier stock import"] [data-status="succeeded"]').waitFor();
    await expectAccessible(page, 'flows (en)');
    await shoot(page, 'hub-flows-en');
  });

  it('a replace run the shrink guard refuses is explained, and an override runs it once', async () => {
    await page.goto(flowUrl);
    await heading('Supplier stock import');
    await page.getByRole('combobox', { name: 'Mode' }).selectOption('replace');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.locator('[data-started]').getByRole('link', { name: 'Open the run' }).click();
    await page.waitForURL(/\/data-hub\/runs\/[\w-]+$/);
    const refusedId = /runs\/([\w-]+)$/.exec(page.url())![1];
    await t.app.get(RunsService).execute(refusedId);
    const refusal = page.locator('[data-refusal="shrink_guard"]');
    await refusal.waitFor({ timeout: 15_000 });
    const wouldDeactivate = skus.length - 2;
    expect(await refusal.textContent()).toContain(`It would deactivate ${wouldDeactivate} of ${skus.length} active records`);
    expect(await refusal.textContent()).toContain('more than the flow allows (10%, or 500 records)');
    await expectAccessible(page, 'refused run (en)');
    await shoot(page, 'hub-run-refused-en');
    await page.getByLabel('Language').selectOption('ar');
    await expect.poll(() => refusal.textContent()).toMatch(/حماية التقلّص/);
    await shoot(page, 'hub-run-refused-ar');
    await page.getByLabel('اللغة').selectOption('en');

    await page.getByLabel('Most records to deactivate (%)').fill('100');
    await page.getByLabel('Reason (recorded with your name)').fill('The supplier dropped most lines this season');
    const override = page.waitForRequest((request) => request.url().endsWith('/runs') && request.method() === 'POST');
    await page.getByRole('button', { name: 'Override once and run' }).click();
    expect((await override).postDataJSON()).toEqual({
      overrideShrinkGuard: { maxDeactivatePercent: 100, reason: 'The supplier dropped most lines this season' },
    });
    await page.waitForURL((url) => /\/data-hub\/runs\/[\w-]+$/.test(url.pathname) && !url.pathname.endsWith(refusedId));
    const overriddenId = /runs\/([\w-]+)$/.exec(page.url())![1];
    await t.app.get(RunsService).execute(overriddenId);
    await page.locator('[data-status="succeeded"]').first().waitFor({ timeout: 15_000 });
    await expect.poll(() => page.locator('[data-count="deactivated"] dd').textContent()).toBe(String(wouldDeactivate));
    await page.getByText('Shrink guard lifted for this run to 100%: The supplier dropped most lines this season').waitFor();
    await expect.poll(() => page.locator('[data-list="deactivated"] tbody tr').count()).toBe(Math.min(wouldDeactivate, 25));
  });

  it('a connection a flow uses cannot be deleted: 409 connection_in_use is shown', async () => {
    await nav('Connections');
    await page.locator('[data-connection="Supplier drop"]').getByRole('link').click();
    await heading('Supplier drop');
    await page.getByRole('button', { name: 'Delete the connection' }).click();
    await page.locator('.problem[data-code="connection_in_use"]').waitFor();
    await expectAccessible(page, 'connection in use (en)');
    await shoot(page, 'hub-connection-in-use-en');
  });

  it('a member who may only read flows is offered no connection and no write control', async () => {
    const reader = await addStaff(t.app, store.storeId, 'custom', { permissions: ['data.flows.read'], name: 'Rita Reader' });
    const readerContext = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    const readerPage = await readerContext.newPage();
    await readerPage.goto(`${base}/admin/?store=${store.storeId}`);
    await readerPage.getByLabel('Email').fill(reader.email);
    await readerPage.getByLabel('Password').fill(reader.password);
    await readerPage.getByRole('button', { name: 'Sign in' }).click();
    await readerPage.getByRole('heading', { level: 1, name: 'Flows' }).waitFor();
    expect(readerPage.url()).toBe(`${base}/admin/app/data-hub/flows`);
    await readerPage.locator('[data-flow="Supplier stock import"]').waitFor();
    const navigation = readerPage.getByRole('navigation');
    expect(await navigation.getByRole('link', { name: 'Connections', exact: true }).count()).toBe(0);
    expect(await navigation.getByRole('link', { name: 'Mappings', exact: true }).count()).toBe(1);
    expect(await readerPage.getByRole('link', { name: 'New flow' }).count()).toBe(0);
    await readerPage.locator('[data-flow="Supplier stock import"]').getByRole('link').first().click();
    await readerPage.locator('[data-run]').first().waitFor();
    for (const name of ['Preview', 'Run now', 'Pause', 'Mute alerts', 'Save'])
      expect(await readerPage.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    expect(await readerPage.locator('main [data-write]').count()).toBe(0);
    await expectAccessible(readerPage, 'flow, read only (en)');
    await shoot(readerPage, 'hub-flow-reader-en');
    await readerContext.close();
  });

  it('a support session sees the data hub with no write controls', async () => {
    const support = await supportSession(t.app, store.storeId);
    const supportContext = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    // As the support entry leaves them: the access cookie and the readable CSRF one (reads send no CSRF token).
    await supportContext.addCookies([
      { name: 'adm_access', value: support.token, url: `${base}/admin`, httpOnly: true, secure: true, sameSite: 'Strict' },
      { name: 'adm_csrf', value: 'unused-by-reads', url: `${base}/admin`, secure: true, sameSite: 'Strict' },
    ]);
    const supportPage = await supportContext.newPage();
    await supportPage.goto(flowUrl);
    await supportPage.locator('[data-read-only]').waitFor();
    await supportPage.getByRole('heading', { level: 1, name: 'Supplier stock import' }).waitFor();
    await supportPage.locator('[data-run]').first().waitFor();
    for (const name of ['Preview', 'Run now', 'Pause', 'Resume', 'Save', 'Create'])
      expect(await supportPage.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    expect(await supportPage.locator('main [data-write]').count()).toBe(0);
    // A run that can be undone: its lists and what it changed, but no Undo.
    const runId = await supportPage.locator('[data-run]').first().getAttribute('data-run');
    await supportPage.goto(`${base}/admin/app/data-hub/runs/${runId}`);
    await supportPage.locator('[data-list="deactivated"] tbody tr').first().waitFor();
    await supportPage.locator('[data-undoable-until]').waitFor();
    expect(await supportPage.getByRole('button', { name: 'Undo this run…' }).count()).toBe(0);
    expect(await supportPage.locator('main [data-write]').count()).toBe(0);
    // The drop's files are shown, with no upload.
    await supportPage.goto(`${base}/admin/app/data-hub/connections/${dropId}`);
    await supportPage.getByRole('heading', { level: 1, name: 'Supplier drop' }).waitFor();
    await supportPage.locator('[data-file="stock-1.csv"]').waitFor();
    expect(await supportPage.getByRole('button').count()).toBe(0);
    expect(await supportPage.getByLabel('File to upload').count()).toBe(0);
    expect(await supportPage.locator('main [data-write]').count()).toBe(0);
    await supportPage.goto(`${base}/admin/app/data-hub/connections`);
    await supportPage.locator('[data-connection="Supplier drop"]').waitFor();
    expect(await supportPage.getByRole('link', { name: 'New connection' }).count()).toBe(0);
    expect(await supportPage.locator('main [data-write]').count()).toBe(0);
    await expectAccessible(supportPage, 'support connections (en)');
    await shoot(supportPage, 'hub-support-connections-en');
    await supportContext.close();
  });

  it('a store with more than 100 connections and mappings can pick any of them: the pickers read every page', async () => {
    // Created through the API, newer than the drop and the mapping the flow uses: those are past the first 100.
    const token = await staffToken(t.app, owner);
    const create = (path: string, body: (n: number) => Record<string, unknown>, count: number) =>
      Promise.all(
        Array.from({ length: count }, async (_, n) => ok(await adminCall(t.app, 'POST', `/admin/data-hub/${path}`, token, body(n)), 201)),
      );
    await create('connections', (n) => ({ name: `Bulk drop ${n}`, kind: 'platform_drop', config: { prefix: `bulk-${n}` } }), 105);
    await create(
      'mappings',
      (n) => ({
        name: `Bulk mapping ${n}`,
        structure: 'stock',
        direction: 'import',
        fields: [
          { target: 'sku', source: 'SKU' },
          { target: 'stock', source: 'Qty' },
        ],
      }),
      101,
    );

    // The flow's own connection and mapping are still the ones its form shows, among all of them.
    await page.goto(flowUrl);
    await heading('Supplier stock import');
    const connection = page.getByRole('combobox', { name: 'Connection' });
    const mapping = page.getByRole('combobox', { name: 'Mapping' });
    await expect.poll(() => connection.locator('option').count()).toBe(107);
    await expect.poll(() => mapping.locator('option').count()).toBe(103);
    expect(await connection.inputValue()).toBe(dropId);
    expect(await mapping.locator('option:checked').textContent()).toBe('Supplier stock (Stock levels, Import)');
    await expectAccessible(page, 'flow form with every connection and mapping (en)');
    await shoot(page, 'hub-flow-many-en');

    // A new flow may use the oldest of them.
    await nav('Flows');
    await page.getByRole('link', { name: 'New flow' }).click();
    await heading('New flow');
    await page.getByLabel('Name', { exact: true }).fill('Second stock import');
    await page.getByRole('combobox', { name: 'Connection' }).selectOption({ label: 'Supplier drop (Active)' });
    await page.getByRole('combobox', { name: 'Mapping' }).selectOption({ label: 'Supplier stock (Stock levels, Import)' });
    await page.getByRole('textbox', { name: 'File name template' }).fill('stock-*.csv');
    const posted = page.waitForRequest((request) => request.url().endsWith('/admin/data-hub/flows') && request.method() === 'POST');
    await page.getByRole('button', { name: 'Create' }).click();
    expect((await posted).postDataJSON()).toMatchObject({ connectionId: dropId, name: 'Second stock import' });
    await heading('Second stock import');
    // Not scheduled: nothing on the page speaks of scheduled runs or their alerts (issue 25, item 12).
    await expect.poll(() => page.locator('[data-schedule]').textContent()).toBe('Not scheduled');
    expect(await page.locator('[data-flow-state]').count()).toBe(0);
    expect(await page.getByText('Scheduled runs on').count()).toBe(0);
    for (const name of ['Pause', 'Resume', 'Mute alerts', 'Unmute alerts'])
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    expect(await page.getByLabel('Alert when no file arrives within (minutes)').count()).toBe(0);
    expect(await page.getByLabel('Alert recipients').count()).toBe(0);
    expect(await page.getByRole('columnheader', { name: 'Sent' }).count()).toBe(0);
    await page.getByLabel('Run on a schedule').check();
    await page.getByLabel('Alert when no file arrives within (minutes)').waitFor();
    await page.getByLabel('Alert recipients').waitFor();
    await expectAccessible(page, 'unscheduled flow (en)');
    await shoot(page, 'hub-flow-unscheduled-en');

    // The mapping editor reads a source's fields from any connection.
    await nav('Mappings');
    await page.getByRole('link', { name: 'New mapping' }).click();
    await heading('New mapping');
    const source = page.getByRole('combobox', { name: 'Connection' });
    await expect.poll(() => source.locator('option').count()).toBe(108);
    await source.selectOption({ label: 'Supplier drop' });

    // The lists themselves go page by page.
    await nav('Connections');
    await page.locator('[data-connection="Bulk drop 104"], [data-connection="Bulk drop 0"]').first().waitFor();
    expect(await page.locator('[data-connection]').count()).toBe(25);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
    await expect.poll(() => page.locator('[data-connection]').count()).toBe(25);
    await expectAccessible(page, 'connections, page 2 (en)');
  }, 90_000); // 206 connections and mappings created, then every page of both pickers read in the browser

  it('an export flow offers its formula safety, escaped by default; its page and each run show the setting, in Arabic too', async () => {
    // An import writes no file: its form has no such control.
    await page.goto(flowUrl);
    await heading('Supplier stock import');
    expect(await page.getByRole('combobox', { name: 'Formulas in cells' }).count()).toBe(0);
    expect(await page.locator('dd[data-formula-safety]').count()).toBe(0);

    const token = await staffToken(t.app, owner);
    const mapping = {
      name: 'Customers out',
      structure: 'customers',
      direction: 'export',
      fields: [
        { target: 'email', source: 'email' },
        { target: 'first', source: 'first_name' },
      ],
    };
    ok(await adminCall(t.app, 'POST', '/admin/data-hub/mappings', token, mapping), 201);
    await nav('Flows');
    await page.getByRole('link', { name: 'New flow' }).click();
    await heading('New flow');
    await page.getByLabel('Name', { exact: true }).fill('Customers export');
    await page.getByRole('combobox', { name: 'Connection' }).selectOption({ label: 'Supplier drop (Active)' });
    await page.getByRole('combobox', { name: 'Mapping' }).selectOption({ label: 'Customers out (Customers, Export)' });
    const formulas = page.getByRole('combobox', { name: 'Formulas in cells' });
    expect(await formulas.inputValue()).toBe('escape');
    const hint = (await formulas.getAttribute('aria-describedby'))!.split(' ')[0];
    expect(await page.locator(`[id="${hint}"]`).textContent()).toContain('leading apostrophe');
    await page.getByRole('textbox', { name: 'File name template' }).fill('customers.csv');
    // A scheduled export is alerted about, but expects no file: no missing-file delay (issue 25, item 12).
    await page.getByLabel('Run on a schedule').check();
    await page.getByLabel('Alert recipients').waitFor();
    expect(await page.getByLabel('Alert when no file arrives within (minutes)').count()).toBe(0);
    await page.getByLabel('Run on a schedule').uncheck();
    await expectAccessible(page, 'new export flow with its formula safety (en)');
    await shoot(page, 'hub-flow-export-new-en');
    const posted = page.waitForRequest((request) => request.url().endsWith('/admin/data-hub/flows') && request.method() === 'POST');
    await page.getByRole('button', { name: 'Create' }).click();
    expect((await posted).postDataJSON()).toMatchObject({ direction: 'export', formulaSafety: 'escape' });
    await heading('Customers export');
    await expect
      .poll(() => page.locator('dd[data-formula-safety]').textContent())
      .toBe('Escaped — shown as text, never run (files people open)');

    // A machine feed: raw, saved from the form, shown on the page and recorded by the run.
    await page.getByRole('combobox', { name: 'Formulas in cells' }).selectOption('raw');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    await expect.poll(() => page.locator('dd[data-formula-safety]').getAttribute('data-formula-safety')).toBe('raw');
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.locator('[data-started]').getByRole('link', { name: 'Open the run' }).click();
    await page.waitForURL(/\/data-hub\/runs\/[\w-]+$/);
    await t.app.get(RunsService).execute(/runs\/([\w-]+)$/.exec(page.url())![1]);
    await page.locator('[data-status="succeeded"]').first().waitFor({ timeout: 15_000 });
    const recorded = page.locator('p[data-formula-safety="raw"]');
    await expect.poll(() => recorded.textContent()).toBe('Formulas in cells: Raw — written as they are (machine feeds)');
    // An export's run counts what it read, rejected and sent; it creates and changes nothing.
    expect(await page.locator('[data-count]').evaluateAll((counts) => counts.map((count) => count.getAttribute('data-count')))).toEqual([
      'read',
      'rejected',
      'sent',
    ]);
    await expectAccessible(page, 'export run with its formula safety (en)');
    await page.getByLabel('Language').selectOption('ar');
    await expect.poll(() => recorded.textContent()).toMatch(/^الصيغ في الخلايا: كما هي/);
    await expectAccessible(page, 'export run with its formula safety (ar)');
    await shoot(page, 'hub-run-formula-safety-ar');
    await page.getByLabel('اللغة').selectOption('en');
  });

  it('a run lists each change before and after and downloads its rejected rows in the member’s language; Undo shows its preview with a conflict, then undoes the run, linked both ways', async () => {
    const token = await staffToken(t.app, owner);
    await t.db.query(`update product_variants set stock = 5 where store_id = $1`, [store.storeId]);
    const drop = await activeDrop(t.app, token, 'fixes');
    const mappingId = await stockMapping(t.app, token, 'SKU', 'Qty');
    const flow = ok(
      await adminCall(t.app, 'POST', `${HUB}/flows`, token, {
        name: 'Stock fixes',
        connectionId: drop.id,
        mappingId,
        direction: 'import',
        format: 'csv',
        fileTemplate: 'fix-*.csv',
      }),
      201,
    );
    await drop.upload('fix-1.csv', ['SKU,Qty', `${skus[3]},9`, `${skus[4]},14`, 'NOPE-2,1'].join('\n') + '\n');
    const run = ok(await adminCall(t.app, 'POST', `${HUB}/flows/${flow.id}/runs`, token, {}), 202);
    await t.app.get(RunsService).execute(run.id);
    // A sale since the run: a field it set changed by someone else, which its undo leaves as it is.
    await t.db.query(`update product_variants set stock = 13 where store_id = $1 and sku = $2`, [store.storeId, skus[4]]);
    const stockOf = async (sku: string) =>
      (await t.db.rows<{ stock: number }>(`select stock from product_variants where store_id = $1 and sku = $2`, [store.storeId, sku]))[0]
        .stock;

    await page.goto(`${base}/admin/app/data-hub/runs/${run.id}`);
    await heading('Run');
    // Each record changed, each field by its label, before → after.
    const change = (list: Locator, sku: string) => list.locator(`[data-changed-key="${sku}"] [data-change="stock"]`);
    const changed = page.locator('[data-list="changed"]:not([data-undo-preview] *)');
    await change(changed, skus[3]).waitFor();
    expect(await change(changed, skus[3]).locator('.field-label').textContent()).toBe('Stock');
    expect(await change(changed, skus[3]).locator('[data-before]').textContent()).toBe('5');
    expect(await change(changed, skus[3]).locator('[data-after]').textContent()).toBe('9');
    expect(await change(changed, skus[4]).locator('[data-after]').textContent()).toBe('14');
    expect(await change(changed, skus[3]).textContent()).toMatch(/^Stock: 5 →/);
    await page.locator('[data-undoable-until]').waitFor();
    await expectAccessible(page, 'run with its changes and Undo (en)');
    await shoot(page, 'hub-run-changed-en');

    // The rejected rows as a file, fetched with the session in the page's language.
    const downloadRejected = async () => {
      const asked = page.waitForRequest((request) => request.url().endsWith(`/runs/${run.id}/rejected.csv`));
      const downloading = page.waitForEvent('download');
      await page.locator('[data-downloads] [data-download="csv"]').click();
      const download = await downloading;
      expect(download.suggestedFilename()).toBe(`run-${run.id}-rejected.csv`);
      const text = (await readFile((await download.path())!, 'utf8')).replace(/^\uFEFF/, '');
      return { language: (await asked).headers()['accept-language'], lines: text.split(/\r?\n/) };
    };
    const english = await downloadRejected();
    expect(english.language).toBe('en');
    expect(english.lines[0]).toBe('SKU,Qty,line,reasons');
    expect(english.lines[1]).toMatch(/^NOPE-2,1,4,/);
    await page.locator(`[data-downloaded="run-${run.id}-rejected.csv"]`).waitFor();

    // Undo: first what it would do, nothing written.
    await page.getByRole('button', { name: 'Undo this run…' }).click();
    const preview = page.locator('[data-undo-preview]');
    await preview.waitFor();
    const counts = (scope: Locator) =>
      scope
        .locator('[data-count]')
        .evaluateAll((items) => items.map((item) => [item.getAttribute('data-count'), item.querySelector('dd')!.textContent]));
    expect(await counts(preview)).toEqual([
      ['read', '2'],
      ['changed', '1'],
      ['deactivated', '0'],
      ['unchanged', '1'],
      ['conflicts', '1'],
    ]);
    expect(await preview.locator('[data-count="changed"] dt').textContent()).toBe('Records restored');
    expect(await preview.textContent()).toContain(
      'A field changed since the run — by a sale, another run or someone in the dashboard — is left as it is',
    );
    const conflict = preview.locator(`[data-list="conflicts"] [data-conflict-key="${skus[4]}"]`);
    expect(await conflict.getAttribute('data-reason')).toBe('changed');
    expect(await conflict.locator('td').allTextContents()).toEqual([skus[4], 'Stock', '14', '13', 'Changed since the run']);
    expect(await change(preview.locator('[data-list="changed"]'), skus[3]).locator('[data-after]').textContent()).toBe('5');
    expect(await stockOf(skus[3])).toBe(9);
    await expectAccessible(page, 'undo preview (en)');
    await shoot(page, 'hub-undo-preview-en');

    // In Arabic: right to left, the preview and its explanation in Arabic, the file headed in Arabic.
    await page.getByLabel('Language').selectOption('ar');
    await expect.poll(() => page.evaluate(() => [document.documentElement.dir, document.documentElement.lang])).toEqual(['rtl', 'ar']);
    await page.getByRole('heading', { name: 'ما سيفعله التراجع عن هذا التشغيل' }).waitFor();
    expect(await preview.locator('[data-count="conflicts"] dt').textContent()).toBe('التعارضات (حقول تُركت كما هي)');
    expect(await conflict.locator('td').last().textContent()).toBe('تغيّر بعد التشغيل');
    expect(await conflict.locator('td').nth(1).textContent()).toBe('المخزون');
    expect(await preview.textContent()).toContain('يُترك كما هو');
    expect(await page.getByRole('button', { name: 'تراجع عن التشغيل' }).count()).toBe(1);
    const arabic = await downloadRejected();
    expect(arabic.language).toBe('ar');
    expect(arabic.lines[0]).toBe('SKU,Qty,السطر,الأسباب');
    await expectAccessible(page, 'undo preview (ar)');
    await shoot(page, 'hub-undo-preview-ar');
    await page.getByLabel('اللغة').selectOption('en');

    // Confirmed: the undo is queued as a run of the flow, and its page shows what it did.
    const confirmed = page.waitForResponse(
      (response) => response.request().method() === 'POST' && response.url().endsWith(`/runs/${run.id}/undo`),
    );
    await page.getByRole('button', { name: 'Undo the run' }).click();
    const queued = await confirmed;
    expect(queued.status()).toBe(202);
    expect(queued.request().postDataJSON()).toEqual({});
    const undoId = (await queued.json()).id as string;
    await page.waitForURL(new RegExp(`/data-hub/runs/${undoId}$`));
    await t.app.get(RunsService).execute(undoId);
    await page.locator('[data-status="succeeded"]').first().waitFor({ timeout: 15_000 });
    await expect
      .poll(() => counts(page.locator('.run-summary').first()))
      .toEqual([
        ['read', '2'],
        ['changed', '1'],
        ['deactivated', '0'],
        ['unchanged', '1'],
        ['conflicts', '1'],
      ]);
    expect(await page.locator('.run-summary').first().textContent()).toContain('Undo');
    await page.locator(`[data-list="conflicts"] [data-conflict-key="${skus[4]}"]`).waitFor();
    const restored = page.locator('[data-list="changed"]');
    await change(restored, skus[3]).waitFor();
    expect(await restored.locator('h3').textContent()).toBe('Restored');
    expect([
      await change(restored, skus[3]).locator('[data-before]').textContent(),
      await change(restored, skus[3]).locator('[data-after]').textContent(),
    ]).toEqual(['9', '5']);
    expect([await stockOf(skus[3]), await stockOf(skus[4])]).toEqual([5, 13]);
    expect(await page.locator('[data-undo]').count()).toBe(0);
    await expectAccessible(page, 'undo run (en)');
    await shoot(page, 'hub-undo-run-en');

    // Linked both ways: the undo names the run it undoes, and that run its undo, which is no longer offered.
    await page.locator(`[data-undo-of="${run.id}"]`).getByRole('link', { name: 'Open the run it undoes' }).click();
    await page.waitForURL(new RegExp(`/data-hub/runs/${run.id}$`));
    await page.locator(`[data-undone-by="${undoId}"]`).getByRole('link', { name: 'Open the undo' }).waitFor();
    expect(await page.locator('[data-undo]').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Undo this run…' }).count()).toBe(0);

    // Undone meanwhile by someone else: Undo shows the API's refusal in the member's language, then the link to that undo.
    const second = ok(await adminCall(t.app, 'POST', `${HUB}/flows/${flow.id}/runs`, token, {}), 202);
    await t.app.get(RunsService).execute(second.id);
    await page.goto(`${base}/admin/app/data-hub/runs/${second.id}`);
    await page.getByRole('button', { name: 'Undo this run…' }).waitFor();
    const elsewhere = ok(await adminCall(t.app, 'POST', `${HUB}/runs/${second.id}/undo`, token, {}), 202);
    await page.getByRole('button', { name: 'Undo this run…' }).click();
    const refused = page.locator('.problem[data-code="already_undone"]');
    await refused.waitFor();
    const message = (await adminCall(t.app, 'POST', `${HUB}/runs/${second.id}/undo`, token, { preview: true })).json();
    expect(await refused.textContent()).toBe(message.message_en);
    await page.locator(`[data-undone-by="${elsewhere.id}"]`).waitFor();
    expect(await page.locator('[data-undo]').count()).toBe(0);
    await page.getByLabel('Language').selectOption('ar');
    await expect.poll(() => refused.textContent()).toBe(message.message_ar);
    await expectAccessible(page, 'undo refused (ar)');
    await page.getByLabel('اللغة').selectOption('en');
  });

  it('the mapping editor needs only the key mapped, marks what creating a record needs, and offers “clear when empty” on clearable fields', async () => {
    await nav('Mappings');
    await page.getByRole('link', { name: 'New mapping' }).click();
    await heading('New mapping');
    await page.getByLabel('Name', { exact: true }).fill('Sale prices');
    // Variants: the key alone is required; the product and price are needed only by a row that creates a variant.
    await page.getByRole('combobox', { name: 'Structure' }).selectOption('variants');
    await page.locator('tr[data-field="product"]').waitFor();
    expect(await page.locator('[data-key-hint]').textContent()).toContain('Only the key (*) must be mapped');
    expect(await page.getByLabel('Source column for SKU').getAttribute('required')).not.toBeNull();
    expect(await page.getByLabel('Source column for Price', { exact: true }).getAttribute('required')).toBeNull();
    expect(await page.locator('tr[data-field="price"] [data-to-create]').textContent()).toBe('needed to create');
    expect(await page.locator('tr[data-field="sku"] [data-to-create]').count()).toBe(0);
    // Prices only change the SKUs the store has: nothing is needed to create.
    await page.getByRole('combobox', { name: 'Structure' }).selectOption('prices');
    await page.locator('tr[data-field="compare_at_price"]').waitFor();
    expect(await page.locator('[data-to-create]').count()).toBe(0);
    // Only a clearable field offers to clear its value from an empty cell.
    expect(
      await page.locator('[data-clear-when-empty]').evaluateAll((boxes) => boxes.map((box) => box.getAttribute('data-clear-when-empty'))),
    ).toEqual(['compare_at_price']);
    await page.getByLabel('Source column for SKU').fill('SKU');
    await page.getByLabel('Source column for Price before discount').fill('Was');
    await page.getByRole('checkbox', { name: 'Clear when empty (Price before discount)' }).check();
    await expectAccessible(page, 'mapping editor, clear when empty (en)');
    await shoot(page, 'hub-mapping-clear-en');
    const created = page.waitForResponse(
      (response) => response.url().endsWith('/admin/data-hub/mappings') && response.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Create' }).click();
    const answer = await created;
    expect(answer.status(), await answer.text()).toBe(201);
    expect(answer.request().postDataJSON().fields).toEqual([
      { target: 'sku', source: 'SKU' },
      { target: 'compare_at_price', source: 'Was', clearWhenEmpty: true },
    ]);
    await heading('Sale prices');
    await expect.poll(() => page.getByRole('checkbox', { name: 'Clear when empty (Price before discount)' }).isChecked()).toBe(true);
    await page.getByLabel('Language').selectOption('ar');
    await expect
      .poll(() => page.locator('tr[data-field="compare_at_price"] .clear-when-empty').textContent())
      .toBe('امسح القيمة إن كانت الخلية فارغة (السعر قبل الخصم)');
    await expectAccessible(page, 'mapping editor, clear when empty (ar)');
    await page.getByLabel('اللغة').selectOption('en');
  });

  it('an undo the shrink guard refuses says why in the member’s language, and its override undoes the run once', async () => {
    const token = await staffToken(t.app, owner);
    const drop = await activeDrop(t.app, token, 'brands');
    const mapping = ok(
      await adminCall(t.app, 'POST', `${HUB}/mappings`, token, {
        name: 'Brands in',
        structure: 'brands',
        direction: 'import',
        fields: [
          { target: 'slug', source: 'slug' },
          { target: 'name_en', source: 'en' },
          { target: 'name_ar', source: 'ar' },
        ],
      }),
      201,
    );
    const flow = ok(
      await adminCall(t.app, 'POST', `${HUB}/flows`, token, {
        name: 'Brands',
        connectionId: drop.id,
        mappingId: mapping.id,
        direction: 'import',
        format: 'csv',
        fileTemplate: 'brands-*.csv',
        shrinkGuard: { maxDeactivatePercent: 1, maxDeactivateCount: 500 },
      }),
      201,
    );
    await drop.upload('brands-1.csv', 'slug,en,ar\nundo-brand-a,Undo brand A,علامة أ\nundo-brand-b,Undo brand B,علامة ب\n');
    const run = ok(await adminCall(t.app, 'POST', `${HUB}/flows/${flow.id}/runs`, token, {}), 202);
    await t.app.get(RunsService).execute(run.id);

    // Taking the run back removes the two brands it created: more than the flow's 1%.
    await page.goto(`${base}/admin/app/data-hub/runs/${run.id}`);
    await page.getByRole('button', { name: 'Undo this run…' }).click();
    const preview = page.locator('[data-undo-preview]');
    const refusal = preview.locator('[data-refusal="shrink_guard"]');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/It would deactivate 2 of \d+ active records \([\d.]+%\), more than the flow allows \(1%/);
    expect(await preview.getByRole('button', { name: 'Undo the run' }).count()).toBe(0);
    await page.getByLabel('Language').selectOption('ar');
    await expect.poll(() => refusal.textContent()).toMatch(/رفضته حماية التقلّص\. كان سيعطّل/);
    expect(await preview.getByRole('button', { name: 'تجاوز مرة واحدة وتراجع' }).count()).toBe(1);
    await expectAccessible(page, 'undo refused by the shrink guard (ar)');
    await shoot(page, 'hub-undo-refused-ar');
    await page.getByLabel('اللغة').selectOption('en');

    await preview.getByLabel('Most records to deactivate (%)').fill('100');
    await preview.getByLabel('Reason (recorded with your name)').fill('The brands were imported by mistake');
    const asked = page.waitForResponse(
      (response) => response.request().method() === 'POST' && response.url().endsWith(`/runs/${run.id}/undo`),
    );
    await preview.getByRole('button', { name: 'Override once and undo' }).click();
    const queued = await asked;
    expect([queued.status(), queued.request().postDataJSON()]).toEqual([
      202,
      { overrideShrinkGuard: { maxDeactivatePercent: 100, reason: 'The brands were imported by mistake' } },
    ]);
    const undoId = (await queued.json()).id as string;
    await page.waitForURL(new RegExp(`/data-hub/runs/${undoId}$`));
    await t.app.get(RunsService).execute(undoId);
    await page.locator('[data-status="succeeded"]').first().waitFor({ timeout: 15_000 });
    await expect.poll(() => page.locator('[data-count="deactivated"] dd').textContent()).toBe('2');
    await page.getByText('Shrink guard lifted for this run to 100%: The brands were imported by mistake').waitFor();
    await page.locator(`[data-undo-of="${run.id}"]`).waitFor();
    expect(await t.db.rows(`select slug from brands where store_id = $1 and slug like 'undo-brand-%'`, [store.storeId])).toEqual([]);
  });
});
