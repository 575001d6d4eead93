import { appendFile, chown, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { startSshd, type SshdPeer } from '../support/peers/sshd.js';
import { ARABIC } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { HUB, stockMapping } from './hub-fixtures.js';

const GIB = 1024 ** 3;

/**
 * Files a merchant's SFTP server can hand a nightly import that no well-formed test file shows: one of
 * 2 GiB, and one still being written while the run reads it. Each gets a clear outcome, and the
 * catalogue stays as it was.
 */
describe('data hub imports of bad files from a real SFTP server (issue 12, bad files)', () => {
  const t = useTestApp({ DATAHUB_ALLOWED_HOSTS: '127.0.0.1' });
  let sshd: SshdPeer;
  let store: TestStore;
  let owner: string;
  let connection: string;
  let mapping: string;
  let skus: string[];
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
  const stock = async () =>
    (
      await t.db.rows<{ sku: string; stock: number }>(`select sku, stock from product_variants where store_id = $1 order by sku`, [
        store.storeId,
      ])
    )
      .map((row) => `${row.sku}:${row.stock}`)
      .join(' ');
  /** A file in the SFTP user's folder, owned by that user. */
  const place = async (name: string, content: string) => {
    const path = join(sshd.root, name);
    await writeFile(path, content);
    const { uid, gid } = await stat(sshd.root);
    await chown(path, uid, gid);
    return path;
  };
  const runOn = async (file: string) => {
    const flowId = ok(
      await call('POST', `${HUB}/flows`, {
        name: file,
        connectionId: connection,
        mappingId: mapping,
        direction: 'import',
        format: 'csv',
        fileTemplate: file,
      }),
      201,
    ).id;
    const queued = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}), 202);
    return queued.id as string;
  };
  const finish = async (runId: string) => {
    await t.app.get(RunsService).execute(runId);
    return ok(await call('GET', `${HUB}/runs/${runId}`));
  };

  beforeAll(async () => {
    sshd = await startSshd();
    store = await t.store({ seedCatalogue: true, productCount: 10 });
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    connection = ok(
      await call('POST', `${HUB}/connections`, {
        name: 'Supplier',
        kind: 'sftp',
        config: { host: sshd.host, port: sshd.port, username: sshd.username, basePath: sshd.root },
        credentials: { password: sshd.password },
      }),
      201,
    ).id;
    ok(await call('POST', `${HUB}/connections/${connection}/test`));
    ok(await call('POST', `${HUB}/connections/${connection}/activate`));
    mapping = await stockMapping(t.app, owner);
    skus = (await t.db.rows<{ sku: string }>(`select sku from product_variants where store_id = $1 order by sku`, [store.storeId])).map(
      (row) => row.sku,
    );
  }, 120_000);

  afterAll(() => sshd?.stop());

  it('refuses a 2 GiB file at its first unreadable bytes, without reading it whole, and changes nothing', async () => {
    const path = await place('stock-huge.csv', ['sku,qty', ...skus.map((sku) => `${sku},99`)].join('\n') + '\n');
    await truncate(path, 2 * GIB); // the rest reads as NUL bytes, as a file cut off mid-transfer does
    const before = await stock();
    const started = Date.now();
    const run = await finish(await runOn('stock-huge.csv'));
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'format_mismatch', message_ar: expect.stringMatching(ARABIC) } });
    expect(await stock()).toBe(before);
  });

  it('refuses a file that grows while it is read, and imports it once it is complete', async () => {
    const rows = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => `${skus[(from + index) % skus.length]},${(from + index) % 50}`).join('\n') + '\n';
    const path = await place('stock-growing.csv', 'sku,qty\n' + rows(0, skus.length));
    const before = await stock();
    const runId = await runOn('stock-growing.csv');
    // The supplier's upload is still going on: rows arrive every few milliseconds until the run is over.
    let writing = true;
    const writer = (async () => {
      for (let next = skus.length; writing; next += 5) {
        await appendFile(path, rows(next, 5));
        await new Promise((done) => setTimeout(done, 5));
      }
    })();
    const run = await finish(runId);
    writing = false;
    await writer;
    expect(run).toMatchObject({ status: 'failed', error: { code: 'file_changed', message_ar: expect.stringMatching(ARABIC) } });
    expect(run.error.message_en).toContain('stock-growing.csv changed while it was read');
    expect(await stock()).toBe(before);

    const again = await finish(ok(await call('POST', `${HUB}/flows/${run.flowId}/runs`, {}), 202).id);
    expect(again).toMatchObject({ status: 'succeeded', file: { name: 'stock-growing.csv', bytes: (await stat(path)).size } });
  });
});
