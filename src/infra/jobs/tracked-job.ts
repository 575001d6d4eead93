import type { Logger } from '@nestjs/common';
import { sql } from 'kysely';

/**
 * The one lifecycle of every background job a member follows (an export, a scheduled delivery, a data
 * hub run), as Vendure's `Job` is for every queue: queued, claimed (an attempt counted), running, then
 * succeeded, failed for good with a reason, or failed for now and tried again after a growing wait
 * (the queue's retry backoff), until given up after its last attempt.
 *
 * The job's record (its row, with `status`, `attempts` and `error`) is written only by the module that
 * owns its table, through `JobRecord`. Every write after the claim names the attempt, so an attempt
 * that is no longer current (its worker was taken for dead and the job given to another) writes
 * nothing: the owner's write finds no row and throws `StaleAttempt`, and the attempt ends there.
 */

/** Why an attempt failed, as the merchant reads it, in both languages. */
export interface JobFailure {
  code: string;
  message_en: string;
  message_ar: string;
}

/** An attempt at a job: the job's record and the number of the attempt. */
export interface JobAttempt {
  jobId: string;
  number: number;
}

/** Thrown where a write of an attempt finds that a later one has started: its work is dropped. */
export class StaleAttempt extends Error {
  constructor(readonly attempt: JobAttempt) {
    super(`job ${attempt.jobId}: attempt ${attempt.number} is no longer the current one`);
  }
}

/** The condition of a write fenced by `attempt`, over a job's record with `id` and `attempts` columns. */
export function isCurrent(attempt: JobAttempt) {
  return sql`id = ${attempt.jobId} and attempts = ${attempt.number}`;
}

/** Fails with StaleAttempt when a write fenced by `attempt` touched no row: a later attempt has started. */
export function requireCurrent(attempt: JobAttempt, rowCount: number | bigint | null | undefined): void {
  if (!rowCount) throw new StaleAttempt(attempt);
}

/** A failure that trying again cannot mend (a file too large to mail): recorded at once, not retried. */
export class PermanentFailure extends Error {
  constructor(readonly failure: JobFailure) {
    super(failure.message_en);
  }
}

/** What an attempt's error means for the job: the reason recorded, and whether another attempt could help. */
export interface AttemptFailure {
  permanent: boolean;
  error: JobFailure;
}

export const INTERRUPTED: JobFailure = {
  code: 'interrupted',
  message_en: 'It could not be finished: the service restarted, or its database or file storage did not answer.',
  message_ar: 'تعذّر إكماله: أُعيد تشغيل الخدمة، أو لم تستجب قاعدة بياناتها أو مخزن ملفاتها.',
};

/** The outcome of a job given up after its last attempt failed for `last`. */
export function gaveUp(attempts: number, last: JobFailure = INTERRUPTED): JobFailure {
  return {
    code: 'failed_after_retries',
    message_en: `Given up after ${attempts} attempts. The last one: ${last.message_en}`,
    message_ar: `توقفت المحاولات بعد ${attempts} محاولات. آخرها: ${last.message_ar}`,
  };
}

/** How a kind of job's record is kept, by the module that owns its table. Writes after `claim` are fenced by the attempt. */
export interface JobRecord {
  /** Counts the next attempt of a queued or interrupted job, with the failure of the one before; null once the job has its outcome. */
  claim(jobId: string): Promise<{ attempt: JobAttempt; lastFailure: JobFailure | null } | null>;
  /** Failed for good (and whatever the owner does then: tell someone). */
  fail(attempt: JobAttempt, failure: JobFailure): Promise<void>;
  /** Failed for now: back in the queue, the failure shown until the next attempt. */
  retryLater(attempt: JobAttempt, failure: JobFailure): Promise<void>;
}

export interface TrackedJobDefinition {
  /** The queue, `domain.what`. */
  name: string;
  /** Attempts before the job is given up. */
  maxAttempts: number;
  /** How long one attempt may take before the queue takes it for lost and offers it again. */
  expireInSeconds: number;
  /** Attempts of this queue one instance works at once. */
  concurrency?: number;
  record: JobRecord;
  /** The work of one attempt, recording its success through the owner's record (fenced by the attempt). */
  perform(attempt: JobAttempt): Promise<void>;
  /** Why an attempt failed and whether trying again could help. */
  failureOf(error: unknown): AttemptFailure;
}

/** Sends a job of a tracked queue: its record's id (within the transaction of `within`, when given). */
export type SendTracked = (jobId: string, options: { startAfter?: number; within?: unknown }) => Promise<string | null>;

/** A queue of jobs with the one lifecycle; made by `JobQueue.track`. */
export class TrackedJob {
  constructor(
    readonly definition: TrackedJobDefinition,
    private readonly sender: SendTracked,
    private readonly logger: Logger,
  ) {}

  /** Queues the job whose record is `jobId` (once: a second send while it is queued is ignored). */
  send(jobId: string, options: { startAfter?: number; within?: unknown } = {}): Promise<string | null> {
    return this.sender(jobId, options);
  }

  /** One attempt, as the queue runs it: claimed, given up when its attempts are spent, else performed and settled. */
  async run(jobId: string): Promise<void> {
    const { record, maxAttempts } = this.definition;
    const claimed = await record.claim(jobId);
    if (!claimed) return; // finished already: a retry of a job whose outcome is recorded
    const { attempt, lastFailure } = claimed;
    if (attempt.number > maxAttempts) {
      // The last attempt's worker died before it could settle it.
      await this.dropIfStale(attempt, () => record.fail(attempt, gaveUp(maxAttempts, lastFailure ?? undefined)));
      return;
    }
    await this.attempt(attempt, { retry: true });
  }

  /**
   * Performs a claimed attempt and settles it: a failure that another attempt could mend is put back in
   * the queue (and rethrown, for the queue's backoff) unless it was the last or `retry` is off (an attempt
   * run while the member waits, as a preview); otherwise the job fails with the reason.
   */
  async attempt(attempt: JobAttempt, { retry }: { retry: boolean }): Promise<void> {
    try {
      await this.definition.perform(attempt);
    } catch (error) {
      if (error instanceof StaleAttempt) return this.dropped(attempt);
      if (await this.dropIfStale(attempt, () => this.settle(attempt, error, retry))) throw error;
    }
  }

  /** Records a failed attempt's outcome; true when it is to be tried again. */
  private async settle(attempt: JobAttempt, error: unknown, retry: boolean): Promise<boolean> {
    const { record, maxAttempts, failureOf } = this.definition;
    const failure = failureOf(error);
    if (failure.permanent || !retry) await record.fail(attempt, failure.error);
    else if (attempt.number >= maxAttempts) await record.fail(attempt, gaveUp(attempt.number, failure.error));
    else {
      this.logger.warn(
        `${this.definition.name} ${attempt.jobId}: attempt ${attempt.number} failed, to be tried again: ${(error as Error).message}`,
      );
      await record.retryLater(attempt, failure.error);
      return true;
    }
    return false;
  }

  /** `work`'s answer, or false when it found that a later attempt replaced this one. */
  private async dropIfStale<T>(attempt: JobAttempt, work: () => Promise<T>): Promise<T | false> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof StaleAttempt)) throw error;
      this.dropped(attempt);
      return false;
    }
  }

  private dropped(attempt: JobAttempt): void {
    this.logger.warn(
      `${this.definition.name} ${attempt.jobId}: attempt ${attempt.number} was replaced by a later one; its work is dropped`,
    );
  }
}
