import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import pg from 'pg';
import { DatabaseConnection } from '../../infra/database/database-connection.js';

/**
 * The connections data hub runs work on: each run holds one for its whole transaction (staging the
 * file, comparing, applying), so runs take their own small pool rather than the request pool's.
 */
@Injectable()
export class RunsDatabase implements OnModuleDestroy {
  readonly pool: pg.Pool;

  constructor(database: DatabaseConnection) {
    this.pool = new pg.Pool({ connectionString: database.url, max: 4, application_name: 'storefront data hub runs' });
    this.pool.on('error', () => undefined); // an idle client's lost connection is replaced on the next connect
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.end();
  }
}
