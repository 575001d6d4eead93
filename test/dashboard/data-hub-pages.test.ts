import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { StoreService } from '../../src/stores/store.service.js';
import { ROOT } from '../support/build.js';
import { addStaff, supportSession, type TestStaff } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { startSshd, type SshdPeer } from '../support/peers/sshd.js';
import { buildDashboard, expectAccessible, launchChromium, shoot } from './browser.js';

/**
 * The dashboard's data hub pages (issue 13) in Chromium against the real service: a platform drop
 * connection tested and activated; an SFTP connection whose test fails with its reason, then passes
 * against a real sshd with the pinned host key shown; a stock file uploaded with the page's own
 * cookie and CSRF token; a mapping built in the editor (mapping_invalid shown per field, versions and
 * restore); a flow, its preview with the rejected rows and their reasons, a run and its page; pause and
 * mute; Arabic right to left; a support session without write controls; 409 connection_in_use. axe-core
 * on each page, screenshots (hub-*) under test-results/dashboard/.
 */
const BUILD_DIR = join(ROOT, '.data', `test-dashboard-hub-${randomBytes(4).toString('hex')}`);

declare const document: { cookie: string; documentElement: { dir: string; lang: string } };

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
  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();

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

  it('an SFTP connection’s test fails with its reason, then passes against a real sshd and shows the pinned fingerprint', async () => {
    await nav('Connections');
    await page.getByRole('link', { name: 'New connection' }).click();
    await page.getByRole('combobox', { name: 'Kind' }).selectOption('sftp');
    await page.getByLabel('Name', { exact: true }).fill('Supplier SFTP');
    await page.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await page.getByLabel('Port', { exact: true }).fill('1');
    await page.getByLabel('User name').fill(sshd.username);
    await page.getByLabel('Folder on the server').fill(sshd.root);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
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

  it('builds a stock mapping in the editor: source fields read, mapping_invalid per field, versions and restore', async () => {
    // The stock file, uploaded into the drop with the page's own cookie and CSRF token.
    const csv = ['SKU,Qty', `${skus[0]},7`, `${skus[1]},abc`, 'NOPE-1,3', `${skus[2]},12`].join('\n') + '\n';
    const status = await page.evaluate(
      async ({ id, body }) => {
        const csrf = decodeURIComponent(
          document.cookie
            .split('; ')
            .find((part) => part.startsWith('adm_csrf='))!
            .slice(9),
        );
        const response = await fetch(`/admin/data-hub/connections/${id}/files/stock-1.csv`, {
          method: 'PUT',
          headers: { 'X-CSRF-Token': csrf, 'Content-Type': 'text/csv' },
          body,
        });
        return response.status;
      },
      { id: dropId, body: csv },
    );
    expect(status).toBeLessThan(300);

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
    await page.getByLabel('Source column for sku').fill('SKU');
    await page.getByLabel('Source column for stock').fill('Qty');
    // A transform whose args its schema refuses: mapping_invalid, shown next to the field.
    await page.getByLabel('Transform to add to sku').selectOption('default');
    await page.getByRole('button', { name: 'Add the transform to sku' }).click();
    await page.getByLabel('Transform to add to stock').selectOption('map_values');
    await page.getByRole('button', { name: 'Add the transform to stock' }).click();
    await page.getByLabel('Value 1 in the file').fill('none');
    await page.getByLabel('Value 1 becomes').fill('0');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('[data-field-errors="sku"]').waitFor();
    await expect.poll(() => page.locator('.problem').getAttribute('data-code')).toBe('mapping_invalid');
    await expectAccessible(page, 'mapping editor with errors (en)');
    await shoot(page, 'hub-mapping-invalid-en');
    await page.getByRole('button', { name: 'Remove default from sku' }).click();
    await page.getByLabel('Transform to add to sku').selectOption('trim');
    await page.getByRole('button', { name: 'Add the transform to sku' }).click();
    await page.getByLabel('Transform to add to stock').selectOption('to_integer');
    await page.getByRole('button', { name: 'Add the transform to stock' }).click();
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
    await page.getByRole('button', { name: 'Remove map_values from stock' }).click();
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.getByText('Current version: 2').waitFor();
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByText('Current version: 3').waitFor();
    await expect.poll(() => page.locator('tr[data-field="stock"] [data-transform]').count()).toBe(2);
    await expectAccessible(page, 'mapping editor (en)');
    await shoot(page, 'hub-mapping-en');
  });

  it('creates a flow, previews it with the rejected rows and their reasons, pauses and mutes it', async () => {
    await nav('Flows');
    await heading('Flows');
    await page.getByRole('link', { name: 'New flow' }).click();
    await heading('New flow');
    await page.getByLabel('Name', { exact: true }).fill('Supplier stock import');
    await page.getByRole('combobox', { name: 'Connection' }).selectOption({ label: 'Supplier drop (Active)' });
    await page.getByRole('combobox', { name: 'Mapping' }).selectOption({ label: 'Supplier stock (stock, Import)' });
    await page.getByRole('textbox', { name: 'File name template' }).fill('stock-*.csv');
    await page.getByLabel('Run on a schedule').check();
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
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const preview = page.locator('[data-preview]');
    await preview.waitFor();
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
    await expectAccessible(page, 'flow preview (ar)');
    await shoot(page, 'hub-flow-preview-ar');
    await nav('الاتصالات');
    await page.getByRole('heading', { level: 1, name: 'الاتصالات' }).waitFor();
    await page.locator('[data-connection="Supplier drop"]').waitFor();
    await expectAccessible(page, 'connections (ar)');
    await shoot(page, 'hub-connections-ar');
    await page.getByLabel('اللغة').selectOption('en');
  });

  it('runs the flow now: the run page shows its counts and its rejected and changed rows', async () => {
    await page.goto(flowUrl);
    await heading('Supplier stock import');
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.waitForURL(/\/data-hub\/runs\/[\w-]+$/);
    const runId = /runs\/([\w-]+)$/.exec(page.url())![1];
    // The test app works no queue: the run's job is worked here, and the page updates by itself.
    await t.app.get(RunsService).execute(runId);
    await page.locator('[data-status="succeeded"]').first().waitFor({ timeout: 15_000 });
    await expect.poll(() => page.locator('[data-count="changed"] dd').textContent()).toBe('2');
    await expect.poll(() => page.locator('[data-list="rejected"] [data-rejected-line]').count()).toBe(2);
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
    await expectAccessible(readerPage, 'flow, read only (en)');
    await shoot(readerPage, 'hub-flow-reader-en');
    await readerContext.close();
  });

  it('a support session sees the data hub with no write controls', async () => {
    const support = await supportSession(t.app, store.storeId);
    const supportContext = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    await supportContext.addCookies([
      { name: 'adm_access', value: support.token, url: `${base}/admin`, httpOnly: true, secure: true, sameSite: 'Strict' },
    ]);
    const supportPage = await supportContext.newPage();
    await supportPage.goto(flowUrl);
    await supportPage.locator('[data-read-only]').waitFor();
    await supportPage.getByRole('heading', { level: 1, name: 'Supplier stock import' }).waitFor();
    await supportPage.locator('[data-run]').first().waitFor();
    for (const name of ['Preview', 'Run now', 'Pause', 'Resume', 'Save', 'Create'])
      expect(await supportPage.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    await supportPage.goto(`${base}/admin/app/data-hub/connections/${dropId}`);
    await supportPage.getByRole('heading', { level: 1, name: 'Supplier drop' }).waitFor();
    expect(await supportPage.getByRole('button').count()).toBe(0);
    await supportPage.goto(`${base}/admin/app/data-hub/connections`);
    await supportPage.locator('[data-connection="Supplier drop"]').waitFor();
    expect(await supportPage.getByRole('link', { name: 'New connection' }).count()).toBe(0);
    await expectAccessible(supportPage, 'support connections (en)');
    await shoot(supportPage, 'hub-support-connections-en');
    await supportContext.close();
  });
});
