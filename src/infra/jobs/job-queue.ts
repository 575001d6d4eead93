import type { EntityManager } from '@mikro-orm/postgresql';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { Kysely } from 'kysely';
import { fromKysely, PgBoss, type Queue, type SendOptions } from 'pg-boss';
import { AppConfig } from '../config/app-config.js';
import { DatabaseConnection } from '../database/database-connection.js';
import { observeJobQueues } from '../telemetry/metrics.js';
import { RECURRING_JOB, type RecurringJobMetadata } from './recurring.decorator.js';
import { TrackedJob, type TrackedJobDefinition } from './tracked-job.js';

/** pg-boss keeps its tables in a schema of its own, beside the service's. */
export const JOB_SCHEMA = 'pgboss';
/** How long a stopping instance lets running jobs finish before it lets go (they are retried elsewhere). */
const STOP_TIMEOUT_MS = 10_000;
/**
 * How often an instance looks for jobs whose worker stopped sending heartbeats (a killed process):
 * with a queue's 10 s heartbeat, such a job is taken up again within about 15 s.
 */
const SUPERVISE_INTERVAL_SECONDS = 5;
/** How often an idle worker looks for jobs due (a retry after its wait, a job sent while NOTIFY was down). */
const POLL_SECONDS = 2;
/** How often a tracked job's worker says it is alive: one silent for longer is taken for dead and its job offered again. */
const TRACKED_HEARTBEAT_SECONDS = 10;

export const JOB_QUEUE_OPTIONS = Symbol('JobQueueOptions');
export interface JobQueueOptions {
  /** Work jobs and run schedules here; off, the instance only sends jobs (tests that leave background work off). */
  work: boolean;
}

export type QueueOptions = Omit<Queue, 'name'>;

interface Worker {
  name: string;
  queue: QueueOptions;
  handle: (data: object) => Promise<unknown>;
  /** Jobs of the queue this instance works at once. */
  concurrency: number;
}

/**
 * The service's durable background work (contract section 10) on pg-boss: jobs live in PostgreSQL,
 * survive restarts, and run once across any number of instances. It starts with the application
 * and stops with it, letting running jobs finish first. Domains `define` the jobs they handle (in
 * `onModuleInit`) and `send` them; periodic ones are methods marked `@Recurring`.
 */
@Injectable()
export class JobQueue implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobQueue.name);
  private readonly boss: PgBoss;
  private readonly workers: Worker[] = [];

  constructor(
    database: DatabaseConnection,
    @Inject(JOB_QUEUE_OPTIONS) private readonly options: JobQueueOptions,
    private readonly config: AppConfig,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {
    this.boss = new PgBoss({
      // LISTEN and its polling need a session: never a pooler's transaction-mode connection.
      connectionString: database.sessionUrl,
      schema: JOB_SCHEMA,
      application_name: 'storefront-jobs',
      // Its own small pool beside the ORM's: polling and cron need few connections.
      max: options.work ? 4 : 2,
      supervise: options.work,
      superviseIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
      // Heartbeats are checked by the queue monitor, which otherwise runs once a minute.
      monitorIntervalSeconds: SUPERVISE_INTERVAL_SECONDS,
      schedule: options.work,
      // Workers of queues created with `notify` start a new job at once rather than at their next poll.
      useListenNotify: options.work,
    });
    this.boss.on('error', (error: Error) => this.logger.error(`job queue: ${error.message}`));
    observeJobQueues(() => this.boss.getQueues());
  }

  /**
   * Handles the jobs of queue `name` (created with `queue`'s policy and retries, and woken at once when
   * one is sent) wherever work runs, `concurrency` at a time per instance.
   */
  define<T extends object>(name: string, queue: QueueOptions, handle: (data: T) => Promise<unknown>, concurrency = 1): void {
    this.workers.push({ name, queue: { notify: true, ...queue }, handle: handle as (data: object) => Promise<unknown>, concurrency });
  }

  /**
   * A queue of jobs with the one lifecycle of `TrackedJob` (claimed, retried with a growing wait, given up
   * after its last attempt), whose job data is its record's id.
   */
  track(definition: TrackedJobDefinition): TrackedJob {
    const job = new TrackedJob(
      definition,
      (id, { startAfter, within }) =>
        this.send(definition.name, { id }, startAfter ? { startAfter } : { singletonKey: id }, within as EntityManager | undefined),
      new Logger(definition.name),
    );
    this.define<{ id: string }>(
      definition.name,
      {
        // The attempts are counted on the job's record; the queue only has to offer one more than that.
        retryLimit: definition.maxAttempts,
        retryDelay: this.config.JOB_RETRY_DELAY_SECONDS,
        retryBackoff: true,
        heartbeatSeconds: TRACKED_HEARTBEAT_SECONDS,
        expireInSeconds: definition.expireInSeconds,
      },
      ({ id }) => job.run(id),
      definition.concurrency,
    );
    return job;
  }

  /**
   * Queues a job; null when the queue's policy or `singletonKey` already holds one like it. Given the
   * entity manager of a transaction, the job is part of it: it exists if and only if the transaction commits.
   */
  send(name: string, data: object, options: SendOptions = {}, within?: EntityManager): Promise<string | null> {
    return this.boss.send(name, data, within ? { ...options, db: fromKysely(within.getKysely() as Kysely<unknown>) } : options);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.boss.start();
    const recurring = this.recurringJobs();
    for (const worker of [...this.workers, ...recurring]) {
      await this.boss.createQueue(worker.name, worker.queue);
      // A queue keeps the options it was created with: bring its retries and expiry to what the code and configuration say now.
      const { policy: _policy, heartbeatSeconds: _heartbeat, retryDelayMax: _delayMax, ...current } = worker.queue;
      await this.boss.updateQueue(worker.name, current);
    }
    if (!this.options.work) return;
    for (const worker of [...this.workers, ...recurring]) await this.work(worker);
    for (const job of recurring) await this.boss.schedule(job.name, job.cron, null, { tz: 'UTC' });
    // A schedule whose job left the code would keep adding jobs no one works.
    const names = new Set(recurring.map((job) => job.name));
    for (const schedule of await this.boss.getSchedules()) {
      if (!names.has(schedule.name)) await this.boss.unschedule(schedule.name, schedule.key);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: STOP_TIMEOUT_MS });
  }

  private async work(worker: Worker): Promise<void> {
    // NOTIFY wakes a worker for a new job, not for a retry coming due: that one waits for the poll, so keep the poll short.
    const polling = { pollingIntervalSeconds: POLL_SECONDS, notifyPollingIntervalSeconds: POLL_SECONDS };
    await this.boss.work<object>(worker.name, { localConcurrency: worker.concurrency, ...polling }, async ([job]) => {
      try {
        await worker.handle(job.data ?? {});
      } catch (error) {
        this.logger.error(`${worker.name} failed: ${(error as Error).message}`);
        throw error;
      }
    });
  }

  private recurringJobs(): (Worker & { cron: string })[] {
    const jobs: (Worker & { cron: string })[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const metadata = this.reflector.get<RecurringJobMetadata | undefined>(RECURRING_JOB, (instance[method] as () => unknown) ?? {});
        if (!metadata) continue;
        jobs.push({
          ...metadata,
          // `stately`: at most one queued and one running, so a slow run is never doubled; no retry, the next due time is one.
          queue: { policy: 'stately', retryLimit: 0 },
          concurrency: 1,
          handle: () => (instance[method] as () => Promise<unknown>).call(instance),
        });
      }
    }
    return jobs;
  }
}
