import type { PoolClient } from 'pg';

/**
 * Keyset reads of a store's keyed records (the data hub's export runs), inside the caller's transaction,
 * so that every batch comes from its snapshot. The module that owns the table holds the query.
 */
export interface RecordExport {
  /** The store's records in key order, after the key `after` (null: from the first), `limit` at most, their columns named as the structure's fields. */
  read<Row extends Record<string, unknown>>(client: PoolClient, storeId: string, after: string | null, limit: number): Promise<Row[]>;
}

/** A read by one query over the store (`$1`), the key to read after (`$2`) and the limit (`$3`), through its table's unique key index. */
export class KeysetExport implements RecordExport {
  constructor(private readonly query: string) {}

  async read<Row extends Record<string, unknown>>(
    client: PoolClient,
    storeId: string,
    after: string | null,
    limit: number,
  ): Promise<Row[]> {
    return (await client.query<Row>(this.query, [storeId, after, limit])).rows;
  }
}
