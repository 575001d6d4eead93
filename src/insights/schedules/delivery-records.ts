import { sql, type Kysely } from 'kysely';
import { isCurrent, requireCurrent, type JobAttempt, type JobFailure } from '../../infra/jobs/tracked-job.js';

/**
 * The one writer of `insights_deliveries`: a schedule's delivery filed for a due time, and its job's
 * record (the attempts of `TrackedJob`, every write after the claim fenced by the attempt).
 */
export const DeliveryRecords = {
  /** A delivery of the schedule for `dueAt` (its due time, or now when a member asks); none when that due time has one already. */
  async file(
    db: Kysely<unknown>,
    delivery: { storeId: string; scheduleId: string; dueAt: Date | 'now'; trigger: 'schedule' | 'manual' },
  ): Promise<string | null> {
    const dueAt = delivery.dueAt === 'now' ? sql`now()` : sql`${delivery.dueAt}`;
    const { rows } = await sql<{ id: string }>`
      insert into insights_deliveries (store_id, schedule_id, due_at, trigger)
      values (${delivery.storeId}, ${delivery.scheduleId}, ${dueAt}, ${delivery.trigger})
      on conflict (schedule_id, due_at) do nothing returning id`.execute(db);
    return rows[0]?.id ?? null;
  },

  /** The next attempt of a queued or interrupted delivery; null once it has its outcome. */
  async claim(db: Kysely<unknown>, id: string): Promise<{ attempt: JobAttempt; lastFailure: JobFailure | null } | null> {
    const { rows } = await sql<{ attempts: number; error: JobFailure | null }>`
      update insights_deliveries set status = 'running', attempts = attempts + 1, started_at = coalesce(started_at, now())
      where id = ${id} and status in ('queued', 'running') returning attempts, error`.execute(db);
    return rows[0] ? { attempt: { jobId: id, number: rows[0].attempts }, lastFailure: rows[0].error } : null;
  },

  /** Where the file went: a recipient mailed (an attempt after a failed one mails only those not mailed yet), or the connection's path. */
  async sentTo(db: Kysely<unknown>, attempt: JobAttempt, sent: { mailed: string } | { written: string }): Promise<void> {
    const set = 'mailed' in sent ? sql`sent_to = array_append(sent_to, ${sent.mailed})` : sql`sent_to = ${[sent.written]}::text[]`;
    requireCurrent(attempt, (await sql`update insights_deliveries set ${set} where ${isCurrent(attempt)}`.execute(db)).numAffectedRows);
  },

  /** Delivered with a file of `rows` and `bytes`; or skipped, the report empty and the schedule skipping empty ones. */
  async finished(db: Kysely<unknown>, attempt: JobAttempt, outcome: { rows: number; bytes: number } | 'skipped'): Promise<void> {
    const set =
      outcome === 'skipped'
        ? sql`status = 'skipped', rows = 0`
        : sql`status = 'delivered', rows = ${outcome.rows}, bytes = ${outcome.bytes}`;
    const { numAffectedRows } = await sql`
      update insights_deliveries set ${set}, error = null, finished_at = now() where ${isCurrent(attempt)}`.execute(db);
    requireCurrent(attempt, numAffectedRows);
  },

  async fail(db: Kysely<unknown>, attempt: JobAttempt, failure: JobFailure): Promise<void> {
    const { numAffectedRows } = await sql`
      update insights_deliveries set status = 'failed', error = ${JSON.stringify(failure)}::jsonb, finished_at = now()
      where ${isCurrent(attempt)}`.execute(db);
    requireCurrent(attempt, numAffectedRows);
  },

  async retryLater(db: Kysely<unknown>, attempt: JobAttempt, failure: JobFailure): Promise<void> {
    const { numAffectedRows } = await sql`
      update insights_deliveries set status = 'queued', error = ${JSON.stringify(failure)}::jsonb where ${isCurrent(attempt)}`.execute(db);
    requireCurrent(attempt, numAffectedRows);
  },
};
