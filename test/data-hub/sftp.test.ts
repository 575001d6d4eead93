import { randomBytes } from 'node:crypto';
import { chown, mkdir, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { freePort } from '../support/ports.js';
import { descendantsOf, openPaths } from '../support/peers/processes.js';
import { startSshd, type SshdPeer } from '../support/peers/sshd.js';
import { eventually } from '../support/waiting.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { captureLogs } from './log-capture.js';

const BASE = '/admin/data-hub/connections';
const WRONG_PASSWORD = `wrong-${randomBytes(10).toString('hex')}`;

describe('data hub SFTP connections against a real OpenSSH server (contract section 9)', () => {
  const logs = captureLogs();
  const t = useTestApp({ ...logs.env, DATAHUB_ALLOWED_HOSTS: '127.0.0.1' }, { logTo: logs.logTo });
  let sshd: SshdPeer;
  let owner: string;
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
  const sftp = (credentials: Record<string, string>, config: Record<string, unknown> = {}) => ({
    name: 'Supplier SFTP',
    kind: 'sftp',
    config: { host: sshd.host, port: sshd.port, username: sshd.username, basePath: sshd.root, ...config },
    credentials,
  });
  const createAndTest = async (body: unknown) => {
    const created = ok(await call('POST', BASE, body), 201);
    return ok(await call('POST', `${BASE}/${created.id}/test`));
  };
  /** A file in the SFTP user's folder, owned by the user, last modified `minutesAgo`. */
  const place = async (name: string, content: string | Buffer, minutesAgo: number, folder = sshd.root) => {
    const path = join(folder, name);
    await writeFile(path, content);
    const { uid, gid } = await stat(sshd.root);
    await chown(path, uid, gid);
    const at = new Date(Date.now() - minutesAgo * 60_000);
    await utimes(path, at, at);
  };

  beforeAll(async () => {
    sshd = await startSshd();
    const store = await t.store();
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
  }, 60_000);

  afterAll(async () => {
    await sshd?.stop();
    logs.expectNone([sshd.password, WRONG_PASSWORD, sshd.privateKey, sshd.passphrase, sshd.privateKey.split('\n')[1]]);
  });

  it('tests with a password: lists, writes and deletes a probe, pins the host key as ssh-keygen prints it, and activates', async () => {
    const tested = await createAndTest(sftp({ password: sshd.password }));
    expect(tested.status).toBe('tested');
    expect(tested.lastTest).toEqual({ at: expect.any(String), ok: true });
    expect(tested.hostKey).toEqual({
      algorithm: 'ssh-ed25519',
      fingerprint: await sshd.hostKeyFingerprint(),
      pinnedAt: tested.lastTest.at,
    });
    expect(tested.credentials).toEqual({ set: true, fields: ['password'] });
    expect(JSON.stringify(tested)).not.toContain(sshd.password);
    expect((await readdir(sshd.root)).filter((name) => name.includes('probe'))).toEqual([]);
    expect(ok(await call('POST', `${BASE}/${tested.id}/activate`)).status).toBe('active');
  });

  it('tests with a private key, and with an encrypted one and its passphrase', async () => {
    expect((await createAndTest(sftp({ privateKey: sshd.privateKey }))).status).toBe('tested');
    const encrypted = await createAndTest(sftp({ privateKey: sshd.encryptedPrivateKey, passphrase: sshd.passphrase }));
    expect(encrypted.status).toBe('tested');
    expect(encrypted.credentials.fields).toEqual(['privateKey', 'passphrase']);
  });

  it('fails with reasons the merchant can act on, never echoing a credential', async () => {
    const wrongPassword = await createAndTest(sftp({ password: WRONG_PASSWORD }));
    expect(wrongPassword.status).toBe('failed');
    expect(wrongPassword.lastTest).toMatchObject({ ok: false, code: 'auth_failed', message_ar: expect.stringMatching(ARABIC) });
    expect(JSON.stringify(wrongPassword)).not.toContain(WRONG_PASSWORD);
    expect(wrongPassword.hostKey).toBeNull();

    expect((await createAndTest(sftp({ privateKey: sshd.wrongPrivateKey }))).lastTest.code).toBe('auth_failed');
    expect((await createAndTest(sftp({ password: sshd.password }, { basePath: join(sshd.root, 'missing') }))).lastTest.code).toBe(
      'not_found',
    );
    expect((await createAndTest(sftp({ password: sshd.password }, { basePath: '/' }))).lastTest.code).toBe('permission_denied');
    expect((await createAndTest(sftp({ password: sshd.password }, { port: await freePort() }))).lastTest.code).toBe('host_unreachable');
    expect((await createAndTest(sftp({ password: sshd.password }, { host: 'localhost.' }))).lastTest.code).toMatch(
      /^host_(not_allowed|unreachable)$/,
    );
  });

  it('times out within 10 s on a server that accepts and never speaks', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const started = Date.now();
      const tested = await createAndTest(sftp({ password: sshd.password }, { port: (silent.address() as { port: number }).port }));
      expect(tested.lastTest.code).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(11_500);
    } finally {
      silent.close();
    }
  }, 20_000);

  it('field discovery reads the header of the newest file matching the template', async () => {
    const folder = join(sshd.root, `in-${randomBytes(3).toString('hex')}`);
    await mkdir(folder);
    const { uid, gid } = await stat(sshd.root);
    await chown(folder, uid, gid);
    await place('stock-20261120.csv', 'sku,quantity\nA,1\n', 60, folder);
    await place('stock-20261122.csv', '\uFEFFsku,"كمية",warehouse\nA,1,R\n', 5, folder);
    await place('stock-20261121.csv', 'sku,qty\n', 30, folder);
    await place('prices.jsonl', '{"sku":"A","price":10}\n{"sku":"B","sale":5}\n', 1, folder);
    const created = ok(await call('POST', BASE, sftp({ password: sshd.password }, { basePath: folder })), 201);
    expect(ok(await call('GET', `${BASE}/${created.id}/fields?template=${encodeURIComponent('stock-{yyyy}{MM}{dd}.csv')}`))).toEqual({
      source: { kind: 'file', name: 'stock-20261122.csv', bytes: expect.any(Number), modifiedAt: expect.any(String) },
      fields: [{ name: 'sku' }, { name: 'كمية' }, { name: 'warehouse' }],
    });
    expect(ok(await call('GET', `${BASE}/${created.id}/fields?template=prices.jsonl`)).fields).toEqual([
      { name: 'sku' },
      { name: 'price' },
      { name: 'sale' },
    ]);
    const none = expectProblem(await call('GET', `${BASE}/${created.id}/fields?template=orders-*.csv`), 422, 'source_unavailable');
    expect(none.reason.code).toBe('no_matching_file');
  });

  it('a session whose sshd is killed mid-listing fails as a lost connection, not a pass', async () => {
    const own = await startSshd();
    try {
      const folder = join(own.root, 'many');
      await mkdir(folder);
      const { uid, gid } = await stat(own.root);
      await chown(folder, uid, gid);
      for (let batch = 0; batch < 40; batch++) {
        await Promise.all(Array.from({ length: 500 }, (_, i) => writeFile(join(folder, `file-${batch}-${i}-${'x'.repeat(80)}.csv`), '')));
      }
      const created = ok(
        await call('POST', BASE, {
          name: 'Killed',
          kind: 'sftp',
          config: { host: own.host, port: own.port, username: own.username, basePath: folder },
          credentials: { password: own.password },
        }),
        201,
      );
      const testing = call('POST', `${BASE}/${created.id}/test`);
      // Mid-listing: a process of the session holds the folder open (sftp's opendir) while the names are read.
      const listing = await eventually(
        async () => descendantsOf(own.pid).filter((pid) => openPaths(pid).includes(folder)),
        (holders) => holders.length > 0,
        10_000,
      );
      expect(listing).toHaveLength(1);
      own.kill();
      const tested = ok(await testing);
      expect(tested.status).toBe('failed');
      expect(tested.lastTest.code).toBe('connection_lost');
    } finally {
      await own.stop();
    }
  }, 60_000);

  it('pins the host key on first contact and refuses a changed one, naming both fingerprints, until the pin is cleared', async () => {
    const first = await createAndTest(sftp({ password: sshd.password }));
    ok(await call('POST', `${BASE}/${first.id}/activate`));
    const pinned = await sshd.hostKeyFingerprint();
    await sshd.regenerateHostKey();
    const presented = await sshd.hostKeyFingerprint();
    expect(presented).not.toBe(pinned);

    const refused = ok(await call('POST', `${BASE}/${first.id}/test`));
    expect(refused.status).toBe('failed');
    expect(refused.lastTest.code).toBe('host_key_mismatch');
    expect(refused.lastTest.message_en).toContain(pinned);
    expect(refused.lastTest.message_en).toContain(presented);
    expect(refused.lastTest.message_ar).toContain(presented);
    expect(refused.hostKey.fingerprint).toBe(pinned);
    expectProblem(await call('POST', `${BASE}/${first.id}/activate`), 409, 'connection_not_tested');

    const cleared = ok(await call('PUT', `${BASE}/${first.id}`, { hostKey: null }));
    expect(cleared).toMatchObject({ status: 'untested', hostKey: null });
    const repinned = ok(await call('POST', `${BASE}/${first.id}/test`));
    expect(repinned.status).toBe('tested');
    expect(repinned.hostKey.fingerprint).toBe(presented);
  }, 30_000);
});
