import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConnectionFailure } from '../../src/data-hub/connectors/connection-failure.js';
import { type DatabaseReadConfig, probeDatabaseRead, readDatabaseRows } from '../../src/data-hub/connectors/database-read.js';
import { EgressPolicy } from '../../src/infra/egress/egress-policy.js';
import { useTestDatabase } from '../support/database.js';
import { freePort } from '../support/ports.js';

/**
 * `database_read` tests against the run's real PostgreSQL as the merchant's source: a table of their
 * own, a role that may not read it, a lock that keeps a query waiting. Only the server that accepts a
 * connection and never answers is a fake: PostgreSQL cannot be made to do that.
 */
const db = useTestDatabase();
const server = new URL(inject('databaseUrl'));
const suffix = randomBytes(4).toString('hex');
const table = `datahub_source_${suffix}`;
const reader = `datahub_reader_${suffix}`;
const READER_PASSWORD = `reader-${suffix}-secret`;
const local = EgressPolicy.of('public,127.0.0.1,::1');

const source = (overrides: Partial<DatabaseReadConfig> = {}): DatabaseReadConfig => ({
  host: server.hostname,
  port: Number(server.port || 5432),
  database: server.pathname.slice(1),
  username: decodeURIComponent(server.username),
  query: `select sku, name_ar, price from ${table}`,
  ...overrides,
});
const password = { password: decodeURIComponent(server.password) };

async function failureOf(promise: Promise<unknown>): Promise<ConnectionFailure> {
  const error = await promise.then(
    (answer) => new Error(`the test passed: ${JSON.stringify(answer)}`),
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ConnectionFailure);
  return error as ConnectionFailure;
}

const rowCount = async () => Number((await db.rows(`select count(*) as n from ${table}`))[0].n);

describe('database_read connection test', () => {
  beforeAll(async () => {
    await db.query(`create table ${table} (sku text primary key, name_ar text not null, price numeric(12, 2) not null)`);
    await db.query(`insert into ${table} values ('SKU-1', 'قهوة عربية', 45.50), ('SKU-2', 'تمر سكري', 80)`);
    await db.query(`create role ${reader} login password '${READER_PASSWORD}'`);
  });

  afterAll(async () => {
    await db.query(`drop table if exists ${table}`);
    await db.query(`drop role if exists ${reader}`);
  });

  it("answers the query's columns with their types, reading no row; a trailing semicolon or comment is fine", async () => {
    const expected = [
      { name: 'sku', type: 'text' },
      { name: 'name_ar', type: 'text' },
      { name: 'price', type: 'numeric' },
    ];
    await expect(probeDatabaseRead(source(), password, local)).resolves.toEqual(expected);
    await expect(probeDatabaseRead(source({ query: `select sku, name_ar, price from ${table};  \n` }), password, local)).resolves.toEqual(
      expected,
    );
    await expect(
      probeDatabaseRead(source({ query: `select sku, name_ar, price from ${table} -- the whole catalogue` }), password, local),
    ).resolves.toEqual(expected);
  });

  it('refuses a query that writes, or that tries to add statements of its own, and nothing changes', async () => {
    for (const query of [
      `with gone as (delete from ${table} returning *) select * from gone`,
      `delete from ${table}`,
      `select 1) as s; delete from ${table}; select * from (select 1`,
      `select 1; delete from ${table}`,
      // Locking rows is a write: only the read-only transaction refuses this one (it is valid SQL).
      `select sku from ${table} for update`,
    ]) {
      const failure = await failureOf(probeDatabaseRead(source({ query }), password, local));
      expect(failure.code, query).toBe('query_invalid');
      expect(failure.describe().message_en, query).toMatch(/^The query is not a single statement that only reads\. PostgreSQL said: /);
      expect(failure.describe().message_ar).toContain('قال PostgreSQL');
    }
    const unknown = await failureOf(probeDatabaseRead(source({ query: `select nope from ${table}` }), password, local));
    expect(unknown.describe()).toMatchObject({
      code: 'query_invalid',
      message_en: expect.stringContaining('column "nope" does not exist'),
    });
    expect(await rowCount()).toBe(2);
  });

  it('gives up on a query kept waiting past the time allowed, with timeout', async () => {
    const holder = await db.connect();
    try {
      await holder.query('begin');
      await holder.query(`lock table ${table} in access exclusive mode`);
      const started = Date.now();
      const failure = await failureOf(probeDatabaseRead(source(), password, local, 1500));
      expect(failure.code).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      await holder.query('rollback');
      holder.release();
    }
  });

  it('tells a missing database, a closed port, a silent server and a role without the right apart', async () => {
    expect((await failureOf(probeDatabaseRead(source({ database: `no_such_db_${suffix}` }), password, local))).code).toBe('not_found');

    const closed = await freePort();
    expect((await failureOf(probeDatabaseRead(source({ port: closed }), password, local))).code).toBe('host_unreachable');

    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    const port = await new Promise<number>((ready) =>
      silent.listen(0, '127.0.0.1', () => ready((silent.address() as { port: number }).port)),
    );
    try {
      const started = Date.now();
      expect((await failureOf(probeDatabaseRead(source({ host: '127.0.0.1', port }), password, local, 1000))).code).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }

    const denied = await failureOf(probeDatabaseRead(source({ username: reader }), { password: READER_PASSWORD }, local));
    expect(denied.code).toBe('permission_denied');
    expect(JSON.stringify(denied.describe())).not.toContain(READER_PASSWORD);
    expect(denied.message).not.toContain(READER_PASSWORD);
  });

  it('refuses a host the egress policy does not allow before connecting', async () => {
    const closed = await freePort();
    const failure = await failureOf(probeDatabaseRead(source({ host: '127.0.0.1', port: closed }), password, EgressPolicy.of('public')));
    expect(failure.describe()).toMatchObject({ code: 'host_not_allowed', message_ar: expect.stringContaining('لا يُسمح') });
  });
});

describe('database_read rows for a run', () => {
  /** Every row of the query, as a run reads them; the rows read before a failure in `before`. */
  async function rowsOf(query: string, statementTimeoutMs?: number, before: unknown[] = []) {
    const rows = await readDatabaseRows(source({ query }), password, local, statementTimeoutMs);
    try {
      for await (const row of rows) before.push(row);
      return { header: await rows.header, rows: before };
    } finally {
      await rows.close();
    }
  }

  it('gives each column’s values as a file’s cells: text, exact numbers, booleans, ISO dates, JSON and lists, null', async () => {
    const { header, rows } = await rowsOf(`select
      'قهوة'::text as name, 42::int as stock, 9007199254740993::bigint as barcode, 123::bigint as small,
      45.50::numeric(12, 2) as price, 12345678901234567.89::numeric as wide, 'NaN'::numeric as nan, 2.5::float8 as ratio,
      true as active, null::text as note, date '2026-11-27' as day, timestamp '2026-11-27 08:30:00' as local_time,
      timestamptz '2026-11-27 08:30:00+03' as at, '{"size": "L", "tags": [1, 2]}'::jsonb as attributes,
      array[1, 2, 3] as counts, array['a', null] as labels, '{"a":1}'::json as "__proto__"`);
    expect(header).toEqual([
      'name',
      'stock',
      'barcode',
      'small',
      'price',
      'wide',
      'nan',
      'ratio',
      'active',
      'note',
      'day',
      'local_time',
      'at',
      'attributes',
      'counts',
      'labels',
      '__proto__',
    ]);
    expect(rows).toEqual([{ line: 1, values: expect.any(Object) }]);
    const values = (rows[0] as { values: Record<string, unknown> }).values;
    // In the query's order; a column named __proto__ is a column like any other.
    expect(Object.entries(values)).toEqual([
      ['name', 'قهوة'],
      ['stock', 42],
      ['barcode', '9007199254740993'],
      ['small', 123],
      ['price', 45.5],
      ['wide', '12345678901234567.89'],
      ['nan', 'NaN'],
      ['ratio', 2.5],
      ['active', true],
      ['note', null],
      ['day', '2026-11-27'],
      ['local_time', '2026-11-27T08:30:00'],
      ['at', '2026-11-27T05:30:00+00:00'],
      ['attributes', '{"size":"L","tags":[1,2]}'],
      ['counts', [1, 2, 3]],
      ['labels', ['a', null]],
      ['__proto__', '{"a":1}'],
    ]);
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
  });

  it('numbers rows from 1 across fetches, and rejects a row larger than a record may be without reading it', async () => {
    const { rows } = await rowsOf(`select n, case when n = 150 then repeat('x', 1100000) end as text from generate_series(1, 2500) as n`);
    expect(rows).toHaveLength(2500);
    expect((rows as { line: number }[]).map((row) => row.line)).toEqual(Array.from({ length: 2500 }, (_, index) => index + 1));
    expect(rows[149]).toMatchObject({ line: 150, code: 'row_too_large', message_ar: expect.stringMatching(/[\u0600-\u06FF]/) });
    expect(rows[2499]).toEqual({ line: 2500, values: { n: 2500, text: null } });
  });

  it('refuses a query that answers two columns by one name, in a test and for a run', async () => {
    const query = `select 'SKU-1' as sku, 'قهوة' as sku`;
    for (const attempt of [() => probeDatabaseRead(source({ query }), password, local), () => rowsOf(query)]) {
      const failure = await failureOf(attempt());
      expect(failure.describe()).toMatchObject({ code: 'query_columns_repeated', message_en: expect.stringContaining('Repeated: sku.') });
    }
  });

  it('fails midway with PostgreSQL’s reason: a division by zero, or a fetch past the statement timeout', async () => {
    const divided: unknown[] = [];
    const failure = await failureOf(rowsOf(`select n, 1 / (300 - n) as x from generate_series(1, 400) as n`, undefined, divided));
    expect(failure.describe()).toMatchObject({
      code: 'query_failed',
      message_en: 'PostgreSQL could not compute the query’s rows. PostgreSQL said: division by zero',
    });
    expect(divided.length).toBeGreaterThanOrEqual(100);

    const slow: unknown[] = [];
    const started = Date.now();
    const timedOut = await failureOf(
      rowsOf(`select n, case when n = 150 then pg_sleep(5)::text end as wait from generate_series(1, 200) as n`, 500, slow),
    );
    expect(timedOut.describe()).toMatchObject({ code: 'timeout', message_en: expect.stringContaining('cancelled the query after 0.5 s') });
    expect(slow).toHaveLength(100);
    expect(Date.now() - started).toBeLessThan(4000);
  });
});
