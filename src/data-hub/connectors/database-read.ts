import { Injectable } from '@nestjs/common';
import pg from 'pg';
import { EgressPolicy } from '../../infra/egress/egress-policy.js';
import { DatabaseReadConfigDto, DatabaseReadCredentialsDto } from '../dto/connection.dto.js';
import { CONNECTION_TEST_TIMEOUT_MS, type ConnectionTarget, type Connector, type TestResult } from './connector.js';
import { ConnectionFailure } from './connection-failure.js';
import { checkedAddress, NETWORK_ERROR_CODES } from './egress.js';

/** A `database_read` connection's config (contract section 9): one SELECT on a PostgreSQL server. */
export interface DatabaseReadConfig {
  host: string;
  port?: number;
  database: string;
  username: string;
  query: string;
}

export interface DatabaseReadCredentials {
  password: string;
}

/** A column the query answers, named as a mapping will name it. */
export interface SourceColumn {
  name: string;
  /** PostgreSQL's type of the column (`pg_type.typname`). */
  type: string;
}

/**
 * Tests a `database_read` connection for real: resolves the host through the egress policy and
 * connects to the address it checked, then runs the query with `LIMIT 0` in a read-only transaction
 * under a statement timeout, and answers its columns (what field discovery offers a mapping). Nothing
 * is read and nothing can be written. Failures are ConnectionFailure, never the server's text with a
 * credential in it.
 */
export async function probeDatabaseRead(
  config: DatabaseReadConfig,
  credentials: DatabaseReadCredentials,
  egress: EgressPolicy,
  timeoutMs = CONNECTION_TEST_TIMEOUT_MS,
): Promise<SourceColumn[]> {
  const deadline = Date.now() + timeoutMs;
  const address = await checkedAddress(egress, config.host);
  const client = new pg.Client({
    host: address,
    port: config.port ?? 5432,
    database: config.database,
    user: config.username,
    password: credentials.password,
    application_name: 'storefront data hub',
    connectionTimeoutMillis: Math.max(1, deadline - Date.now()),
  });
  // A server that accepts the connection and then says nothing must not hold the test past its deadline.
  const timer = setTimeout(() => void client.end().catch(() => undefined), Math.max(1, deadline - Date.now()));
  timer.unref();
  try {
    await client.connect();
    const left = Math.max(1, deadline - Date.now());
    await client.query(`begin transaction read only; set local statement_timeout = ${Math.ceil(left)}`);
    // A prepared statement (the extended protocol) is one statement only: a query that closes the
    // parenthesis to add statements of its own is refused by the server, not run. The line breaks end a
    // trailing comment.
    const result = await client.query({
      name: 'data-hub-probe',
      text: `select * from (\n${singleStatement(config.query)}\n) as source limit 0`,
    });
    const types = await client.query<{ oid: number; typname: string }>('select oid, typname from pg_type where oid = any($1)', [
      result.fields.map((field) => field.dataTypeID),
    ]);
    const typeName = new Map(types.rows.map((row) => [row.oid, row.typname]));
    await client.query('rollback');
    return result.fields.map((field) => ({ name: field.name, type: typeName.get(field.dataTypeID) ?? 'unknown' }));
  } catch (error) {
    throw failureOf(error, Date.now() >= deadline);
  } finally {
    clearTimeout(timer);
    await client.end().catch(() => undefined);
  }
}

/** The query without the semicolons and space it may end with; anything else a subquery refuses. */
function singleStatement(query: string): string {
  return query.replace(/[\s;]+$/, '');
}

/** SQLSTATE classes and codes (PostgreSQL's Appendix A) as the merchant's reasons. */
const SQLSTATE_FAILURES: [RegExp, ConnectionFailure['code']][] = [
  [/^28/, 'auth_failed'], // invalid authorization: a bad password, no such role, refused by pg_hba
  [/^3D000$/, 'not_found'], // no such database
  [/^42501$/, 'permission_denied'],
  [/^57014$/, 'timeout'], // cancelled by the statement timeout
  [/^(25006|42|0A|22|2F)/, 'query_invalid'], // writes in a read-only transaction, syntax, unknown names, unsupported
];

function failureOf(error: unknown, timedOut: boolean): ConnectionFailure {
  if (error instanceof ConnectionFailure) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    const known = SQLSTATE_FAILURES.find(([pattern]) => pattern.test(code));
    if (known?.[1] === 'query_invalid') {
      // PostgreSQL's own words about the query (a syntax error, an unknown column): no credential is in them.
      const said = (error as Error).message;
      return new ConnectionFailure('query_invalid', { en: `PostgreSQL said: ${said}`, ar: `قال PostgreSQL: ${said}` });
    }
    if (known) return new ConnectionFailure(known[1]);
    if (NETWORK_ERROR_CODES.has(code)) return new ConnectionFailure(timedOut ? 'timeout' : 'host_unreachable');
    if (code === 'ECONNRESET' || code === 'EPIPE') return new ConnectionFailure(timedOut ? 'timeout' : 'connection_lost');
  }
  if (timedOut || /timeout/i.test((error as Error)?.message ?? '')) return new ConnectionFailure('timeout');
  return new ConnectionFailure('host_unreachable');
}

/** `database_read` (pro plan): one SELECT on a PostgreSQL server, tested and described with `LIMIT 0`. */
@Injectable()
export class DatabaseReadConnector implements Connector {
  readonly kind = 'database_read';
  readonly configType = DatabaseReadConfigDto;
  readonly credentialsType = DatabaseReadCredentialsDto;
  readonly entitlement = 'feature:database_read';

  constructor(private readonly egress: EgressPolicy) {}

  async test(target: ConnectionTarget): Promise<TestResult> {
    await this.columns(target);
    return {};
  }

  async fields(target: ConnectionTarget) {
    return { source: { kind: 'query' as const }, fields: await this.columns(target) };
  }

  private columns(target: ConnectionTarget): Promise<SourceColumn[]> {
    return probeDatabaseRead(target.config as DatabaseReadConfig, target.credentials as DatabaseReadCredentials, this.egress);
  }
}
