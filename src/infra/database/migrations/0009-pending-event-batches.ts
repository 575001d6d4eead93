import { Migration } from '@mikro-orm/migrations';

/**
 * One pending change per store for each statement that writes storefront events, naming every event it
 * wrote (`event_ids`), instead of one per event: a batch of a thousand session starts costs the rollups
 * one row to write and one to delete. Changes still waiting are carried over.
 */
export class Migration0009PendingEventBatches extends Migration {
  override name = '0009-pending-event-batches';

  override up(): void {
    this.addSql(`
      alter table insights_pending add column event_ids bigint[] null;
      update insights_pending set event_ids = array[event_id] where event_id is not null;
      alter table insights_pending drop column event_id;

      create or replace function insights_storefront_events_inserted() returns trigger language plpgsql as $$
      begin
        insert into insights_pending (store_id, kind, event_ids)
        select store_id, 'storefront_event', array_agg(id order by id) from new_rows group by store_id;
        return null;
      end $$;
    `);
  }
}
