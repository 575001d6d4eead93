import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { invalidField } from '../../common/errors/api-error.js';
import type { Locale } from '../../common/locale.js';
import type { MerchantLanguage } from '../../common/merchant-language.js';
import { JobQueue } from '../../infra/jobs/job-queue.js';
import { StoreService } from '../../stores/store.service.js';
import type { InsightsSettingsDoc, UpdateInsightsSettingsDto } from '../dto/settings.dto.js';
import { DEFAULT_WEEK_START } from '../query/store-calendar.js';
import { RollupMaintainer } from '../rollups/rollup-maintainer.js';
import { SchedulesService } from '../schedules/schedules.service.js';

/** The durable job that rebuilds a store's rollups after a change of its settings changed its figures. */
export const REBUILD_JOB = 'insights.rebuild';

/**
 * Insights settings (contract section 8). A time-zone change is the store's (its row holds it) and
 * re-buckets every figure kept by local hour, day or month; whether test orders count, and the grace
 * before an order is late, change figures already kept too. Each queues a rebuild of the store's
 * rollups as a durable job: one at a time per store, retried if an instance dies under it, and
 * reported by `GET /status` until it has answered the latest change.
 */
@Injectable()
export class InsightsSettingsService implements OnModuleInit, MerchantLanguage {
  constructor(
    private readonly em: EntityManager,
    private readonly stores: StoreService,
    private readonly jobs: JobQueue,
    private readonly rollups: RollupMaintainer,
    private readonly schedules: SchedulesService,
  ) {}

  onModuleInit(): void {
    this.jobs.define<{ storeId: string }>(REBUILD_JOB, { policy: 'stately', retryLimit: 3, retryBackoff: true }, ({ storeId }) =>
      this.rebuild(storeId),
    );
  }

  async get(storeId: string): Promise<InsightsSettingsDoc> {
    return this.read(this.db(this.em), storeId);
  }

  /** The store's Insights language: the language of its merchants' mail. */
  async of(storeId: string): Promise<Locale> {
    return (await this.get(storeId)).language;
  }

  async update(storeId: string, change: UpdateInsightsSettingsDto): Promise<InsightsSettingsDoc> {
    const rebuild = await this.em.fork().transactional(async (em) => {
      const db = this.db(em);
      // The store's settings row, locked: concurrent changes each compare with what the one before left.
      await sql`insert into insights_settings (store_id) values (${storeId}) on conflict (store_id) do nothing`.execute(db);
      await sql`select 1 from insights_settings where store_id = ${storeId} for update`.execute(db);
      const before = await this.read(db, storeId);
      const timezone = change.timezone === undefined || change.timezone === before.timezone ? undefined : await this.zone(change.timezone);
      const excludeTestOrders = change.excludeTestOrders ?? before.excludeTestOrders;
      const lateAfterHours = change.lateAfterHours === undefined ? before.lateAfterHours : change.lateAfterHours;
      const rebuild =
        timezone !== undefined || excludeTestOrders !== before.excludeTestOrders || (lateAfterHours ?? 0) !== (before.lateAfterHours ?? 0);
      await sql`
        update insights_settings set
          week_starts_on = ${change.weekStartsOn ?? before.weekStartsOn}, language = ${change.language ?? before.language},
          exclude_test_orders = ${excludeTestOrders}, late_after_hours = ${lateAfterHours}, updated_at = now(),
          rebuild_requested_at = ${rebuild ? sql`now()` : sql`rebuild_requested_at`}
        where store_id = ${storeId}`.execute(db);
      if (timezone) {
        await this.stores.setTimezone(storeId, timezone, em);
        // Delivery schedules keep their local times: their next due times are read anew in the new zone.
        await this.schedules.reschedule(storeId, em);
      }
      return rebuild;
    });
    if (rebuild) await this.jobs.send(REBUILD_JOB, { storeId }, { singletonKey: storeId });
    return this.get(storeId);
  }

  /** Whether the figures are still being rebuilt after the latest change that asked for it. */
  async rebuilding(storeId: string): Promise<boolean> {
    const { rows } = await sql<{ rebuilding: boolean }>`
      select coalesce(rebuild_requested_at > coalesce(rebuilt_at, '-infinity'), false) as rebuilding
      from insights_settings where store_id = ${storeId}`.execute(this.db(this.em));
    return rows[0]?.rebuilding ?? false;
  }

  private async rebuild(storeId: string): Promise<void> {
    const { rows } = await sql<{ requested: Date | null }>`
      select rebuild_requested_at as requested from insights_settings where store_id = ${storeId}`.execute(this.db(this.em));
    await this.rollups.rebuild(storeId);
    // What this rebuild answered: a change made while it ran has asked again, and stays reported until its own rebuild.
    await sql`update insights_settings set rebuilt_at = ${rows[0]?.requested ?? null} where store_id = ${storeId}`.execute(
      this.db(this.em),
    );
  }

  /** An IANA time zone name that PostgreSQL knows too; offsets and abbreviations (`+03:00`, `EST`) are refused. */
  private async zone(name: string): Promise<string> {
    const iana =
      name === 'UTC' || (/^[A-Z][A-Za-z_]+(\/[A-Za-z0-9_+-]+){1,2}$/.test(name) && Intl.supportedValuesOf('timeZone').includes(name));
    const { rows } = iana
      ? await sql<{ known: boolean }>`select exists (select 1 from pg_timezone_names where name = ${name}) as known`.execute(
          this.db(this.em),
        )
      : { rows: [{ known: false }] };
    if (!rows[0].known) {
      throw invalidField('timezone', 'invalidTimezone', {
        en: 'Must be an IANA time zone name, such as Asia/Riyadh.',
        ar: 'يجب أن يكون اسم منطقة زمنية من IANA، مثل Asia/Riyadh.',
      });
    }
    return name;
  }

  /** A store's settings, the defaults where it has no row yet. */
  private async read(db: Kysely<unknown>, storeId: string): Promise<InsightsSettingsDoc> {
    const { rows } = await sql<InsightsSettingsDoc>`
      select s.timezone, s.currency, coalesce(i.week_starts_on, ${DEFAULT_WEEK_START}) as "weekStartsOn", coalesce(i.language, 'en') as language,
             coalesce(i.exclude_test_orders, true) as "excludeTestOrders", i.late_after_hours as "lateAfterHours"
      from stores s left join insights_settings i on i.store_id = s.id where s.id = ${storeId}`.execute(db);
    return rows[0];
  }

  private db(em: EntityManager): Kysely<unknown> {
    return em.getKysely() as Kysely<unknown>;
  }
}
