import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { freePort } from '../support/ports.js';
import { startObjectStorage, type ObjectStoragePeer } from '../support/peers/object-storage.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';
import { captureLogs } from './log-capture.js';

const BASE = '/admin/data-hub/connections';
const WRONG_SECRET = `wrong-${randomBytes(10).toString('hex')}`;

describe('data hub object storage connections against a real S3-compatible server (contract section 9)', () => {
  const logs = captureLogs();
  const t = useTestApp({ ...logs.env, DATAHUB_ALLOWED_HOSTS: '127.0.0.1' }, { logTo: logs.logTo });
  let s3: ObjectStoragePeer;
  let client: S3Client;
  let owner: string;
  const bucket = `imports-${randomBytes(3).toString('hex')}`;
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
  const connection = (config: Record<string, unknown> = {}, credentials: Record<string, string> = {}) => ({
    name: 'Bucket',
    kind: 'object_storage',
    config: { endpoint: s3.endpoint, region: s3.region, bucket, prefix: 'stock/', forcePathStyle: true, ...config },
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, ...credentials },
  });
  const createAndTest = async (body: unknown) => {
    const created = ok(await call('POST', BASE, body), 201);
    return ok(await call('POST', `${BASE}/${created.id}/test`));
  };
  const put = (key: string, body: string) => client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  const lastModified = async (key: string) =>
    (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).LastModified!.getTime();

  beforeAll(async () => {
    s3 = await startObjectStorage();
    await s3.createBucket(bucket);
    client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    const store = await t.store();
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
  }, 60_000);

  afterAll(async () => {
    client?.destroy();
    await s3?.stop();
    logs.expectNone([s3.secretAccessKey, WRONG_SECRET]);
  });

  it('tests by listing the prefix and writing and deleting a probe object, then activates', async () => {
    const tested = await createAndTest(connection());
    expect(tested).toMatchObject({
      status: 'tested',
      lastTest: { ok: true },
      credentials: { set: true, fields: ['accessKeyId', 'secretAccessKey'] },
    });
    expect(JSON.stringify(tested)).not.toContain(s3.secretAccessKey);
    const left = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect((left.Contents ?? []).filter((object) => object.Key!.includes('probe'))).toEqual([]);
    expect(ok(await call('POST', `${BASE}/${tested.id}/activate`)).status).toBe('active');
  });

  it('fails with the merchant’s reasons: a wrong secret, a missing bucket, a user without rights, a closed port, a host not allowed', async () => {
    const wrong = await createAndTest(connection({}, { secretAccessKey: WRONG_SECRET }));
    expect(wrong.lastTest).toMatchObject({ ok: false, code: 'auth_failed', message_ar: expect.stringMatching(ARABIC) });
    expect(JSON.stringify(wrong)).not.toContain(WRONG_SECRET);
    expect((await createAndTest(connection({ bucket: 'no-such-bucket-here' }))).lastTest.code).toBe('not_found');
    expect(
      (await createAndTest(connection({}, { accessKeyId: s3.otherAccessKeyId, secretAccessKey: s3.otherSecretAccessKey }))).lastTest.code,
    ).toBe('permission_denied');
    expect((await createAndTest(connection({ endpoint: `http://127.0.0.1:${await freePort()}` }))).lastTest.code).toBe('host_unreachable');
    expect((await createAndTest(connection({ endpoint: 'http://10.9.8.7:9000' }))).lastTest.code).toBe('host_not_allowed');
  });

  it('field discovery reads the newest object under the prefix that matches the template', async () => {
    await put('stock/stock-20261120.csv', 'sku,quantity\nA,1\n');
    // S3's LastModified has whole seconds: the newer file is written again until its second is a later one.
    const older = await lastModified('stock/stock-20261120.csv');
    const newer = await eventually(
      async () => {
        await put('stock/stock-20261121.csv', 'sku,qty,"المستودع"\nA,1,R\n');
        return lastModified('stock/stock-20261121.csv');
      },
      (modified) => modified > older,
      10_000,
    );
    expect(newer).toBeGreaterThan(older);
    await put('stock/deeper/stock-20261199.csv', 'not,in,the,folder\n');
    await put('other/stock-20261122.csv', 'not,under,the,prefix\n');
    const created = ok(await call('POST', BASE, connection()), 201);
    expect(ok(await call('GET', `${BASE}/${created.id}/fields?template=${encodeURIComponent('stock-{yyyy}{MM}{dd}.csv')}`))).toEqual({
      source: { kind: 'file', name: 'stock-20261121.csv', bytes: expect.any(Number), modifiedAt: expect.any(String) },
      fields: [{ name: 'sku' }, { name: 'qty' }, { name: 'المستودع' }],
    });
    const failing = ok(await call('POST', BASE, connection({ bucket: 'no-such-bucket-here' })), 201);
    const unavailable = expectProblem(await call('GET', `${BASE}/${failing.id}/fields?template=a.csv`), 422, 'source_unavailable');
    expect(unavailable.reason.code).toBe('not_found');
  });
});
