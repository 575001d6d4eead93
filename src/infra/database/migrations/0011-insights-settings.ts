import { Migration } from '@mikro-orm/migrations';

/**
 * A store's Insights settings (contract section 8) beside its time zone and currency, which the store
 * row holds. A time-zone change asks for the store's rollups to be rebuilt in the new zone:
 * `rebuild_requested_at` is when it last asked, `rebuilt_at` the request the last rebuild answered.
 */
export class Migration0011InsightsSettings extends Migration {
  override name = '0011-insights-settings';

  override up(): void {
    this.addSql(`
      create table insights_settings (
        store_id uuid primary key constraint insights_settings_store_id_foreign references stores (id),
        week_starts_on text check (week_starts_on in ('saturday', 'sunday', 'monday')) not null default 'sunday',
        language text check (language in ('en', 'ar')) not null default 'en',
        rebuild_requested_at timestamptz null,
        rebuilt_at timestamptz null,
        updated_at timestamptz not null default now()
      );
    `);
  }
}
