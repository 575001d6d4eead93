import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { chown, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { STORAGE_FAILURES } from '../../src/infra/storage/storage-failure.js';
import { StoreService } from '../../src/stores/store.service.js';
import { activeDrop, HUB, stockExportMapping } from '../data-hub/hub-fixtures.js';
import { daysAgo, finished, seedSearches } from '../insights/exports-support.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp, type Harness } from '../support/harness.js';
import { startObjectStorage, type ObjectStoragePeer } from '../support/peers/object-storage.js';
import { startSshd, type SshdPeer } from '../support/peers/sshd.js';
import { ARABIC } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';

const EXPORTS = '/admin/insights/exports';
/** The generic reason these failures were recorded with before they were told apart. */
const GENERIC = 'did not answer';

/** A tmpfs of `size` at `dir` (tests run as root); `options` such as `ro` for a read-only one. */
function mountTmpfs(dir: string, size: string, options = ''): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}${options ? `,${options}` : ''}`, 'tmpfs', dir]);
}

function remount(dir: string, mode: 'ro' | 'rw'): void {
  execFileSync('mount', ['-o', `remount,${mode}`, dir]);
}

function unmount(dir: string): void {
  execFileSync('umount', ['-l', dir]);
}

/** Writes into `dir` until its file system is full: what a failed write leaves is kept. */
async function fill(dir: string): Promise<string> {
  const filler = join(dir, 'filler.bin');
  await writeFile(filler, Buffer.alloc(64 * 1024 * 1024)).then(
    () => {
      throw new Error(`${dir} took 64 MiB: it is not the small file system the test meant to fill`);
    },
    (error: NodeJS.ErrnoException) => expect(error.code).toBe('ENOSPC'),
  );
  return filler;
}

/** An owner of a pro store with searches to export, and the calls the tests make. */
async function merchant(t: Harness) {
  const store: TestStore = await t.store({ seedCatalogue: true, productCount: 5 });
  await t.app.get(StoreService).setPlan(store.storeId, 'pro');
  await seedSearches(t.db, store.storeId, daysAgo(10), 300);
  const owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
  const exportMapping = await stockExportMapping(t.app, owner);
  return {
    store,
    owner,
    call,
    /** Asks for an export of the searches report. */
    startExport: async () =>
      ok(await call('POST', EXPORTS, { source: { report: 'searches', params: { from: daysAgo(11), to: daysAgo(9) } }, format: 'csv' }), 202)
        .id as string,
    exportDoc: async (id: string) => ok(await call('GET', `${EXPORTS}/${id}`)),
    /** A data hub export of the store's stock to `connectionId` as stock.csv, run now. */
    runDataHubExport: async (connectionId: string): Promise<Record<string, any>> => {
      const flowId = ok(
        await call('POST', `${HUB}/flows`, {
          name: 'Stock out',
          connectionId,
          mappingId: exportMapping,
          direction: 'export',
          format: 'csv',
          fileTemplate: 'stock.csv',
        }),
        201,
      ).id;
      const queued = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}), 202);
      // This app works its job queue, as a deployed instance does.
      const run = await eventually(
        async () => ok(await call('GET', `${HUB}/runs/${queued.id}`)),
        (doc) => doc.status !== 'queued' && doc.status !== 'running',
        30_000,
      );
      const [{ attempts }] = await t.db.rows<{ attempts: number }>(`select attempts from data_hub_runs where id = $1`, [queued.id]);
      return { ...run, attempts };
    },
  };
}

function expectReason(error: { code: string; message_en: string; message_ar: string }, code: keyof typeof STORAGE_FAILURES) {
  expect(error.code).toBe(code);
  expect(error.message_en).toContain(STORAGE_FAILURES[code].en);
  expect(error.message_ar).toContain(STORAGE_FAILURES[code].ar);
  expect(error.message_ar).toMatch(ARABIC);
  expect(error.message_en).not.toContain(GENERIC);
}

describe('the service’s file storage on a local disk that is full, then read-only (issue 24, item 8)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'storage-failures-'));
  const files = join(dataDir, 'files');
  beforeAll(async () => {
    await mkdir(files);
    mountTmpfs(files, '2m');
  });
  afterAll(() => {
    unmount(files);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const t = useTestApp({ DATA_DIR: dataDir, JOB_RETRY_DELAY_SECONDS: '1' }, { schedulers: true, ownDatabase: true });
  let shop: Awaited<ReturnType<typeof merchant>>;
  let drop: string;

  beforeAll(async () => {
    shop = await merchant(t);
    drop = (await activeDrop(t.app, shop.owner, 'out')).id;
  }, 120_000);

  it('an Insights export says the storage is full, and is tried again: it succeeds once there is room', async () => {
    const filler = await fill(files);
    const id = await shop.startExport();
    const waiting = await eventually(
      () => shop.exportDoc(id),
      (doc) => doc.error !== null || doc.status === 'succeeded' || doc.status === 'failed',
      30_000,
    );
    expect(waiting.status).toBe('queued');
    expectReason(waiting.error, 'storage_full');
    await rm(filler);
    const done = await finished(t.app, shop.owner, id);
    expect(done).toMatchObject({ status: 'succeeded', error: null });
    expect(done.attempts).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('an Insights export still finding the storage full at its last attempt fails naming it', async () => {
    const filler = await fill(files);
    try {
      const done = await finished(t.app, shop.owner, await shop.startExport());
      expect(done).toMatchObject({ status: 'failed', attempts: 3, error: { code: 'failed_after_retries' } });
      expect(done.error.message_en).toContain(`The last one: ${STORAGE_FAILURES.storage_full.en}`);
      expect(done.error.message_ar).toContain(STORAGE_FAILURES.storage_full.ar);
    } finally {
      await rm(filler);
    }
  }, 60_000);

  it('a data hub export to the platform drop fails at once naming the full storage, and a test of the drop says so too', async () => {
    const filler = await fill(files);
    try {
      const run = await shop.runDataHubExport(drop);
      expect(run).toMatchObject({ status: 'failed', attempts: 1, file: null });
      expectReason(run.error, 'storage_full');
      expect(run.error.message_en).toContain('stock.csv was not written.');
      const tested = ok(await shop.call('POST', `${HUB}/connections/${drop}/test`));
      expectReason(tested.lastTest, 'storage_full');
    } finally {
      await rm(filler);
    }
    // Room again: the drop passes its test and is taken back into use.
    expect(ok(await shop.call('POST', `${HUB}/connections/${drop}/test`)).lastTest.ok).toBe(true);
    ok(await shop.call('POST', `${HUB}/connections/${drop}/activate`));
  });

  it('an upload into the drop larger than the room left is 507 storage_full, and nothing of it is kept', async () => {
    const upload = (bytes: number) =>
      t.app.inject({
        method: 'PUT',
        url: `${HUB}/connections/${drop}/files/big.csv`,
        headers: { authorization: `Bearer ${shop.owner}`, 'content-type': 'text/csv' },
        payload: Buffer.alloc(bytes, 'a'),
      });
    const refused = await upload(4 * 1024 * 1024);
    expect(refused.statusCode).toBe(507);
    expect(refused.json()).toMatchObject({ code: 'storage_full', message_en: STORAGE_FAILURES.storage_full.en });
    expect(refused.json().message_ar).toMatch(ARABIC);
    const listed = ok(await shop.call('GET', `${HUB}/connections/${drop}/files`));
    expect(listed.items.map((file: { name: string }) => file.name)).not.toContain('big.csv');
    // The room is there again for a file that fits.
    expect(ok(await upload(1024)).bytes).toBe(1024);
  });

  it('a read-only storage: an Insights export and a data hub export fail at once, permission denied', async () => {
    remount(files, 'ro');
    try {
      const done = await finished(t.app, shop.owner, await shop.startExport());
      expect(done).toMatchObject({ status: 'failed', attempts: 1 });
      expectReason(done.error, 'storage_permission_denied');
      const run = await shop.runDataHubExport(drop);
      expect(run).toMatchObject({ status: 'failed', attempts: 1 });
      expectReason(run.error, 'storage_permission_denied');
    } finally {
      remount(files, 'rw');
    }
  }, 60_000);
});

describe('the service’s file storage in a bucket that does not exist (issue 24, item 8)', () => {
  let peer: ObjectStoragePeer;
  beforeAll(async () => {
    peer = await startObjectStorage();
    // The SDK's default chain, as FILE_STORAGE_URL's storage takes its credentials.
    vi.stubEnv('AWS_ACCESS_KEY_ID', peer.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', peer.secretAccessKey);
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await peer?.stop();
  });
  const t = useTestApp(
    () => ({
      FILE_STORAGE_URL: `s3://no-such-bucket/files?region=${peer.region}&endpoint=${encodeURIComponent(peer.endpoint)}&forcePathStyle=true`,
      JOB_RETRY_DELAY_SECONDS: '1',
      DATAHUB_ALLOWED_HOSTS: '127.0.0.1',
    }),
    { schedulers: true, ownDatabase: true },
  );
  let shop: Awaited<ReturnType<typeof merchant>>;
  beforeAll(async () => {
    shop = await merchant(t);
  }, 120_000);

  it('an Insights export fails at once: the bucket is missing', async () => {
    const done = await finished(t.app, shop.owner, await shop.startExport());
    expect(done).toMatchObject({ status: 'failed', attempts: 1 });
    expectReason(done.error, 'storage_bucket_missing');
  });

  it('the platform drop’s test and a data hub export to it say the bucket is missing', async () => {
    const created = ok(
      await shop.call('POST', `${HUB}/connections`, { name: 'Drop', kind: 'platform_drop', config: { prefix: 'out' } }),
      201,
    );
    const tested = ok(await shop.call('POST', `${HUB}/connections/${created.id}/test`));
    expect(tested.status).toBe('failed');
    expectReason(tested.lastTest, 'storage_bucket_missing');
    // Activated as it was before its bucket went: the run then meets the missing bucket.
    await t.db.query(`update data_hub_connections set status = 'active' where id = $1`, [created.id]);
    const run = await shop.runDataHubExport(created.id);
    expect(run).toMatchObject({ status: 'failed', attempts: 1 });
    expectReason(run.error, 'storage_bucket_missing');
  });

  it('a merchant’s object storage connection to a missing bucket names the bucket', async () => {
    const created = ok(
      await shop.call('POST', `${HUB}/connections`, {
        name: 'Their bucket',
        kind: 'object_storage',
        config: { endpoint: peer.endpoint, region: peer.region, bucket: 'not-their-bucket', prefix: 'out', forcePathStyle: true },
        credentials: { accessKeyId: peer.accessKeyId, secretAccessKey: peer.secretAccessKey },
      }),
      201,
    );
    const tested = ok(await shop.call('POST', `${HUB}/connections/${created.id}/test`));
    expect(tested.lastTest).toMatchObject({
      code: 'not_found',
      message_en: expect.stringContaining('No bucket is named not-their-bucket.'),
      message_ar: expect.stringContaining('not-their-bucket'),
    });
  });
});

describe('an SFTP server whose disk is full (issue 24, item 8)', () => {
  let sshd: SshdPeer;
  let full: string;
  const t = useTestApp({ DATAHUB_ALLOWED_HOSTS: '127.0.0.1' });
  beforeAll(async () => {
    sshd = await startSshd();
    full = join(sshd.root, 'full');
    await mkdir(full);
    mountTmpfs(full, '64k');
    const { uid, gid } = await stat(sshd.root);
    await chown(full, uid, gid);
    await fill(full);
  }, 60_000);
  afterAll(async () => {
    if (full) unmount(full);
    await sshd?.stop();
  });

  it('fails a test that writes there with the server’s refusal, naming a full disk, not a lost connection', async () => {
    const store = await t.store();
    const owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    const created = ok(
      await adminCall(t.app, 'POST', `${HUB}/connections`, owner, {
        name: 'Warehouse SFTP',
        kind: 'sftp',
        config: { host: sshd.host, port: sshd.port, username: sshd.username, basePath: full },
        credentials: { password: sshd.password },
      }),
      201,
    );
    const tested = ok(await adminCall(t.app, 'POST', `${HUB}/connections/${created.id}/test`, owner));
    expect(tested.lastTest).toMatchObject({
      ok: false,
      code: 'server_refused',
      message_en: expect.stringContaining('disk or the user’s quota is full'),
      message_ar: expect.stringMatching(ARABIC),
    });
  });
});
