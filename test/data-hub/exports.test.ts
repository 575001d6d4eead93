import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { DateTime } from 'luxon';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { chown, mkdir, readdir, readFile, rmdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { transformNamed } from '../../src/data-hub/mappings/transforms/registry.js';
import { FlowDispatcher } from '../../src/data-hub/runs/flow-dispatcher.js';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { STRUCTURES } from '../../src/data-hub/structures/structures.js';
import { xlsxRows } from '../insights/exports-support.js';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { startObjectStorage, type ObjectStoragePeer } from '../support/peers/object-storage.js';
import { startSshd, type SshdPeer } from '../support/peers/sshd.js';
import { ARABIC, expectProblem, fields } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { activeDrop, HUB } from './hub-fixtures.js';

const LARGE = 20_000;
const STATUS_AR = { open: 'مفتوح', completed: 'مكتمل "تم"', cancelled: 'ملغى' };

interface StoredOrder {
  number: string;
  placed_at: string;
  email: string;
  status: keyof typeof STATUS_AR;
  total: number;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * Issue 12, item 7 (contract section 9): exports through flows. The store's records of a mapping's
 * structure, through the mapping, written by the flow's template to a real OpenSSH server, a real
 * S3-compatible store (OpenStack Swift) and the platform's drop; streamed, whole or absent.
 */
describe('data hub exports: the store’s records written by template to SFTP, object storage and the drop', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'exports-'));
  const t = useTestApp({ DATA_DIR: dataDir, DATAHUB_ALLOWED_HOSTS: '127.0.0.1' });
  let sshd: SshdPeer;
  let s3: ObjectStoragePeer;
  let bucketClient: S3Client;
  const bucket = `exports-${randomBytes(3).toString('hex')}`;
  /** The store under test, another (tenancy) and one with 20,000 orders. */
  let store: TestStore;
  let other: TestStore;
  let large: TestStore;
  let owner: string;
  let otherOwner: string;
  let largeOwner: string;
  let sftp: string;
  let objectStorage: string;
  let drop: string;
  let largeSftp: string;
  let largeDrop: string;
  let largeBucket: string;

  const call = (method: string, url: string, body?: unknown, token = owner) => adminCall(t.app, method, url, token, body);
  const sftpConfig = (peer: SshdPeer, basePath = peer.root) => ({
    kind: 'sftp',
    config: { host: peer.host, port: peer.port, username: peer.username, basePath },
    credentials: { password: peer.password },
  });
  const bucketConfig = () => ({
    kind: 'object_storage',
    config: { endpoint: s3.endpoint, region: s3.region, bucket, prefix: 'exports/', forcePathStyle: true },
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  /** A connection of the token's store, tested and active. */
  const activeConnection = async (token: string, body: Record<string, unknown>) => {
    const id = ok(await call('POST', `${HUB}/connections`, { name: `Out ${randomBytes(2).toString('hex')}`, ...body }, token), 201).id;
    expect(ok(await call('POST', `${HUB}/connections/${id}/test`, undefined, token)).status).toBe('tested');
    ok(await call('POST', `${HUB}/connections/${id}/activate`, undefined, token));
    return id as string;
  };
  const exportMapping = async (structure: string, mapped: unknown[], token = owner) =>
    ok(await call('POST', `${HUB}/mappings`, { name: `${structure} out`, structure, direction: 'export', fields: mapped }, token), 201)
      .id as string;
  const exportFlow = async (flow: Record<string, unknown>, token = owner) =>
    ok(await call('POST', `${HUB}/flows`, { name: 'Export', direction: 'export', format: 'csv', ...flow }, token), 201).id as string;
  /** Queues a run and works its job here (the test app works no queue), as its worker would. */
  const runNow = async (flowId: string, token = owner) => {
    const queued = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}, token), 202);
    await t.app.get(RunsService).execute(queued.id);
    return ok(await call('GET', `${HUB}/runs/${queued.id}`, undefined, token));
  };
  const rejectedOf = async (runId: string) => ok(await call('GET', `${HUB}/runs/${runId}/rejected?limit=100`)).items;
  const dropFile = async (connectionId: string, name: string, token = owner) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `${HUB}/connections/${connectionId}/files/${name}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(200);
    return response.rawPayload;
  };
  const dropNames = async (connectionId: string, token = owner) =>
    ok(await call('GET', `${HUB}/connections/${connectionId}/files`, undefined, token)).items.map((file: { name: string }) => file.name);
  const bucketKeys = async () => ((await bucketClient.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key);
  const bucketObject = async (key: string) =>
    Buffer.from(await (await bucketClient.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray());
  const insertOrders = (storeId: string, count: number, test = false) =>
    t.db.query(
      `insert into orders (store_id, email, locale, currency, status, payment_method, payment_status, fulfilment_type, item_count,
         subtotal, shipping_total, tax_total, total, prices_include_tax, tax_rate_bps, promised_by, placed_at, test)
       select $1, 'buyer' || n || '@example.com', 'ar', 'SAR', (array['open', 'completed', 'cancelled'])[1 + n % 3], 'card', 'paid',
         'delivery', 1 + n % 4, 1000 * n, 1500, 130 * n, 1130 * n + 1500, false, 1500, now() + interval '2 days',
         timestamptz '2026-11-24 08:00:00+00' + n * interval '1 minute 1.5 seconds', $3
       from generate_series(1, $2) n`,
      [storeId, count, test],
    );
  const ordersOf = (storeId: string) =>
    t.db.rows<StoredOrder>(
      `select number::text, iso_utc(placed_at) as placed_at, email, status, total from orders where store_id = $1 and not test order by number`,
      [storeId],
    );
  const insertCustomer = (
    storeId: string,
    customer: { email: string; first: string; last: string; phone: string | null; locale: string },
  ) =>
    t.db.query(
      `insert into shoppers (store_id, email, email_normalized, first_name, last_name, phone, locale, marketing_opt_in)
       values ($1, $2::text, lower($2::text), $3, $4, $5, $6::text, $6::text = 'ar')`,
      [storeId, customer.email, customer.first, customer.last, customer.phone, customer.locale],
    );
  /** Counts the calls of a transform, and does `at(n)` on the nth (a record reaching it), as the transform would otherwise. */
  const onRecord = (transform: string, at: (n: number) => void) => {
    const definition = transformNamed(transform)!;
    const apply = definition.apply;
    let calls = 0;
    return vi.spyOn(definition, 'apply').mockImplementation((value, args) => {
      at(++calls);
      return apply.call(definition, value, args);
    });
  };

  beforeAll(async () => {
    [sshd, s3] = await Promise.all([startSshd(), startObjectStorage()]);
    await s3.createBucket(bucket);
    bucketClient = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    [store, other, large] = await Promise.all([
      t.store({ seedCatalogue: true, productCount: 12 }),
      t.store({ seedCatalogue: true, productCount: 4 }),
      t.store(),
    ]);
    [owner, otherOwner, largeOwner] = await Promise.all(
      [store, other, large].map(async (each) => staffToken(t.app, await addStaff(t.app, each.storeId, 'owner'))),
    );
    await insertOrders(store.storeId, 30);
    await insertOrders(store.storeId, 1, true);
    await insertOrders(other.storeId, 5);
    await insertOrders(large.storeId, LARGE);
    for (const customer of [
      { email: 'Layla@Example.com', first: 'ليلى', last: 'العتيبي', phone: '+966501234567', locale: 'ar' },
      { email: 'omar@example.com', first: 'Omar', last: 'Haddad', phone: null, locale: 'en' },
      { email: 'noura@example.com', first: 'نورة', last: '', phone: '+966551112233', locale: 'ar' },
    ]) {
      await insertCustomer(store.storeId, customer);
    }
    await insertCustomer(other.storeId, { email: 'someone@other.example', first: 'سلمى', last: 'الحربي', phone: null, locale: 'ar' });
    sftp = await activeConnection(owner, sftpConfig(sshd));
    objectStorage = await activeConnection(owner, bucketConfig());
    ({ id: drop } = await activeDrop(t.app, owner, 'exports'));
    largeSftp = await activeConnection(largeOwner, sftpConfig(sshd));
    largeBucket = await activeConnection(largeOwner, bucketConfig());
    ({ id: largeDrop } = await activeDrop(t.app, largeOwner, 'large'));
  }, 180_000);

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    bucketClient?.destroy();
    await Promise.all([sshd?.stop(), s3?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const ordersCsvFields = (status: Record<string, unknown> = { map: STATUS_AR }) => [
    { target: 'رقم الطلب', source: 'number' },
    { target: 'placed_at', source: 'placed_at' },
    { target: 'الحالة', source: 'status', transforms: [{ name: 'map_values', args: status }] },
    { target: 'customer', sources: ['email', 'currency'], transforms: [{ name: 'concat', args: { separator: ', ' } }] },
    { target: 'total', source: 'total' },
  ];
  /** The CSV the orders mapping writes, as text: RFC 4180, CRLF, each field quoted only when it must be. */
  const ordersCsv = (orders: StoredOrder[]) =>
    ['رقم الطلب,placed_at,الحالة,customer,total', ...orders.map((o) => csvLine(o, STATUS_AR[o.status]))]
      .map((line) => `${line}\r\n`)
      .join('');
  const csvLine = (order: StoredOrder, status: string) =>
    [
      order.number,
      order.placed_at,
      status.includes('"') ? `"${status.replaceAll('"', '""')}"` : status,
      `"${order.email}, SAR"`,
      order.total,
    ].join(',');

  it('orders to SFTP as CSV: UTF-8 without a byte order mark, Arabic intact, named by the template in the schedule’s time zone', async () => {
    const flowId = await exportFlow({
      connectionId: sftp,
      mappingId: await exportMapping('orders', ordersCsvFields()),
      fileTemplate: 'orders-{yyyy}{MM}{dd}-{HH}{mm}.csv',
      schedule: { cron: '0 2 * * *', timezone: 'Asia/Tokyo' },
    });
    const run = await runNow(flowId);
    const name = `orders-${DateTime.fromISO(run.startedAt, { zone: 'Asia/Tokyo' }).toFormat('yyyyMMdd-HHmm')}.csv`;
    const bytes = await readFile(join(sshd.root, name));
    const orders = await ordersOf(store.storeId);
    expect(orders).toHaveLength(30); // the test order is not among them
    expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
    expect(bytes.toString('utf8')).toBe(ordersCsv(orders));
    const [header, ...rows] = parse(bytes, { relax_column_count: false }) as string[][];
    expect(header).toEqual(['رقم الطلب', 'placed_at', 'الحالة', 'customer', 'total']);
    expect(rows.map((row) => row[2])).toEqual(orders.map((order) => STATUS_AR[order.status]));
    expect(run).toMatchObject({
      status: 'succeeded',
      preview: false,
      counts: { read: 30, sent: 30, unchanged: 30, rejected: 0, created: 0, changed: 0, deactivated: 0 },
      file: { name, bytes: bytes.length, sha256: sha256(bytes) },
      error: null,
    });
    expect(await readdir(sshd.root)).not.toContainEqual(expect.stringMatching(/\.partial$/));
  });

  it('orders as Windows-1256 CSV when the flow says so, named in the store’s time zone; a value it cannot hold is rejected, not garbled', async () => {
    await t.db.query(`update stores set timezone = 'America/Sao_Paulo' where id = $1`, [store.storeId]);
    const unencodable = { ...STATUS_AR, cancelled: 'ملغى ✗' };
    const flowId = await exportFlow({
      connectionId: sftp,
      mappingId: await exportMapping('orders', ordersCsvFields({ map: unencodable })),
      fileTemplate: 'orders-1256-{yyyy}{MM}{dd}{HH}.csv',
      encoding: 'windows-1256',
    });
    const run = await runNow(flowId);
    const name = `orders-1256-${DateTime.fromISO(run.startedAt, { zone: 'America/Sao_Paulo' }).toFormat('yyyyMMddHH')}.csv`;
    const bytes = await readFile(join(sshd.root, name));
    const orders = await ordersOf(store.storeId);
    const written = orders.filter((order) => order.status !== 'cancelled');
    const cancelled = orders.filter((order) => order.status === 'cancelled');
    expect(bytes.equals(iconv.encode(ordersCsv(written), 'windows-1256'))).toBe(true);
    expect(bytes.includes(0xe3)).toBe(true); // م in Windows-1256
    expect(bytes.includes(Buffer.from('م'))).toBe(false);
    expect(run).toMatchObject({
      status: 'succeeded',
      counts: { read: 30, rejected: cancelled.length, unchanged: written.length, sent: written.length },
      file: { name, bytes: bytes.length, sha256: sha256(bytes) },
    });
    const rejected = await rejectedOf(run.id);
    expect(rejected.map((row: { key: string }) => row.key)).toEqual(cancelled.map((order) => order.number));
    expect(rejected[0]).toMatchObject({
      line: null,
      values: { number: Number(cancelled[0].number), status: 'cancelled', email: cancelled[0].email },
      errors: [
        { field: 'الحالة', code: 'not_encodable', message_en: expect.stringContaining('utf-8'), message_ar: expect.stringMatching(ARABIC) },
      ],
    });
  });

  it('a transform that fails on some records rejects and lists them and writes the others; a preview counts the same and writes nothing', async () => {
    const flowId = await exportFlow({
      connectionId: sftp,
      mappingId: await exportMapping('orders', ordersCsvFields({ map: { open: 'مفتوح', completed: 'مكتمل' }, otherwise: 'reject' })),
      fileTemplate: 'orders-open.csv',
    });
    const orders = await ordersOf(store.storeId);
    const cancelled = orders.filter((order) => order.status === 'cancelled').map((order) => order.number);
    const before = await readdir(sshd.root);
    const preview = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true }));
    const counts = {
      read: 30,
      rejected: cancelled.length,
      unchanged: 30 - cancelled.length,
      sent: 30 - cancelled.length,
      created: 0,
      changed: 0,
    };
    expect(preview).toMatchObject({ preview: true, status: 'succeeded', counts, file: null });
    expect(preview.rows.rejected.map((row: { key: string }) => row.key)).toEqual(cancelled);
    expect(preview.rows.rejected[0].errors).toEqual([
      { field: 'الحالة', code: 'unmapped_value', message_en: expect.any(String), message_ar: expect.stringMatching(ARABIC) },
    ]);
    const firstRows = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true, firstRows: 5 }));
    expect(firstRows.counts).toMatchObject({
      read: 5,
      rejected: orders.slice(0, 5).filter((order) => order.status === 'cancelled').length,
    });
    expect(await readdir(sshd.root)).toEqual(before);

    // A file of the name already there is replaced whole (OpenSSH's posix-rename).
    const stale = join(sshd.root, 'orders-open.csv');
    await writeFile(stale, 'stale\n');
    const { uid, gid } = await stat(sshd.root);
    await chown(stale, uid, gid);
    const run = await runNow(flowId);
    expect(run).toMatchObject({ status: 'succeeded', counts });
    expect((await rejectedOf(run.id)).map((row: { key: string }) => row.key)).toEqual(cancelled);
    const rows = parse(await readFile(join(sshd.root, 'orders-open.csv'))) as string[][];
    expect(rows.slice(1).map((row) => row[0])).toEqual(orders.filter((order) => order.status !== 'cancelled').map((order) => order.number));
  });

  it('customers as JSON lines to object storage: the caller’s store’s only, in key order, lists kept as lists', async () => {
    const flowId = await exportFlow({
      connectionId: objectStorage,
      mappingId: await exportMapping('customers', [
        { target: 'email', source: 'email' },
        { target: 'name', sources: ['first_name', 'last_name'] },
        { target: 'phone', source: 'phone' },
        { target: 'opted_in', source: 'marketing_opt_in' },
        { target: 'locale', source: 'locale', transforms: [{ name: 'uppercase' }] },
      ]),
      format: 'jsonl',
      fileTemplate: 'customers.jsonl',
    });
    const run = await runNow(flowId);
    const bytes = await bucketObject('exports/customers.jsonl');
    expect(bytes.toString('utf8').split('\n')).toEqual([
      '{"email":"layla@example.com","name":["ليلى","العتيبي"],"phone":"+966501234567","opted_in":true,"locale":"AR"}',
      '{"email":"noura@example.com","name":["نورة",""],"phone":"+966551112233","opted_in":true,"locale":"AR"}',
      '{"email":"omar@example.com","name":["Omar","Haddad"],"phone":null,"opted_in":false,"locale":"EN"}',
      '',
    ]);
    expect(run).toMatchObject({
      status: 'succeeded',
      counts: { read: 3, sent: 3, unchanged: 3, rejected: 0 },
      file: { name: 'customers.jsonl', bytes: bytes.length, sha256: sha256(bytes) },
    });
  });

  it('stock and the catalogue (products, variants) as XLSX to the platform drop, read back with exceljs', async () => {
    const exported = async (structure: string, mapped: { target: string; source: string }[]) => {
      const name = `${structure}.xlsx`;
      const run = await runNow(
        await exportFlow({ connectionId: drop, mappingId: await exportMapping(structure, mapped), format: 'xlsx', fileTemplate: name }),
      );
      const bytes = await dropFile(drop, name);
      expect(run).toMatchObject({ status: 'succeeded', file: { name, bytes: bytes.length, sha256: sha256(bytes) } });
      const { headers, rows } = await xlsxRows(bytes);
      expect(headers).toEqual([mapped.map((field) => field.target)]);
      expect(run.counts).toMatchObject({ read: rows.length, sent: rows.length, unchanged: rows.length, rejected: 0 });
      return rows.map((row) => mapped.map((_, index) => row[index] ?? null));
    };
    const products = await t.db.rows(
      `select p.slug, p.name_ar, c.slug as category, p.status from products p left join categories c on c.id = p.category_id
       where p.store_id = $1 order by p.slug`,
      [store.storeId],
    );
    expect(products.length).toBeGreaterThanOrEqual(12);
    expect(products.some((product) => ARABIC.test(product.name_ar))).toBe(true);
    expect(
      await exported('products', [
        { target: 'slug', source: 'slug' },
        { target: 'الاسم', source: 'name_ar' },
        { target: 'category', source: 'category' },
        { target: 'status', source: 'status' },
      ]),
    ).toEqual(products.map((product) => [product.slug, product.name_ar, product.category, product.status]));

    const variants = await t.db.rows(
      `select v.sku, p.slug as product, v.price, v.compare_at_price, v.stock from product_variants v join products p on p.id = v.product_id
       where v.store_id = $1 order by v.sku`,
      [store.storeId],
    );
    expect(
      await exported('variants', [
        { target: 'sku', source: 'sku' },
        { target: 'product', source: 'product' },
        { target: 'price', source: 'price' },
        { target: 'compare_at_price', source: 'compare_at_price' },
        { target: 'stock', source: 'stock' },
      ]),
    ).toEqual(variants.map((variant) => [variant.sku, variant.product, variant.price, variant.compare_at_price, variant.stock]));
    expect(
      await exported('stock', [
        { target: 'SKU', source: 'sku' },
        { target: 'الكمية', source: 'stock' },
      ]),
    ).toEqual(variants.map((variant) => [variant.sku, variant.stock]));
  });

  it('every structure exports each of its fields, the caller’s store’s records only', async () => {
    const expected: Record<string, string> = {
      products: 'select count(*)::int as n from products where store_id = $1',
      variants: 'select count(*)::int as n from product_variants where store_id = $1',
      stock: 'select count(*)::int as n from product_variants where store_id = $1',
      prices: 'select count(*)::int as n from product_variants where store_id = $1',
      categories: 'select count(*)::int as n from categories where store_id = $1',
      brands: 'select count(*)::int as n from brands where store_id = $1',
      customers: 'select count(*)::int as n from shoppers where store_id = $1',
      orders: 'select count(*)::int as n from orders where store_id = $1 and not test',
    };
    for (const structure of STRUCTURES) {
      const names = structure.fields.map((field) => field.name);
      const mappingId = await exportMapping(
        structure.name,
        names.map((name) => ({ target: name, source: name })),
      );
      const run = await runNow(
        await exportFlow({ connectionId: drop, mappingId, format: 'jsonl', fileTemplate: `all-${structure.name}.jsonl` }),
      );
      const lines = (await dropFile(drop, `all-${structure.name}.jsonl`)).toString('utf8').trim().split('\n');
      const [{ n }] = await t.db.rows<{ n: number }>(expected[structure.name], [store.storeId]);
      const [{ n: others }] = await t.db.rows<{ n: number }>(expected[structure.name], [other.storeId]);
      expect(n, structure.name).toBeGreaterThan(0);
      expect(others, structure.name).toBeGreaterThan(0);
      expect(run, structure.name).toMatchObject({ status: 'succeeded', counts: { read: n, sent: n, rejected: 0 } });
      expect(lines, structure.name).toHaveLength(n);
      expect(Object.keys(JSON.parse(lines[0])), structure.name).toEqual(names);
    }
    const orderNumbers = (await dropFile(drop, 'all-orders.jsonl'))
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).number);
    const theirs = (await ordersOf(other.storeId)).map((order) => Number(order.number));
    expect(orderNumbers.filter((number: number) => theirs.includes(number))).toEqual([]);
  });

  it('checks the flow: no * in an export’s template, no replace mode', async () => {
    const mappingId = await exportMapping('orders', ordersCsvFields());
    const refused = expectProblem(
      await call('POST', `${HUB}/flows`, {
        name: 'Out',
        direction: 'export',
        connectionId: sftp,
        mappingId,
        format: 'csv',
        fileTemplate: 'orders-*.csv',
      }),
      400,
      'validation_failed',
    );
    expect(refused.errors).toEqual([
      {
        field: 'fileTemplate',
        code: 'wildcard_in_export',
        message_en: expect.stringContaining('*'),
        message_ar: expect.stringMatching(ARABIC),
      },
    ]);
    const flowId = await exportFlow({ connectionId: sftp, mappingId, fileTemplate: 'orders.csv' });
    expect(fields(expectProblem(await call('PUT', `${HUB}/flows/${flowId}`, { fileTemplate: '*.csv' }), 400, 'validation_failed'))).toEqual(
      ['fileTemplate'],
    );
    expect(fields(expectProblem(await call('PUT', `${HUB}/flows/${flowId}`, { mode: 'replace' }), 400, 'validation_failed'))).toEqual([
      'mode',
    ]);
  });

  it('runs for data.flows.manage only: a reader gets 403, a support session 403 support_read_only, another store 404', async () => {
    const flowId = await exportFlow({
      connectionId: drop,
      mappingId: await exportMapping('orders', ordersCsvFields()),
      fileTemplate: 'perm.csv',
    });
    const manager = await staffToken(t.app, await addStaff(t.app, store.storeId, 'custom', { permissions: ['data.flows.manage'] }));
    expect(ok(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true }, manager)).counts.read).toBe(30);
    const reader = await staffToken(t.app, await addStaff(t.app, store.storeId, 'custom', { permissions: ['data.flows.read'] }));
    expectProblem(await call('POST', `${HUB}/flows/${flowId}/runs`, {}, reader), 403, 'missing_permission');
    const support = await supportSession(t.app, store.storeId);
    expectProblem(await call('POST', `${HUB}/flows/${flowId}/runs`, {}, support.token), 403, 'support_read_only');
    expectProblem(await call('POST', `${HUB}/flows/${flowId}/runs`, {}, otherOwner), 404, 'not_found');
    expect(await dropNames(drop)).not.toContain('perm.csv');
  });

  it('20,000 orders stream out: every row is written, and what is made reaches the server while records are still being read', async () => {
    const wide = Array.from({ length: 30 }, (_, index) => ({ target: `email_${index}`, source: 'email' }));
    const flowId = await exportFlow(
      {
        connectionId: largeSftp,
        mappingId: await exportMapping(
          'orders',
          [{ target: 'number', source: 'number', transforms: [{ name: 'trim' }] }, ...wide],
          largeOwner,
        ),
        fileTemplate: 'orders-large.csv',
      },
      largeOwner,
    );
    let onServerMidway = 0;
    onRecord('trim', (n) => {
      if (n !== 15_000) return;
      const partial = readdirSync(sshd.root).find((name) => name.startsWith('.orders-large.csv.') && name.endsWith('.partial'));
      onServerMidway = partial ? statSync(join(sshd.root, partial)).size : 0;
    });
    const run = await runNow(flowId, largeOwner);
    const bytes = await readFile(join(sshd.root, 'orders-large.csv'));
    const lines = bytes.toString('utf8').split('\r\n');
    expect(lines).toHaveLength(LARGE + 2);
    expect(new Set(lines.slice(1, -1).map((line) => line.split(',')[0])).size).toBe(LARGE);
    expect(run).toMatchObject({
      status: 'succeeded',
      counts: { read: LARGE, sent: LARGE, unchanged: LARGE, rejected: 0 },
      file: { name: 'orders-large.csv', bytes: bytes.length, sha256: sha256(bytes) },
    });
    // At the 15,000th record the first 14 batches were handed on: all but what the streams buffer is on the server.
    const handedOn = Buffer.byteLength(`${lines.slice(0, 14_001).join('\r\n')}\r\n`);
    expect(handedOn).toBeGreaterThan(8 * 1024 * 1024);
    expect(handedOn - onServerMidway).toBeLessThan(2 * 1024 * 1024);
  }, 120_000);

  it('an SFTP export whose server is killed midway leaves no file under its name, and the run fails saying so', async () => {
    const own = await startSshd();
    try {
      const flowId = await exportFlow(
        {
          connectionId: await activeConnection(largeOwner, sftpConfig(own)),
          mappingId: await exportMapping(
            'orders',
            [
              { target: 'number', source: 'number' },
              { target: 'email', source: 'email', transforms: [{ name: 'trim' }] },
            ],
            largeOwner,
          ),
          fileTemplate: 'orders-killed.csv',
        },
        largeOwner,
      );
      onRecord('trim', (n) => n === 5_000 && own.kill());
      const run = await runNow(flowId, largeOwner);
      expect(run).toMatchObject({ status: 'failed', file: null, counts: { sent: 0 }, error: { code: 'connection_lost' } });
      expect(run.error.message_en).toContain('orders-killed.csv was not written');
      expect(run.error.message_ar).toMatch(ARABIC);
      expect(await readdir(own.root)).not.toContain('orders-killed.csv');
    } finally {
      await own.stop();
    }
  }, 120_000);

  it('object storage and the drop: an attempt that fails midway leaves nothing under the name; the retry writes the whole file', async () => {
    const wide = Array.from({ length: 30 }, (_, index) => ({ target: `email_${index}`, source: 'email' }));
    const mappingId = await exportMapping(
      'orders',
      [{ target: 'email', source: 'email', transforms: [{ name: 'lowercase' }] }, ...wide],
      largeOwner,
    );
    const multipartUploads = async () => (await bucketClient.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads ?? [];
    // The store lists uploads in progress (so that none listed below means none left).
    const { UploadId } = await bucketClient.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'exports/probe.csv' }));
    expect((await multipartUploads()).map((upload) => upload.UploadId)).toEqual([UploadId]);
    await bucketClient.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: 'exports/probe.csv', UploadId }));
    for (const connectionId of [largeBucket, largeDrop]) {
      const flowId = await exportFlow({ connectionId, mappingId, fileTemplate: 'orders-wide.csv' }, largeOwner);
      const queued = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}, largeOwner), 202);
      const bug = onRecord('lowercase', (n) => {
        if (n === 15_000) throw new Error('a transform’s bug');
      });
      await expect(t.app.get(RunsService).execute(queued.id)).rejects.toThrow('a transform’s bug');
      expect(ok(await call('GET', `${HUB}/runs/${queued.id}`, undefined, largeOwner)).status).toBe('queued'); // to be tried again
      if (connectionId === largeBucket) {
        expect(await bucketKeys()).not.toContain('exports/orders-wide.csv');
        expect(await multipartUploads()).toEqual([]);
      } else {
        expect(await dropNames(largeDrop, largeOwner)).not.toContain('orders-wide.csv');
        expect(readdirSync(join(dataDir, 'files', 'data-hub', large.storeId, 'drop', 'large'))).toEqual([]);
      }

      bug.mockRestore();
      await t.app.get(RunsService).execute(queued.id);
      const run = ok(await call('GET', `${HUB}/runs/${queued.id}`, undefined, largeOwner));
      expect(run).toMatchObject({ status: 'succeeded', counts: { read: LARGE, sent: LARGE } });
      const bytes =
        connectionId === largeBucket
          ? await bucketObject('exports/orders-wide.csv')
          : await dropFile(largeDrop, 'orders-wide.csv', largeOwner);
      // Over S3's 5 MiB part: the upload was a multipart one.
      expect(bytes.length).toBeGreaterThan(5 * 1024 * 1024);
      expect(run.file).toEqual({ name: 'orders-wide.csv', bytes: bytes.length, sha256: sha256(bytes) });
      expect(bytes.toString('utf8').split('\r\n')).toHaveLength(LARGE + 2);
    }
  }, 180_000);

  it('scheduled exports run at each due time without looking for a file; a failed one alerts the recipients', async () => {
    const mappingId = await exportMapping('orders', ordersCsvFields());
    const scheduled = (connectionId: string, fileTemplate: string) =>
      exportFlow({
        connectionId,
        mappingId,
        fileTemplate,
        schedule: { cron: '0 2 * * *', timezone: 'Asia/Riyadh' },
        alertRecipients: ['ops@example.com'],
      });
    const dispatchAndRun = async (flowId: string) => {
      await t.db.query(`update data_hub_flows set next_run_at = now() - interval '1 minute' where id = $1`, [flowId]);
      await t.app.get(FlowDispatcher).dispatchDue();
      const [run] = await t.db.rows<{ id: string }>(
        `select id from data_hub_runs where flow_id = $1 and status = 'queued' and trigger = 'schedule'`,
        [flowId],
      );
      await t.app.get(RunsService).execute(run.id);
      return ok(await call('GET', `${HUB}/runs/${run.id}`));
    };
    const nightly = await scheduled(drop, 'nightly-orders.csv');
    const first = await dispatchAndRun(nightly);
    const second = await dispatchAndRun(nightly);
    for (const run of [first, second]) {
      expect(run).toMatchObject({ trigger: 'schedule', status: 'succeeded', counts: { sent: 30 }, file: { name: 'nightly-orders.csv' } });
    }
    expect(second.file).toEqual(first.file); // the same file again, written again: an export is not an import

    const folder = join(sshd.root, `gone-${randomBytes(3).toString('hex')}`);
    await mkdir(folder);
    const { uid, gid } = await stat(sshd.root);
    await chown(folder, uid, gid);
    const gone = await activeConnection(owner, sftpConfig(sshd, folder));
    await rmdir(folder);
    const alerts = () =>
      t.db.rows<{ recipient: string; body_text: string }>(
        `select recipient, body_text from notification_outbox where store_id = $1 and template = 'data_hub_run_alert' order by created_at`,
        [store.storeId],
      );
    const before = (await alerts()).length;
    const failed = await dispatchAndRun(await scheduled(gone, 'lost-orders.csv'));
    expect(failed).toMatchObject({ trigger: 'schedule', status: 'failed', file: null, error: { code: 'not_found' } });
    const sent = (await alerts()).slice(before);
    expect(sent.map((alert) => alert.recipient)).toEqual(['ops@example.com']);
    expect(sent[0].body_text).toContain('lost-orders.csv was not written');
  });
});
