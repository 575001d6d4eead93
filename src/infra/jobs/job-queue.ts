import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PgBoss, type Queue, type SendOptions } from 'pg-boss';
import { DatabaseConnection } from '../database/database-connection.js';
import { RECURRING_JOB, type RecurringJobMetadata } from './recurring.decorator.js';

/** pg-boss keeps its tables in a schema of its own, beside the service's. */
export const JOB_SCHEMA = 'pgboss';
/** How long a stopping instance lets running jobs finish before it lets go (they are retried elsewhere). */
const STOP_TIMEOUT_MS = 10_000;

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
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {
    this.boss = new PgBoss({
      connectionString: database.url,
      schema: JOB_SCHEMA,
      application_name: 'storefront-jobs',
      // Its own small pool beside the ORM's: polling and cron need few connections.
      max: options.work ? 4 : 2,
      supervise: options.work,
      schedule: options.work,
    });
    this.boss.on('error', (error: Error) => this.logger.error(`job queue: ${error.message}`));
  }

  /** Handles the jobs of queue `name` (created with `queue`'s policy and retries) wherever work runs. */
  define<T extends object>(name: string, queue: QueueOptions, handle: (data: T) => Promise<unknown>): void {
    this.workers.push({ name, queue, handle: handle as (data: object) => Promise<unknown> });
  }

  /** Queues a job; null when the queue's policy or `singletonKey` already holds one like it. */
  send(name: string, data: object, options: SendOptions = {}): Promise<string | null> {
    return this.boss.send(name, data, options);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.boss.start();
    const recurring = this.recurringJobs();
    for (const worker of [...this.workers, ...recurring]) await this.boss.createQueue(worker.name, worker.queue);
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
    await this.boss.work<object>(worker.name, async ([job]) => {
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
          handle: () => (instance[method] as () => Promise<unknown>).call(instance),
        });
      }
    }
    return jobs;
  }
}
