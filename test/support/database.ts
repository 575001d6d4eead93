import pg from 'pg';
import { afterAll, inject } from 'vitest';

export type Row = Record<string, any>;

/**
 * A suite's connections to a test database, for reading what the service wrote and arranging states
 * the API cannot reach. A pool: `connect()` gives one connection of its own, for transactions.
 */
export class TestDatabase extends pg.Pool {
  constructor(url: string) {
    super({ connectionString: url, max: 4 });
  }

  /** The rows a statement answers. */
  async rows<T = Row>(text: string, values: unknown[] = []): Promise<T[]> {
    return (await this.query(text, values)).rows as T[];
  }
}

/** The run's test database for a suite that starts no app; closed after the suite. */
export function useTestDatabase(): TestDatabase {
  const database = new TestDatabase(inject('databaseUrl'));
  afterAll(() => database.end());
  return database;
}
