import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { Recurring } from '../../infra/jobs/recurring.decorator.js';
import { queryableOf, RunRecords } from './run-records.js';

/** How long a run's row lists (rejected, created, deactivated, changed, conflicts) are kept; the run itself is kept. */
export const RUN_LISTS_KEPT_DAYS = 90;
/** Runs whose lists one transaction removes at most… */
const RUNS_PER_BATCH = 50;
/** …and the rows it stops adding runs at (a run is never split: one with more rows goes alone). */
const ROWS_PER_BATCH = 100_000;

/**
 * Removes the row lists of runs older than RUN_LISTS_KEPT_DAYS and marks each run `lists_purged_at`
 * (it can no longer be undone, nor its rows downloaded). Daily, once across instances (a recurring job);
 * two purges at once take different runs (`skip locked`). A run's lists go in the same transaction that
 * marks it, so a run is either whole or marked, never half purged; transactions stay short, a batch of
 * runs at a time.
 */
@Injectable()
export class RunRetentionScheduler {
  private readonly logger = new Logger(RunRetentionScheduler.name);

  constructor(private readonly em: EntityManager) {}

  @Recurring('data-hub.run-lists-retention', '30 3 * * *')
  async purgeDaily(): Promise<void> {
    const purged = await this.purge();
    if (purged.runs > 0) this.logger.log(`purged the lists of ${purged.runs} data hub runs (${purged.rows} rows)`);
  }

  async purge(): Promise<{ runs: number; rows: number }> {
    const total = { runs: 0, rows: 0 };
    for (;;) {
      const batch = await this.em.fork().transactional((em) =>
        RunRecords.purgeLists(queryableOf(em.getKysely() as Kysely<unknown>), {
          olderThanDays: RUN_LISTS_KEPT_DAYS,
          runs: RUNS_PER_BATCH,
          rows: ROWS_PER_BATCH,
        }),
      );
      if (batch.runs === 0) return total;
      total.runs += batch.runs;
      total.rows += batch.rows;
    }
  }
}
