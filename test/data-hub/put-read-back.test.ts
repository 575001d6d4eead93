import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { startSshd, type SshdPeer } from '../support/peers/sshd.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { HUB } from './hub-fixtures.js';

const STOCK_FIELDS = [
  { target: 'sku', source: 'sku', transforms: [{ name: 'trim' }] },
  { target: 'stock', source: 'qty', transforms: [{ name: 'to_integer' }] },
];

/** A field's refusal as an immutable member's: named, code `immutable`, saying to create a new one, in both languages. */
const immutable = (field: string) => ({
  field,
  code: 'immutable',
  message_en: expect.stringMatching(/cannot change|Only a passed test/),
  message_ar: expect.stringMatching(ARABIC),
});
const notAllowed = (field: string) => expect.objectContaining({ field, code: 'whitelistValidation' });

/**
 * Issue 24, item 10 (contract section 11): a mapping, a flow or a connection read with GET and sent back
 * whole with PUT is accepted. The members the server owns are ignored, immutable ones while unchanged;
 * a change to an immutable member is 400 naming it; a member GET never returns is still refused.
 */
describe('data hub PUT takes back what GET returned', () => {
  const t = useTestApp({ DATAHUB_ALLOWED_HOSTS: '127.0.0.1' });
  let sshd: SshdPeer;
  let owner: string;
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
  const get = async (url: string) => ok(await call('GET', url));

  beforeAll(async () => {
    sshd = await startSshd();
    const store = await t.store();
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
  }, 60_000);

  afterAll(async () => {
    await sshd?.stop();
  });

  it('a mapping: sent back whole it is version N+1 with the same fields; a new structure or direction is refused, naming it', async () => {
    const url = `${HUB}/mappings/${ok(await call('POST', `${HUB}/mappings`, { name: 'Stock', structure: 'stock', direction: 'import', fields: STOCK_FIELDS }), 201).id}`;
    const read = await get(url);
    const written = ok(await call('PUT', url, read));
    // Each PUT creates version N+1 (contract section 9), the same fields included.
    expect(written).toEqual({ ...read, version: 2, updatedAt: expect.any(String) });
    expect((await get(`${url}/versions`)).items.map((version: { version: number }) => version.version)).toEqual([2, 1]);

    // What the server owns is ignored whatever it holds: the version is the server's count.
    const renamed = ok(await call('PUT', url, { ...written, name: 'Stock v3', id: 'not-an-id', version: 99, updatedAt: 'yesterday' }));
    expect(renamed).toMatchObject({ id: read.id, name: 'Stock v3', version: 3 });

    const refused = expectProblem(
      await call('PUT', url, { ...renamed, structure: 'prices', direction: 'export' }),
      400,
      'validation_failed',
    );
    expect(refused.errors).toEqual([immutable('structure'), immutable('direction')]);
    expect(refused.errors[0].message_en).toContain('create a new mapping for prices');
    expectProblem(await call('PUT', url, { ...renamed, structure: 'no-such-structure' }), 400, 'validation_failed');
    expect(expectProblem(await call('PUT', url, { ...renamed, colour: 'red' }), 400, 'validation_failed').errors).toEqual([
      notAllowed('colour'),
    ]);
    expect((await get(url)).version).toBe(3);
  });

  it('a flow: sent back whole nothing changes; a change among its members applies; a new direction is refused, naming it', async () => {
    const drop = ok(await call('POST', `${HUB}/connections`, { name: 'Drop', kind: 'platform_drop', config: { prefix: 'flows' } }), 201);
    const mappingId = ok(
      await call('POST', `${HUB}/mappings`, { name: 'Stock', structure: 'stock', direction: 'import', fields: STOCK_FIELDS }),
      201,
    ).id;
    const created = ok(
      await call('POST', `${HUB}/flows`, {
        name: 'Nightly stock',
        connectionId: drop.id,
        mappingId,
        direction: 'import',
        format: 'csv',
        fileTemplate: 'stock-{yyyy}{MM}{dd}.csv',
        schedule: { cron: '30 2 * * *', timezone: 'Asia/Riyadh' },
        alertRecipients: ['ops@example.com'],
      }),
      201,
    );
    const url = `${HUB}/flows/${created.id}`;
    const read = await get(url);
    expect(ok(await call('PUT', url, read))).toEqual({ ...read, updatedAt: expect.any(String) });

    const changed = ok(
      await call('PUT', url, {
        ...read,
        paused: true,
        formulaSafety: 'raw',
        id: '00000000-0000-4000-8000-000000000000',
        lastRun: { id: 'x', status: 'succeeded' },
        nextRunAt: '2000-01-01T00:00:00Z',
      }),
    );
    expect(changed).toMatchObject({ id: read.id, paused: true, formulaSafety: 'raw', nextRunAt: null, lastRun: null });

    const refused = expectProblem(await call('PUT', url, { ...changed, direction: 'export' }), 400, 'validation_failed');
    expect(refused.errors).toEqual([immutable('direction')]);
    expect(refused.errors[0].message_en).toContain('create a new flow');
    expect(expectProblem(await call('PUT', url, { ...changed, colour: 'red' }), 400, 'validation_failed').errors).toEqual([
      notAllowed('colour'),
    ]);
    expect(await get(url)).toEqual(changed);
  });

  it('a connection: sent back whole it keeps its stored credentials, pinned host key and state; a new kind or pin is refused', async () => {
    const created = ok(
      await call('POST', `${HUB}/connections`, {
        name: 'Supplier SFTP',
        kind: 'sftp',
        config: { host: sshd.host, port: sshd.port, username: sshd.username, basePath: sshd.root },
        credentials: { password: sshd.password },
      }),
      201,
    );
    const url = `${HUB}/connections/${created.id}`;
    expect(ok(await call('POST', `${url}/test`)).status).toBe('tested');
    ok(await call('POST', `${url}/activate`));
    const read = await get(url);
    expect(read).toMatchObject({
      status: 'active',
      credentials: { set: true, fields: ['password'] },
      hostKey: { algorithm: expect.any(String) },
    });
    const sealed = async () =>
      (await t.db.rows(`select credentials_sealed from data_hub_connections where id = $1`, [created.id]))[0].credentials_sealed;
    const before = await sealed();

    // `credentials` as GET describes them is no credential: the stored password stays, and still opens the server.
    expect(ok(await call('PUT', url, { ...read, name: 'Renamed' }))).toEqual({ ...read, name: 'Renamed', updatedAt: expect.any(String) });
    expect(await sealed()).toBe(before);
    expect(ok(await call('POST', `${url}/test`))).toMatchObject({ status: 'active', lastTest: { ok: true }, hostKey: read.hostKey });

    const again = await get(url);
    const refused = expectProblem(
      await call('PUT', url, { ...again, kind: 'object_storage', hostKey: { ...again.hostKey, fingerprint: 'SHA256:forged' } }),
      400,
      'validation_failed',
    );
    expect(refused.errors).toEqual([immutable('kind'), immutable('hostKey')]);
    expect(refused.errors[0].message_en).toContain('create a new object_storage connection');
    // Anything else in `credentials` is credentials, checked as such.
    expect(
      expectProblem(
        await call('PUT', url, { ...again, credentials: { set: true, fields: ['password'], password: 'x' } }),
        400,
        'validation_failed',
      ).errors,
    ).toEqual([notAllowed('credentials.set'), notAllowed('credentials.fields')]);
    expect(expectProblem(await call('PUT', url, { ...again, colour: 'red' }), 400, 'validation_failed').errors).toEqual([
      notAllowed('colour'),
    ]);
    expect(await get(url)).toEqual(again);

    // null still clears the pin, sent alone or with the rest of what GET returned.
    expect(ok(await call('PUT', url, { ...again, hostKey: null }))).toMatchObject({ status: 'untested', hostKey: null });
    expect(await sealed()).toBe(before);
  });

  it('a platform drop, which has neither credentials nor a host key, is taken back whole', async () => {
    const created = ok(await call('POST', `${HUB}/connections`, { name: 'Drop', kind: 'platform_drop', config: { prefix: 'back' } }), 201);
    const url = `${HUB}/connections/${created.id}`;
    ok(await call('POST', `${url}/test`));
    const read = await get(url);
    expect(read).toMatchObject({ status: 'tested', credentials: { set: false, fields: [] }, hostKey: null });
    expect(ok(await call('PUT', url, read))).toEqual({ ...read, updatedAt: expect.any(String) });
    expect(ok(await call('PUT', url, { ...read, config: { prefix: 'moved' } }))).toMatchObject({
      status: 'untested',
      config: { prefix: 'moved' },
    });
  });
});
