import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConnectionFailure } from '../../src/data-hub/connectors/connection-failure.js';
import { type DatabaseReadConfig, probeDatabaseRead } from '../../src/data-hub/connectors/database-read.js';
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
