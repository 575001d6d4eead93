import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  type CompiledQuery,
  type DatabaseConnection as KyselyConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  sql,
} from 'kysely';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { AppConfig } from '../config/app-config.js';
import { observePool } from '../telemetry/metrics.js';
import { DatabaseConnection } from './database-connection.js';

export type ReadSource = 'replica' | 'primary';

export interface ReplicaState {
  /** `up`: reads go to it; `lagging`: further behind than REPLICA_MAX_LAG_SECONDS; `down`: it does not answer. */
  status: 'up' | 'lagging' | 'down';
  /** How far its replay is behind the primary; null while it does not answer. */
  lagSeconds: number | null;
  checkedAt: string;
}

/** How often the replica's lag is measured: a replica that stops is skipped within this, or at the first read that fails. */
const CHECK_INTERVAL_MS = 1_000;
/** A replica that takes longer to give a connection, or to answer the lag check, counts as down. */
const REPLICA_TIMEOUT_MS = 1_000;
/** The replica's own pools: connections open only while reads run. */
const REPLICA_IDLE_MS = 10_000;

/**
 * Where the heavy reads go (Insights reports, the builder's rollups, dimension values, exports, report
 * deliveries, data hub exports): a streaming replica (DATABASE_REPLICA_URL) while it answers and keeps
 * within REPLICA_MAX_LAG_SECONDS of the primary, the primary otherwise. Writes, storefront reads and
 * whatever must read its own writes keep to the ORM's connection to the primary.
 *
 * A pool of its own rather than MikroORM's read replicas: those take a random replica for every read
 * outside a transaction, know nothing of lag, and are connected at start. Here each read is routed when
 * it runs, and a read the replica fails for want of a connection (stopped, restarting, a statement
 * cancelled by a recovery conflict) is run again on the primary: reads change nothing, and the member
 * gets the answer rather than a 5xx.
 */
@Injectable()
export class ReportReads implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ReportReads.name);
  /** Statements routed as above: what `sql\`…\`.execute(reads.db)` and the query builders run on. */
  readonly db: Kysely<unknown>;
  private replica?: { db: Kysely<unknown>; pool: pg.Pool; clients: pg.Pool };
  private state?: ReplicaState;
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;

  constructor(
    private readonly em: EntityManager,
    private readonly database: DatabaseConnection,
    private readonly config: AppConfig,
  ) {
    const route = (run: (db: Kysely<unknown>) => Promise<unknown>) => this.route(run);
    this.db = new Kysely<unknown>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new RoutingDriver(route, (query, chunk) => this.stream(query, chunk)),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    });
  }

  async onModuleInit(): Promise<void> {
    const url = this.database.replicaUrl;
    if (!url) return;
    // The ORM's type parsers (timestamps as the strings PostgreSQL gives), so that a report reads the same from either.
    const primaryPool = (await this.em.getConnection().getNativeClient()) as pg.Pool;
    const common = { connectionString: url, connectionTimeoutMillis: REPLICA_TIMEOUT_MS, idleTimeoutMillis: REPLICA_IDLE_MS, min: 0 };
    const pool = new pg.Pool({
      ...common,
      max: this.config.DATABASE_POOL_SIZE,
      types: primaryPool.options.types,
      application_name: 'storefront reports',
    });
    // Plain pg clients, with pg's own parsers: the data hub's exports read records through them.
    const clients = new pg.Pool({ ...common, max: 4, application_name: 'storefront data hub exports' });
    for (const each of [pool, clients]) {
      // A replica that stops ends its connections: an idle one's error reaches the pool, one in use its client, and
      // either unheard would end the process. The read on it fails and falls back (route); the pool replaces it.
      each.on('error', () => undefined);
      each.on('connect', (client) => client.on('error', () => undefined));
    }
    observePool('replica_reports', pool);
    observePool('replica_data_hub_exports', clients);
    this.replica = { db: new Kysely<unknown>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) }), pool, clients };
    await this.check();
    this.timer = setInterval(() => void this.check(), CHECK_INTERVAL_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
    await this.replica?.db.destroy();
    await this.replica?.clients.end();
  }

  /** The replica's state for /health/ready; undefined when none is configured. */
  replicaState(): ReplicaState | undefined {
    return this.state && { ...this.state };
  }

  /** Where a read would go now, and how far that source is behind the primary. */
  current(): { source: ReadSource; lagSeconds: number } {
    if (this.state?.status === 'up') return { source: 'replica', lagSeconds: Math.ceil(this.state.lagSeconds ?? 0) };
    return { source: 'primary', lagSeconds: 0 };
  }

  /**
   * A connection of the replica's for reads of its own (a repeatable-read snapshot, a cursor), or undefined
   * when reads go to the primary. The caller releases it; a failure on it fails the caller's attempt.
   */
  async replicaClient(): Promise<pg.PoolClient | undefined> {
    if (!this.replica || this.state?.status !== 'up') return undefined;
    try {
      return await this.replica.clients.connect();
    } catch (error) {
      this.fellOver(error);
      return undefined;
    }
  }

  private primary(): Kysely<unknown> {
    return this.em.getKysely() as Kysely<unknown>;
  }

  private async route<T>(run: (db: Kysely<unknown>) => Promise<T>): Promise<T> {
    if (this.replica && this.state?.status === 'up') {
      try {
        return await run(this.replica.db);
      } catch (error) {
        if (!replicaCannotServe(error)) throw error;
        this.fellOver(error);
      }
    }
    return run(this.primary());
  }

  /** A cursor's batches from the replica; from the primary when the replica fails before its first batch. */
  private async *stream<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    if (this.replica && this.state?.status === 'up') {
      let started = false;
      try {
        for await (const batch of this.replica.db.getExecutor().stream<R>(query, chunkSize)) {
          started = true;
          yield batch;
        }
        return;
      } catch (error) {
        if (started || !replicaCannotServe(error)) throw error;
        this.fellOver(error);
      }
    }
    yield* this.primary().getExecutor().stream<R>(query, chunkSize);
  }

  private fellOver(error: unknown): void {
    // A statement cancelled by a conflict with recovery says nothing of the replica's health.
    if ((error as { code?: string }).code === SERIALIZATION_FAILURE) return;
    this.transition({ status: 'down', lagSeconds: null, checkedAt: new Date().toISOString() }, (error as Error).message);
  }

  private check(): Promise<void> {
    this.checking ??= this.measure().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /**
   * The replica's lag: none once it has replayed what the primary had written when asked (an idle primary
   * writes nothing, and its last replayed transaction grows old without the replica falling behind), else
   * the age of the last transaction it replayed.
   */
  private async measure(): Promise<void> {
    const checkedAt = new Date().toISOString();
    try {
      const { rows: primary } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(this.primary());
      const { rows } = await withTimeout(
        sql<{ recovering: boolean; lag: number | null }>`
          select pg_is_in_recovery() as recovering,
                 case when pg_last_wal_replay_lsn() >= ${primary[0].lsn}::pg_lsn then 0
                      else extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 end as lag`.execute(this.replica!.db),
        REPLICA_TIMEOUT_MS,
      );
      if (!rows[0].recovering) throw new Error('DATABASE_REPLICA_URL names a server that is not a replica (pg_is_in_recovery() is false)');
      const lagSeconds = Math.max(0, rows[0].lag ?? 0);
      const status = lagSeconds > this.config.REPLICA_MAX_LAG_SECONDS ? 'lagging' : 'up';
      this.transition({ status, lagSeconds, checkedAt }, `replay ${lagSeconds.toFixed(1)} s behind the primary`);
    } catch (error) {
      this.transition({ status: 'down', lagSeconds: null, checkedAt }, (error as Error).message);
    }
  }

  /** One log line per change of state, not per check. */
  private transition(next: ReplicaState, reason: string): void {
    const previous = this.state?.status;
    this.state = next;
    if (previous === next.status) return;
    if (next.status === 'up') {
      if (previous) this.logger.log(`read replica back (${reason}): reports read from it again`);
      return;
    }
    const why =
      next.status === 'lagging'
        ? `more than REPLICA_MAX_LAG_SECONDS=${this.config.REPLICA_MAX_LAG_SECONDS} behind (${reason})`
        : `down (${reason})`;
    this.logger.warn(`read replica ${why}: reports read from the primary until it is back`);
  }
}

const SERIALIZATION_FAILURE = '40001';
/** Errors after which the same read can only succeed elsewhere: the replica is gone, going, or cancelled it. */
const UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300', SERIALIZATION_FAILURE]);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);

function replicaCannotServe(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  if (code && (UNAVAILABLE.has(code) || NETWORK.has(code))) return true;
  // pg's own words for a connection it lost or could not make in time
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    (error as Error)?.message ?? '',
  );
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A Kysely driver whose every statement is routed when it runs (see ReportReads.route): connections are
 * handles, not sessions, so it holds no transactions; those stay on the connection that began them.
 */
class RoutingDriver implements Driver {
  constructor(
    private readonly route: (run: (db: Kysely<unknown>) => Promise<unknown>) => Promise<unknown>,
    private readonly stream: (query: CompiledQuery, chunkSize: number) => AsyncIterableIterator<QueryResult<unknown>>,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<KyselyConnection> {
    return {
      executeQuery: <R>(query: CompiledQuery) => this.route((db) => db.getExecutor().executeQuery(query)) as Promise<QueryResult<R>>,
      streamQuery: <R>(query: CompiledQuery, chunkSize: number) => this.stream(query, chunkSize) as AsyncIterableIterator<QueryResult<R>>,
    };
  }

  beginTransaction(): Promise<void> {
    throw new Error('report reads run outside transactions: a transaction keeps to the connection that began it');
  }

  commitTransaction(): Promise<void> {
    throw new Error('report reads hold no transactions');
  }

  rollbackTransaction(): Promise<void> {
    throw new Error('report reads hold no transactions');
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {}
}
