import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { StoreService } from '../../src/stores/store.service.js';
import { buildOnce } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC, expectProblem, fields, sendRaw } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';
import { captureLogs } from './log-capture.js';

const BASE = '/admin/data-hub/connections';
const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;

describe('data hub connections: states, credentials, files, permissions (contract section 9)', () => {
  const logs = captureLogs();
  const t = useTestApp({ ...logs.env, DATAHUB_ALLOWED_HOSTS: '127.0.0.1' }, { logTo: logs.logTo });
  let store: TestStore;
  let owner: string;
  let otherOwner: string;
  const call = (token: string, method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
    adminCall(t.app, method, url, token, body, headers);
  const source = () => {
    const url = new URL(inject('databaseUrl'));
    return { host: '127.0.0.1', port: Number(url.port || 5432), database: url.pathname.slice(1), username: url.username || 'postgres' };
  };
  const databaseRead = (query = 'select id, name from stores') => ({
    name: 'Warehouse DB',
    kind: 'database_read',
    config: { ...source(), query },
    credentials: { password: PASSWORD },
  });

  beforeAll(async () => {
    let other: TestStore;
    [store, other] = await Promise.all([t.store(), t.store()]);
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    [owner, otherOwner] = await Promise.all(
      [store, other].map(async ({ storeId }) => staffToken(t.app, await addStaff(t.app, storeId, 'owner'))),
    );
  }, 60_000);

  afterAll(() => logs.expectNone([PASSWORD]));

  it('creates untested, never returns a credential, keeps it sealed, and activates only after a passed test of the current config', async () => {
    const created = ok(await call(owner, 'POST', BASE, databaseRead()), 201);
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Warehouse DB',
      kind: 'database_read',
      config: { ...source(), query: 'select id, name from stores' },
      credentials: { set: true, fields: ['password'] },
      status: 'untested',
      lastTest: null,
      hostKey: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const [row] = await t.db.rows(`select * from data_hub_connections where id = $1`, [created.id]);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
    expect(row.credentials_sealed).toMatch(/^v1\./);

    expectProblem(await call(owner, 'POST', `${BASE}/${created.id}/activate`), 409, 'connection_not_tested');

    const tested = ok(await call(owner, 'POST', `${BASE}/${created.id}/test`));
    expect(tested.status).toBe('tested');
    expect(tested.lastTest).toEqual({ at: expect.any(String), ok: true });
    expect(ok(await call(owner, 'POST', `${BASE}/${created.id}/activate`)).status).toBe('active');

    // The same config sent again changes nothing; a different query is untested again.
    expect(
      ok(await call(owner, 'PUT', `${BASE}/${created.id}`, { config: { ...source(), query: 'select id, name from stores' } })).status,
    ).toBe('active');
    expect(ok(await call(owner, 'PUT', `${BASE}/${created.id}`, { name: 'Renamed' })).status).toBe('active');
    const changed = ok(await call(owner, 'PUT', `${BASE}/${created.id}`, { config: { ...source(), query: 'select id from stores' } }));
    expect(changed.status).toBe('untested');
    expectProblem(await call(owner, 'POST', `${BASE}/${created.id}/activate`), 409, 'connection_not_tested');
    ok(await call(owner, 'POST', `${BASE}/${created.id}/test`));
    expect(ok(await call(owner, 'POST', `${BASE}/${created.id}/activate`)).status).toBe('active');

    // New credentials: untested again, still never shown.
    const rekeyed = ok(await call(owner, 'PUT', `${BASE}/${created.id}`, { credentials: { password: `${PASSWORD}-2` } }));
    expect(rekeyed.status).toBe('untested');
    expect(JSON.stringify(rekeyed)).not.toContain(PASSWORD);
    const listed = ok(await call(owner, 'GET', BASE));
    expect(JSON.stringify(listed)).not.toContain(PASSWORD);
  });

  it('records a failed test with a bilingual reason and leaves the connection unusable until a test passes', async () => {
    const writes = ok(await call(owner, 'POST', BASE, databaseRead(`delete from stores returning id`)), 201);
    const failed = ok(await call(owner, 'POST', `${BASE}/${writes.id}/test`));
    expect(failed.status).toBe('failed');
    expect(failed.lastTest).toMatchObject({ ok: false, code: 'query_invalid' });
    expect(failed.lastTest.message_ar).toMatch(ARABIC);
    expectProblem(await call(owner, 'POST', `${BASE}/${writes.id}/activate`), 409, 'connection_not_tested');

    const outside = ok(
      await call(owner, 'POST', BASE, { ...databaseRead(), config: { ...databaseRead().config, host: '10.20.30.40' } }),
      201,
    );
    expect(ok(await call(owner, 'POST', `${BASE}/${outside.id}/test`)).lastTest).toMatchObject({ ok: false, code: 'host_not_allowed' });
  });

  it('does not mark tested a connection changed while its test ran', async () => {
    const table = `locked_${randomBytes(4).toString('hex')}`;
    await t.db.query(`create table ${table} (sku text)`);
    const created = ok(await call(owner, 'POST', BASE, databaseRead(`select sku from ${table}`)), 201);
    const locker = await t.db.connect();
    try {
      await locker.query('begin');
      await locker.query(`lock table ${table} in access exclusive mode`);
      const testing = call(owner, 'POST', `${BASE}/${created.id}/test`);
      // The test's query is under way once it waits for the table's lock.
      const waiting = await eventually(
        async () =>
          (
            await t.db.rows(
              `select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation where c.relname = $1 and not l.granted`,
              [table],
            )
          )[0].n,
        (count) => count > 0,
        10_000,
      );
      expect(waiting).toBe(1);
      ok(await call(owner, 'PUT', `${BASE}/${created.id}`, { config: { ...source(), query: `select sku, sku as code from ${table}` } }));
      await locker.query('rollback');
      expect(ok(await testing).status).toBe('untested');
    } finally {
      locker.release();
      await t.db.query(`drop table ${table}`);
    }
    expectProblem(await call(owner, 'POST', `${BASE}/${created.id}/activate`), 409, 'connection_not_tested');
  });

  it('field discovery answers the query’s columns and types', async () => {
    const created = ok(await call(owner, 'POST', BASE, databaseRead('select id, name, plan from stores')), 201);
    expect(ok(await call(owner, 'GET', `${BASE}/${created.id}/fields`))).toEqual({
      source: { kind: 'query' },
      fields: [
        { name: 'id', type: 'uuid' },
        { name: 'name', type: 'varchar' },
        { name: 'plan', type: 'text' },
      ],
    });
  });

  it('platform_drop: uploads streamed files of any type, lists, downloads, tests and reads fields of the newest match', async () => {
    const drop = ok(await call(owner, 'POST', BASE, { name: 'Drop', kind: 'platform_drop', config: { prefix: 'stock' } }), 201);
    expect(drop.credentials).toEqual({ set: false, fields: [] });
    const csv = '\uFEFFsku,quantity,"name, ar"\nA-1,4,قلم\n';
    const upload = (name: string, body: string, type = 'text/csv') =>
      t.app.inject({
        method: 'PUT',
        url: `${BASE}/${drop.id}/files/${name}`,
        headers: { authorization: `Bearer ${owner}`, 'content-type': type },
        payload: body,
      });
    const stored = ok(await upload('stock-20261120.csv', csv));
    expect(stored).toEqual({
      name: 'stock-20261120.csv',
      bytes: Buffer.byteLength(csv),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      modifiedAt: expect.any(String),
    });
    // The newer file is newer by its time, not by the order of the uploads: it waits for the clock to pass the first's.
    await eventually(
      async () => Date.now(),
      (now) => now > Date.parse(stored.modifiedAt),
    );
    ok(await upload('stock-20261121.csv', 'sku,qty,warehouse\n', 'application/json'));
    ok(await upload('notes.txt', 'not a stock file', 'application/octet-stream'));

    expect(
      ok(await call(owner, 'GET', `${BASE}/${drop.id}/files`))
        .items.map((file: { name: string }) => file.name)
        .sort(),
    ).toEqual(['notes.txt', 'stock-20261120.csv', 'stock-20261121.csv']);
    const download = await call(owner, 'GET', `${BASE}/${drop.id}/files/stock-20261120.csv`);
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.toString('utf8')).toBe(csv);
    expect(download.headers['content-length']).toBe(String(Buffer.byteLength(csv)));

    expect(ok(await call(owner, 'GET', `${BASE}/${drop.id}/fields?template=${encodeURIComponent('stock-{yyyy}{MM}{dd}.csv')}`))).toEqual({
      source: { kind: 'file', name: 'stock-20261121.csv', bytes: 18, modifiedAt: expect.any(String) },
      fields: [{ name: 'sku' }, { name: 'qty' }, { name: 'warehouse' }],
    });
    const missing = expectProblem(await call(owner, 'GET', `${BASE}/${drop.id}/fields?template=prices-*.csv`), 422, 'source_unavailable');
    expect(missing.reason).toMatchObject({ code: 'no_matching_file', message_ar: expect.stringMatching(ARABIC) });
    expect(fields(expectProblem(await call(owner, 'GET', `${BASE}/${drop.id}/fields`), 400, 'validation_failed'))).toEqual(['template']);
    expect(
      fields(expectProblem(await call(owner, 'GET', `${BASE}/${drop.id}/fields?template=../x.csv`), 400, 'validation_failed')),
    ).toEqual(['template']);

    const tested = ok(await call(owner, 'POST', `${BASE}/${drop.id}/test`));
    expect(tested.status).toBe('tested');
    expect(ok(await call(owner, 'GET', `${BASE}/${drop.id}/files`)).items).toHaveLength(3); // the probe is gone

    expect(fields(expectProblem(await upload('a%20b.csv', 'x'), 400, 'validation_failed'))).toEqual(['name']);
    expectProblem(await upload('a%2Fb.csv', 'x'), 400, 'validation_failed');
    expectProblem(await call(owner, 'GET', `${BASE}/${drop.id}/files/nothing.csv`), 404, 'not_found');
  });

  it('refuses an upload declared past 2 GiB before reading it, and keeps nothing', async () => {
    const drop = ok(await call(owner, 'POST', BASE, { name: 'Big', kind: 'platform_drop', config: { prefix: 'big' } }), 201);
    const base = await t.listen();
    const refused = await sendRaw(
      base,
      `PUT ${BASE}/${drop.id}/files/huge.csv HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${owner}\r\nContent-Type: text/csv\r\nContent-Length: ${2 * 1024 ** 3 + 1}\r\nConnection: close\r\n\r\nsku\n`,
    );
    expectProblem(refused, 413, 'payload_too_large');
    expect(ok(await call(owner, 'GET', `${BASE}/${drop.id}/files`)).items).toEqual([]);
  });

  it('validates config and credentials by kind, naming each field', async () => {
    const refusals: [unknown, string[]][] = [
      [{ name: 'x', kind: 'ftp', config: {} }, ['kind']],
      [
        {
          name: 'x',
          kind: 'sftp',
          config: { host: 'sftp.example.com', username: 'u', basePath: '/in', extra: 1 },
          credentials: { password: 'p' },
        },
        ['config.extra'],
      ],
      [
        { name: 'x', kind: 'sftp', config: { host: 'bad host', username: 'u', basePath: '/in' }, credentials: { password: 'p' } },
        ['config.host'],
      ],
      [
        {
          name: 'x',
          kind: 'sftp',
          config: { host: 'sftp.example.com', port: 70000, username: 'u', basePath: '/in' },
          credentials: { password: 'p' },
        },
        ['config.port'],
      ],
      [{ name: 'x', kind: 'sftp', config: { host: 'sftp.example.com', username: 'u', basePath: '/in' } }, ['credentials']],
      [
        {
          name: 'x',
          kind: 'sftp',
          config: { host: 'sftp.example.com', username: 'u', basePath: '/in' },
          credentials: { password: 'p', privateKey: 'k' },
        },
        ['credentials.password'],
      ],
      [
        {
          name: 'x',
          kind: 'sftp',
          config: { host: 'sftp.example.com', username: 'u', basePath: '/in' },
          credentials: { privateKey: 'not a key' },
        },
        ['credentials.privateKey'],
      ],
      [
        {
          name: 'x',
          kind: 'object_storage',
          config: { region: 'us-east-1', bucket: 'Bad_Bucket', prefix: '' },
          credentials: { accessKeyId: 'a', secretAccessKey: 's' },
        },
        ['config.bucket'],
      ],
      [{ name: 'x', kind: 'platform_drop', config: { prefix: '../etc' } }, ['config.prefix']],
      [{ name: 'x', kind: 'platform_drop', config: { prefix: 'in' }, credentials: { password: 'p' } }, ['credentials']],
      [{ name: '', kind: 'platform_drop', config: { prefix: 'in' } }, ['name']],
    ];
    for (const [body, expected] of refusals) {
      expect(fields(expectProblem(await call(owner, 'POST', BASE, body), 400, 'validation_failed')), JSON.stringify(body)).toEqual(
        expected,
      );
    }
    const drop = ok(await call(owner, 'POST', BASE, { name: 'Drop', kind: 'platform_drop', config: { prefix: 'in' } }), 201);
    // A drop pins no host key: null, as GET returns it, clears nothing.
    expect(ok(await call(owner, 'PUT', `${BASE}/${drop.id}`, { hostKey: null })).hostKey).toBeNull();
    expect(fields(expectProblem(await call(owner, 'PUT', `${BASE}/${drop.id}`, { kind: 'sftp' }), 400, 'validation_failed'))).toEqual([
      'kind',
    ]);
    expect(fields(expectProblem(await call(owner, 'PUT', `${BASE}/${drop.id}`, { hostKey: 'x' }), 400, 'validation_failed'))).toEqual([
      'hostKey',
    ]);
  });

  it('database_read needs the pro plan, and a downgrade stops its tests', async () => {
    const growth = await t.store();
    await t.app.get(StoreService).setPlan(growth.storeId, 'growth');
    const token = await staffToken(t.app, await addStaff(t.app, growth.storeId, 'owner'));
    const refused = expectProblem(await call(token, 'POST', BASE, databaseRead()), 403, 'plan_not_entitled');
    expect(refused.requiredPlan).toBe('pro');
    ok(await call(token, 'POST', BASE, { name: 'Drop', kind: 'platform_drop', config: { prefix: '' } }), 201);

    // The plan reaches every instance's cache by notification.
    await t.app.get(StoreService).setPlan(growth.storeId, 'pro');
    const created = ok(
      await eventually(
        () => call(token, 'POST', BASE, databaseRead()),
        (response) => response.statusCode === 201,
      ),
      201,
    );
    await t.app.get(StoreService).setPlan(growth.storeId, 'basic');
    const test = () => call(token, 'POST', `${BASE}/${created.id}/test`);
    expectProblem(await eventually(test, (response) => response.statusCode === 403), 403, 'plan_not_entitled');
    expect(ok(await call(token, 'GET', `${BASE}/${created.id}`)).id).toBe(created.id);
  });

  it('checks permissions, refuses every write of a support session, and hides other stores’ connections', async () => {
    const drop = ok(await call(owner, 'POST', BASE, { name: 'Drop', kind: 'platform_drop', config: { prefix: 'perm' } }), 201);
    const [analyst, dataManager, flowsOnly] = await Promise.all([
      addStaff(t.app, store.storeId, 'analyst').then((staff) => staffToken(t.app, staff)),
      addStaff(t.app, store.storeId, 'data_manager').then((staff) => staffToken(t.app, staff)),
      addStaff(t.app, store.storeId, 'custom', { permissions: ['data.flows.manage'] }).then((staff) => staffToken(t.app, staff)),
    ]);
    const missing = expectProblem(await call(analyst, 'GET', BASE), 403, 'missing_permission');
    expect(missing.requiredPermission).toBe('data.flows.manage');
    expectProblem(
      await call(analyst, 'POST', BASE, { name: 'x', kind: 'platform_drop', config: { prefix: '' } }),
      403,
      'missing_permission',
    );
    ok(await call(flowsOnly, 'GET', `${BASE}/${drop.id}`));
    ok(await call(flowsOnly, 'GET', `${BASE}/${drop.id}/files`));
    for (const [method, path] of [
      ['POST', ''],
      ['PUT', `/${drop.id}`],
      ['DELETE', `/${drop.id}`],
      ['POST', `/${drop.id}/test`],
      ['POST', `/${drop.id}/activate`],
    ]) {
      const body =
        method === 'POST' && path === ''
          ? { name: 'x', kind: 'platform_drop', config: { prefix: '' } }
          : method === 'PUT'
            ? { name: 'y' }
            : undefined;
      expect(expectProblem(await call(flowsOnly, method, `${BASE}${path}`, body), 403, 'missing_permission').requiredPermission).toBe(
        'data.connections.manage',
      );
    }
    ok(await call(dataManager, 'POST', `${BASE}/${drop.id}/test`));

    const support = await supportSession(t.app, store.storeId);
    expect(ok(await call(support.token, 'GET', BASE)).items.length).toBeGreaterThan(0);
    ok(await call(support.token, 'GET', `${BASE}/${drop.id}/files`));
    for (const [method, path] of [
      ['POST', ''],
      ['PUT', `/${drop.id}`],
      ['DELETE', `/${drop.id}`],
      ['POST', `/${drop.id}/test`],
      ['POST', `/${drop.id}/activate`],
      ['PUT', `/${drop.id}/files/a.csv`],
    ]) {
      expectProblem(await call(support.token, method, `${BASE}${path}`, {}), 403, 'support_read_only');
    }

    for (const [method, path] of [
      ['GET', `/${drop.id}`],
      ['PUT', `/${drop.id}`],
      ['DELETE', `/${drop.id}`],
      ['POST', `/${drop.id}/test`],
      ['POST', `/${drop.id}/activate`],
      ['GET', `/${drop.id}/fields?template=a.csv`],
      ['GET', `/${drop.id}/files`],
      ['GET', `/${drop.id}/files/a.csv`],
    ]) {
      expectProblem(await call(otherOwner, method, `${BASE}${path}`, method === 'PUT' ? { name: 'mine' } : undefined), 404, 'not_found');
    }
    expect(ok(await call(otherOwner, 'GET', BASE)).items).toEqual([]);
  });

  it('refuses to delete a connection something uses (409 connection_in_use), then deletes it', async () => {
    const drop = ok(await call(owner, 'POST', BASE, { name: 'Used', kind: 'platform_drop', config: { prefix: 'used' } }), 201);
    const table = `uses_${randomBytes(4).toString('hex')}`;
    // A stand-in for the flows and delivery schedules that reference their connection.
    await t.db.query(`create table ${table} (connection_id uuid references data_hub_connections (id))`);
    await t.db.query(`insert into ${table} values ($1)`, [drop.id]);
    expectProblem(await call(owner, 'DELETE', `${BASE}/${drop.id}`), 409, 'connection_in_use');
    await t.db.query(`drop table ${table}`);
    expect((await call(owner, 'DELETE', `${BASE}/${drop.id}`)).statusCode).toBe(204);
    expectProblem(await call(owner, 'GET', `${BASE}/${drop.id}`), 404, 'not_found');
  });

  it('a sealed credential copied onto another connection does not open there', async () => {
    const [a, b] = await Promise.all([1, 2].map(async () => ok(await call(owner, 'POST', BASE, databaseRead()), 201)));
    await t.db.query(
      `update data_hub_connections set credentials_sealed = (select credentials_sealed from data_hub_connections where id = $1) where id = $2`,
      [a.id, b.id],
    );
    const response = await call(owner, 'POST', `${BASE}/${b.id}/test`);
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain(PASSWORD);
  });

  it('the command line lists a store’s connections as JSON, without credentials', async () => {
    await buildOnce();
    const run = await runCli(['datahub', 'connections', 'list', '--store', store.storeId]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.connections.length).toBeGreaterThan(3);
    expect(run.json.connections[0]).toMatchObject({ id: expect.any(String), kind: expect.any(String), credentials: expect.any(Object) });
    expect(run.stdout + run.stderr).not.toContain(PASSWORD);
    const usage = await runCli(['datahub', 'connections', 'list']);
    expect(usage.code).toBe(2);
  }, 120_000);
});
