import { SetMetadata } from '@nestjs/common';

export const RECURRING_JOB = Symbol('RecurringJob');

export interface RecurringJobMetadata {
  /** The job's queue, `domain.what` (e.g. `payments.capture-retry`). */
  name: string;
  /** Five-field cron, in UTC. */
  cron: string;
}

/**
 * Runs the method on `cron` as a durable job: once per due time across every instance of the service,
 * never two at once (a run still going when the next is due is not doubled). A failed run is logged
 * and left to the next due time. Inert where the job queue does not run (the command line, tests that
 * leave background work off).
 */
export function Recurring(name: string, cron: string) {
  return SetMetadata(RECURRING_JOB, { name, cron } satisfies RecurringJobMetadata);
}
