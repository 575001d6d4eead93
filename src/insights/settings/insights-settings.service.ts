import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { invalidField } from '../../common/errors/api-error.js';
import { JobQueue } from '../../infra/jobs/job-queue.js';
import { StoreService } from '../../stores/store.service.js';
import type { InsightsSettingsDoc, UpdateInsightsSettingsDto } from '../dto/settings.dto.js';
import { DEFAULT_WEEK_START } from '../query/store-calendar.js';
import { RollupMaintainer } from '../rollups/rollup-maintainer.js';

/** The durable job that rebuilds a store's rollups after its time zone changed. */
export const REBUILD_JOB = 'insights.rebuild';

/**
 * Insights settings (contract section 8). A time-zone change is the store's (its row holds it) and
 * re-buckets every figure kept by local hour, day or month, so it queues a rebuild of the store's
 * rollups as a durable job: one at a time per store, retried if an instance dies under it, and
 * reported by `GET /status` until it has answered the latest change.
 */
@Injectable()
export class InsightsSettingsService implements OnModuleInit {
  constructor(
    private readonly em: EntityManager,
    private readonly stores: StoreService,
    private readonly jobs: JobQueue,
    private readonly rollups: RollupMaintainer,
  ) {}

  onModuleInit(): void {
    this.jobs.define<{ storeId: string }>(REBUILD_JOB, { policy: 'stately', retryLimit: 3, retryBackoff: true }, ({ storeId }) =>
      this.rebuild(storeId),
    );
  }

  async get(storeId: string): Promise<InsightsSettingsDoc> {
    const { rows } = await sql<InsightsSettingsDoc>`
      select s.timezone, s.currency, coalesce(i.week_starts_on, ${DEFAULT_WEEK_START}) as "weekStartsOn", coalesce(i.language, 'en') as language
      from stores s left join insights_settings i on i.store_id = s.id where s.id = ${storeId}`.execute(this.db(this.em));
    return rows[0];
  }

  async update(storeId: string, change: UpdateInsightsSettingsDto): Promise<InsightsSettingsDoc> {
    const before = await this.get(storeId);
    const timezone = change.timezone === undefined || change.timezone === before.timezone ? undefined : await this.zone(change.timezone);
    await this.em.fork().transactional(async (em) => {
      await sql`
        insert into insights_settings (store_id, week_starts_on, language, rebuild_requested_at)
        values (${storeId}, ${change.weekStartsOn ?? before.weekStartsOn}, ${change.language ?? before.language},
                ${timezone ? sql`now()` : sql`null`})
        on conflict (store_id) do update set
          week_starts_on = excluded.week_starts_on, language = excluded.language, updated_at = now(),
          rebuild_requested_at = coalesce(excluded.rebuild_requested_at, insights_settings.rebuild_requested_at)`.execute(this.db(em));
      if (timezone) await this.stores.setTimezone(storeId, timezone, em);
    });
    if (timezone) await this.jobs.send(REBUILD_JOB, { storeId }, { singletonKey: storeId });
    return this.get(storeId);
  }

  /** Whether the figures are still being rebuilt after the latest time-zone change. */
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

  private db(em: EntityManager): Kysely<unknown> {
    return em.getKysely() as Kysely<unknown>;
  }
}
