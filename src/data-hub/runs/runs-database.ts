import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import pg, { type PoolClient } from 'pg';
import { dropImportTables } from '../../infra/database/record-import.js';
import { DatabaseConnection } from '../../infra/database/database-connection.js';
import { observePool } from '../../infra/telemetry/metrics.js';

/**
 * The connections data hub runs work on: each run holds one for its whole transaction (staging the
 * file, comparing, applying), so runs take their own small pool rather than the request pool's. A run's
 * outcome table outlives its commit (it is read after a preview's, dropped after a run's): session
 * state, so these are sessions of their own (DATABASE_DIRECT_URL behind a pooler in transaction mode,
 * which would hand the statements after the commit another server connection and leave the table on this one).
 */
@Injectable()
export class RunsDatabase implements OnModuleDestroy {
  readonly pool: pg.Pool;

  constructor(database: DatabaseConnection) {
    this.pool = new pg.Pool({ connectionString: database.sessionUrl, max: 4, application_name: 'storefront data hub runs' });
    this.pool.on('error', () => undefined); // an idle client's lost connection is replaced on the next connect
    observePool('data_hub_runs', this.pool);
  }

  /**
   * A run's transaction on a connection of its own: begun, rolled back when `work` throws (whatever it
   * committed stays), its temporary tables dropped and the connection released however it ends.
   */
  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      return await work(client);
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      await dropImportTables(client).catch(() => undefined);
      client.release();
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.end();
  }
}
