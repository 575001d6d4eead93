import { Injectable } from '@nestjs/common';
import pg from 'pg';
import { EgressPolicy } from '../../infra/egress/egress-policy.js';
import { DatabaseReadConfigDto, DatabaseReadCredentialsDto } from './connector-config.dto.js';
import type { CellValue } from '../../infra/tabular/table-rows.js';
import { RECORD_MAX_BYTES } from '../../infra/tabular/file-refusal.js';
import { JsonLineFault, jsonLineValues } from '../../infra/tabular/jsonl-reader.js';
import type { RowProblem, SourceRow } from '../../infra/tabular/table-rows.js';
import { ThreadShare } from '../../infra/tabular/thread-share.js';
import { CONNECTION_TEST_TIMEOUT_MS, type ConnectionTarget, type Connector, type QueryRows, type TestResult } from './connector.js';
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
 * How long each statement of a run's query may take on the merchant's server: declaring the cursor,
 * then each fetch of its rows (a query that sorts or groups does most of its work before the first).
 */
export const QUERY_STATEMENT_TIMEOUT_MS = 60_000;
/** A fetch asks for about this much of the largest rows read so far, from the first fetch's rows up to the most. */
const FETCH_BYTES = 8 * 1024 * 1024;
const FIRST_FETCH_ROWS = 100;
const MAX_FETCH_ROWS = 2000;
const NUMERIC = pg.types.builtins.NUMERIC;

/** A client of the merchant's server at the address the egress policy checked. */
async function connectedClient(
  config: DatabaseReadConfig,
  credentials: DatabaseReadCredentials,
  egress: EgressPolicy,
  options: { connectTimeoutMs: number; queryTimeoutMs?: number },
): Promise<pg.Client> {
  const address = await checkedAddress(egress, config.host);
  const client = new pg.Client({
    host: address,
    port: config.port ?? 5432,
    database: config.database,
    user: config.username,
    password: credentials.password,
    application_name: 'storefront data hub',
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: options.queryTimeoutMs,
  });
  client.on('error', () => undefined); // a connection lost between queries fails the next one
  await client.connect();
  return client;
}

/**
 * A statement sent in the extended protocol, which takes one statement only, and unnamed: a named prepared
 * statement would outlive the transaction on the server connection, which a pooler in transaction mode
 * (PgBouncer) then hands to another client, whose own preparation of that name fails.
 */
function oneStatement(text: string): pg.QueryConfig {
  return { text, queryMode: 'extended' } as pg.QueryConfig; // pg 8.23 reads queryMode; its types do not list it
}

/**
 * The query's columns, described without running it (`LIMIT 0`, as a prepared statement: one
 * statement only, so a query that closes the parenthesis to add statements of its own is refused by
 * the server, not run). Two columns of one name are refused: a mapping could not tell them apart.
 */
async function describedColumns(client: pg.Client, query: string): Promise<{ fields: pg.FieldDef[]; columns: SourceColumn[] }> {
  // The line breaks end a trailing comment.
  const result = await client.query(oneStatement(`select * from (\n${singleStatement(query)}\n) as source limit 0`));
  const names = result.fields.map((field) => field.name);
  const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  if (repeated.length > 0) {
    const list = repeated.join(', ');
    throw new ConnectionFailure('query_columns_repeated', { en: `Repeated: ${list}.`, ar: `المكرر: ${list}.` });
  }
  const types = await client.query<{ oid: number; typname: string }>('select oid, typname from pg_type where oid = any($1)', [
    result.fields.map((field) => field.dataTypeID),
  ]);
  const typeName = new Map(types.rows.map((row) => [row.oid, row.typname]));
  return {
    fields: result.fields,
    columns: result.fields.map((field) => ({ name: field.name, type: typeName.get(field.dataTypeID) ?? 'unknown' })),
  };
}

/**
 * Tests a `database_read` connection for real: resolves the host through the egress policy and
 * connects to the address it checked, then describes the query (`LIMIT 0`) in a read-only transaction
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
  let client: pg.Client | undefined;
  // A server that accepts the connection and then says nothing must not hold the test past its deadline.
  const timer = setTimeout(() => void client?.end().catch(() => undefined), timeoutMs);
  timer.unref();
  try {
    client = await connectedClient(config, credentials, egress, { connectTimeoutMs: Math.max(1, deadline - Date.now()) });
    const left = Math.max(1, deadline - Date.now());
    await client.query(`begin transaction read only; set local statement_timeout = ${Math.ceil(left)}`);
    const { columns } = await describedColumns(client, config.query);
    await client.query('rollback');
    return columns;
  } catch (error) {
    throw queryFailureOf(error, { timedOut: Date.now() >= deadline, connected: client !== undefined });
  } finally {
    clearTimeout(timer);
    await client?.end().catch(() => undefined);
  }
}

/** A query's rows for a run, read through a cursor; `close` ends the session (nothing was written on it). */
/**
 * The query's rows as a run reads them: in a read-only transaction on the merchant's server, through a
 * cursor fetched a batch at a time (about 8 MiB of the largest rows read so far, at most 2000 rows),
 * each statement under QUERY_STATEMENT_TIMEOUT_MS, so memory holds a batch, not the query's answer. `header` is the
 * query's columns; `line` is a row's ordinal (the first row is 1). Values are those a JSON lines file
 * gives (PostgreSQL's `row_to_json`): text, numbers (integers past 2^53 as their digits), booleans,
 * null, json as JSON text or lists, arrays as lists, dates ISO 8601 (`timestamptz` in UTC); `numeric`
 * values are numbers when a number holds them exactly (15 significant digits), else their digits. A row
 * larger than a file's largest record is rejected (`row_too_large`). A failure of the query midway (a
 * division by zero, the statement timeout, a lost connection) rejects the iteration with a
 * ConnectionFailure.
 */
export async function readDatabaseRows(
  config: DatabaseReadConfig,
  credentials: DatabaseReadCredentials,
  egress: EgressPolicy,
  statementTimeoutMs = QUERY_STATEMENT_TIMEOUT_MS,
): Promise<QueryRows> {
  let client: pg.Client | undefined;
  const failure = (error: unknown) => queryFailureOf(error, { connected: client !== undefined, statementTimeoutMs });
  try {
    // The client's own limit, past the server's: a server that stops answering altogether.
    client = await connectedClient(config, credentials, egress, {
      connectTimeoutMs: CONNECTION_TEST_TIMEOUT_MS,
      queryTimeoutMs: statementTimeoutMs + CONNECTION_TEST_TIMEOUT_MS,
    });
    // UTC: `timestamptz` values are written in the session's time zone.
    await client.query(`begin transaction read only; set local statement_timeout = ${statementTimeoutMs}; set local timezone = 'UTC'`);
    const { fields } = await describedColumns(client, config.query);
    const projection = fields
      .map(({ name, dataTypeID }) => {
        const column = `source.${client!.escapeIdentifier(name)}`;
        // As text, for the digits a JavaScript number would lose.
        return dataTypeID === NUMERIC ? `${column}::text as ${client!.escapeIdentifier(name)}` : column;
      })
      .join(', ');
    // OFFSET 0 keeps each row's JSON computed once, not once for its size and again for itself.
    await client.query(
      oneStatement(`declare source_rows no scroll cursor for
        select case when octet_length(json) <= ${RECORD_MAX_BYTES} then json end as json, octet_length(json) as bytes
        from (select row_to_json(projected)::text as json from (select ${projection} from (\n${singleStatement(config.query)}\n) as source) as projected offset 0) as rows`),
    );
    return new CursorRows(
      client,
      fields.map((field) => field.name),
      fields.filter((field) => field.dataTypeID === NUMERIC).map((field) => field.name),
      failure,
    );
  } catch (error) {
    await client?.end().catch(() => undefined);
    throw failure(error);
  }
}

/** A row as the cursor gives it: its JSON, or null when it is larger than a record may be. */
interface CursorRow {
  json: string | null;
  bytes: number;
}

/** Hands out the fetched rows one at a time; as a file's rows, every THREAD_SLICE_MS the next one waits for the event loop. */
class CursorRows implements QueryRows {
  readonly header: Promise<string[]>;
  private batch: (SourceRow | RowProblem)[] = [];
  private next = 0;
  private line = 0;
  private fetchRows = FIRST_FETCH_ROWS;
  private largestRow = 1;
  private finished = false;
  private readonly thread = new ThreadShare();

  constructor(
    private readonly client: pg.Client,
    columns: string[],
    private readonly numericColumns: string[],
    private readonly failure: (error: unknown) => ConnectionFailure,
  ) {
    this.header = Promise.resolve(columns);
  }

  [Symbol.asyncIterator](): AsyncIterator<SourceRow | RowProblem> {
    return {
      next: () =>
        this.next < this.batch.length && !this.thread.due
          ? Promise.resolve({ value: this.batch[this.next++], done: false })
          : this.fetched(),
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }

  async close(): Promise<void> {
    this.finished = true;
    await this.client.end().catch(() => undefined);
  }

  private async fetched(): Promise<IteratorResult<SourceRow | RowProblem>> {
    if (this.thread.due) await this.thread.pause();
    while (this.next >= this.batch.length) {
      if (this.finished) return { value: undefined, done: true };
      const asked = this.fetchRows;
      const { rows } = await this.client.query<CursorRow>(`fetch ${asked} from source_rows`).catch((error: unknown) => {
        throw this.failure(error);
      });
      this.finished = rows.length < asked;
      this.batch = rows.map((row) => this.sourceRow(row));
      this.next = 0;
      this.fetchRows = Math.min(MAX_FETCH_ROWS, Math.max(1, Math.floor(FETCH_BYTES / this.largestRow)));
    }
    return { value: this.batch[this.next++], done: false };
  }

  private sourceRow(row: CursorRow): SourceRow | RowProblem {
    const line = ++this.line;
    if (row.json === null) {
      const megabytes = RECORD_MAX_BYTES / 1024 / 1024;
      return {
        line,
        code: 'row_too_large',
        message_en: `The row is larger than ${megabytes} MiB, the most a row may be: leave its largest columns out of the query, or shorten them.`,
        message_ar: `الصف أكبر من ${megabytes} ميغابايت، وهو أقصى حجم للصف: أخرج أكبر أعمدته من الاستعلام، أو اختصرها.`,
      };
    }
    this.largestRow = Math.max(this.largestRow, row.bytes);
    const values = jsonLineValues(row.json);
    if (values instanceof JsonLineFault) return { line, code: 'row_unreadable', message_en: values.en, message_ar: values.ar };
    for (const column of this.numericColumns) {
      const text = values[column];
      if (typeof text === 'string') Object.defineProperty(values, column, { value: numericCell(text), enumerable: true, writable: true });
    }
    return { line, values };
  }
}

/** A `numeric` value as a number when a number holds it exactly (as transforms read numbers: 15 significant digits), else its digits. */
function numericCell(text: string): CellValue {
  const match = /^-?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return text; // NaN, Infinity
  const number = Number(text);
  if (Number.isInteger(number)) return Number.isSafeInteger(number) ? number : text;
  const significant = (match[1] + (match[2] ?? '')).replace(/^0+/, '').replace(/0+$/, '');
  return significant.length <= 15 ? number : text;
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
  [/^57P0[12]$/, 'connection_lost'], // the server shut down
  [/^(25006|42|0A|2F)/, 'query_invalid'], // writes in a read-only transaction, syntax, unknown names, unsupported
];

/** PostgreSQL's own words about the query (a syntax error, a division by zero): no credential is in them. */
const QUERY_REASONS = new Set<ConnectionFailure['code']>(['query_invalid', 'query_failed']);

function queryFailureOf(
  error: unknown,
  context: { timedOut?: boolean; connected: boolean; statementTimeoutMs?: number },
): ConnectionFailure {
  if (error instanceof ConnectionFailure) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    const sqlState = /^[0-9A-Z]{5}$/.test(code);
    const known = SQLSTATE_FAILURES.find(([pattern]) => pattern.test(code))?.[1] ?? (sqlState ? 'query_failed' : undefined);
    if (known && QUERY_REASONS.has(known)) {
      const said = (error as Error).message;
      return new ConnectionFailure(known, { en: `PostgreSQL said: ${said}`, ar: `قال PostgreSQL: ${said}` });
    }
    if (known === 'timeout' && context.statementTimeoutMs !== undefined) {
      const seconds = context.statementTimeoutMs / 1000;
      return new ConnectionFailure('timeout', {
        en: `PostgreSQL cancelled the query after ${seconds} s, the most each of its steps may take.`,
        ar: `ألغى PostgreSQL الاستعلام بعد ${seconds} ثانية، وهي أقصى مدة لكل خطوة منه.`,
      });
    }
    if (known) return new ConnectionFailure(known);
    if (NETWORK_ERROR_CODES.has(code)) return new ConnectionFailure(context.timedOut ? 'timeout' : 'host_unreachable');
    if (code === 'ECONNRESET' || code === 'EPIPE') return new ConnectionFailure(context.timedOut ? 'timeout' : 'connection_lost');
  }
  if (context.timedOut || /timeout/i.test((error as Error)?.message ?? '')) return new ConnectionFailure('timeout');
  return new ConnectionFailure(context.connected ? 'connection_lost' : 'host_unreachable');
}

/** `database_read` (pro plan): one SELECT on a PostgreSQL server, tested and described with `LIMIT 0`, its rows read by a cursor for runs. */
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

  async rows(target: ConnectionTarget, signal: AbortSignal): Promise<QueryRows> {
    const rows = await readDatabaseRows(target.config as DatabaseReadConfig, target.credentials as DatabaseReadCredentials, this.egress);
    signal.addEventListener('abort', () => void rows.close(), { once: true });
    return rows;
  }

  private columns(target: ConnectionTarget): Promise<SourceColumn[]> {
    return probeDatabaseRead(target.config as DatabaseReadConfig, target.credentials as DatabaseReadCredentials, this.egress);
  }
}
