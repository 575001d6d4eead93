import { IsolationLevel } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { FOLDS, PENDING_KINDS, type PendingKind } from './facts.js';
import type { FoldScope } from './facts/statements.js';
import { ROLLUP_STATE_TABLES, ROLLUPS } from './rollup-tables.js';

/** The advisory lock under which rollups change: one fold (or rebuild) at a time across every instance. */
const ROLLUP_LOCK = 7_301_017;
const BATCH = 5000;
const SERIALIZATION_FAILURE = '40001';

interface PendingRow {
  kind: PendingKind;
  ref_id: string | null;
  event_ids: string[] | null;
}

/**
 * Keeps the rollups current: folds pending changes in (every instance tries every INSIGHTS_FOLD_SECONDS; one at a
 * time holds the lock, so no change is folded twice) and rebuilds a store's rollups from its records.
 * A batch is claimed, folded and removed in one transaction: a failure leaves it pending.
 */
@Injectable()
export class RollupMaintainer {
  private readonly logger = new Logger(RollupMaintainer.name);

  constructor(private readonly em: EntityManager) {}

  /**
   * Folds up to `limit` pending changes that are due; answers how many, or 0 when another instance
   * holds the lock. `wait` waits for the lock, `dueBy` folds what is due by then (tests fold the
   * 5-second settling delay of new orders away with a later time).
   */
  async foldDue(options: { limit?: number; wait?: boolean; dueBy?: Date } = {}): Promise<number> {
    return this.em.fork().transactional(async (em) => {
      const db = em.getKysely() as Kysely<unknown>;
      if (options.wait) await sql`select pg_advisory_xact_lock(${ROLLUP_LOCK})`.execute(db);
      else {
        const { rows } = await sql<{ taken: boolean }>`select pg_try_advisory_xact_lock(${ROLLUP_LOCK}) as taken`.execute(db);
        if (!rows[0].taken) return 0;
      }
      // A batch is up to `limit` changes, a row of storefront events counting as its events (its first row
      // whatever its size); `= any(array(…))`: it is chosen once, whatever the planner guesses of a table it rarely sees full.
      const limit = options.limit ?? BATCH;
      const { rows } = await sql<PendingRow>`
        delete from insights_pending where id = any(array(
          select id from (
            select id, sum(coalesce(cardinality(event_ids), 1)) over (order by id) - coalesce(cardinality(event_ids), 1) as before
            from (select id, event_ids from insights_pending where due_at <= ${options.dueBy ?? new Date()} order by id limit ${limit}) due
          ) counted where before < ${limit}
        )) returning kind, ref_id, event_ids`.execute(db);
      const byKind = new Map<PendingKind, string[]>();
      for (const row of rows) {
        const ids = byKind.get(row.kind) ?? [];
        if (row.event_ids) ids.push(...row.event_ids);
        else ids.push(row.ref_id!);
        byKind.set(row.kind, ids);
      }
      for (const kind of PENDING_KINDS) {
        const ids = byKind.get(kind);
        if (ids) await this.fold(db, kind, { ids: [...new Set(ids)] });
      }
      return rows.length;
    });
  }

  /** Folds until nothing due is pending. */
  async drain(options: { dueBy?: Date } = {}): Promise<void> {
    while ((await this.foldDue({ ...options, wait: true })) > 0);
  }

  /**
   * Recomputes a store's rollups from its records: every fold over the whole store, in one
   * transaction over one snapshot, replacing what was there and what was pending. A fold that
   * commits meanwhile makes the snapshot stale; the rebuild then starts again.
   */
  async rebuild(storeId: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.em.fork().transactional(
          async (em) => {
            const db = em.getKysely() as Kysely<unknown>;
            await sql`select pg_advisory_xact_lock(${ROLLUP_LOCK})`.execute(db);
            // One-off statements over the whole store: compiling them costs more than it saves, and their sorts fit in memory.
            await sql`set local jit = off`.execute(db);
            await sql`set local work_mem = '256MB'`.execute(db);
            await sql`delete from insights_pending where store_id = ${storeId}`.execute(db);
            for (const table of [...Object.values(ROLLUPS).map((rollup) => rollup.name), ...ROLLUP_STATE_TABLES]) {
              await sql`delete from ${sql.table(table)} where store_id = ${storeId}`.execute(db);
            }
            for (const kind of PENDING_KINDS) await this.fold(db, kind, { storeId });
          },
          { isolationLevel: IsolationLevel.REPEATABLE_READ },
        );
        break;
      } catch (error) {
        if (!isSerializationFailure(error) || attempt >= 5) throw error;
        this.logger.debug(`rebuild of store ${storeId}: a fold committed meanwhile; again (attempt ${attempt + 1})`);
      }
    }
    // The planner's statistics of the rollups for the reports that read them next, and their pages marked
    // all-visible so that index-only scans (the top customers') read no table page.
    await sql`vacuum (analyze) ${sql.join(Object.values(ROLLUPS).map((rollup) => sql.table(rollup.name)))}`.execute(this.em.getKysely());
  }

  private async fold(db: Kysely<unknown>, kind: PendingKind, scope: FoldScope): Promise<void> {
    for (const statement of FOLDS[kind](scope)) await statement.execute(db);
  }
}

function isSerializationFailure(error: unknown): boolean {
  const code = (error as { code?: string; cause?: { code?: string } })?.code ?? (error as { cause?: { code?: string } })?.cause?.code;
  return code === SERIALIZATION_FAILURE;
}
