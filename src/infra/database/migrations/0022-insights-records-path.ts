import { Migration } from '@mikro-orm/migrations';

/**
 * The builder's records path (contract section 11) reads a store's orders cancelled within a range,
 * as the cancellation fold does for a whole store: without an index on when they were cancelled it
 * would read every order of every store. Cancelled orders are few, so the index holds only them.
 */
export class Migration0022InsightsRecordsPath extends Migration {
  override name = '0022-insights-records-path';

  override up(): void {
    this.addSql(`create index orders_store_id_cancelled_at_index on orders (store_id, cancelled_at) where cancelled_at is not null;`);
  }
}
