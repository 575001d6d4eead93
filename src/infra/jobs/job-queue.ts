import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PgBoss } from 'pg-boss';
import { DatabaseConnection } from '../database/database-connection.js';
import { RECURRING_JOB, type RecurringJobMetadata } from './recurring.decorator.js';

/** pg-boss keeps its tables in a schema of its own, beside the service's. */
export const JOB_SCHEMA = 'pgboss';
/** How long a stopping instance lets running jobs finish before it lets go (they are retried elsewhere). */
const STOP_TIMEOUT_MS = 10_000;

interface RecurringJob extends RecurringJobMetadata {
  run: () => Promise<unknown>;
}

/**
 * The service's durable background work (contract section 10) on pg-boss: jobs live in PostgreSQL,
 * survive restarts, and run once across any number of instances. It starts with the application
 * and stops with it, letting running jobs finish first.
 */
@Injectable()
export class JobQueue implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobQueue.name);
  private readonly boss: PgBoss;

  constructor(
    database: DatabaseConnection,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {
    this.boss = new PgBoss({
      connectionString: database.url,
      schema: JOB_SCHEMA,
      application_name: 'storefront-jobs',
      // Its own small pool beside the ORM's: polling and cron need few connections.
      max: 4,
    });
    this.boss.on('error', (error: Error) => this.logger.error(`job queue: ${error.message}`));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.boss.start();
    const recurring = this.recurringJobs();
    for (const job of recurring) await this.startRecurring(job);
    // A schedule whose job left the code would keep adding jobs no one works.
    const names = new Set(recurring.map((job) => job.name));
    for (const schedule of await this.boss.getSchedules()) {
      if (!names.has(schedule.name)) await this.boss.unschedule(schedule.name, schedule.key);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: STOP_TIMEOUT_MS });
  }

  private async startRecurring(job: RecurringJob): Promise<void> {
    // `stately`: at most one queued and one running, so a slow run is never doubled; no retry, the next due time is one.
    await this.boss.createQueue(job.name, { policy: 'stately', retryLimit: 0 });
    await this.boss.schedule(job.name, job.cron, null, { tz: 'UTC' });
    await this.boss.work(job.name, async () => {
      try {
        await job.run();
      } catch (error) {
        this.logger.error(`${job.name} failed: ${(error as Error).message}`);
        throw error;
      }
    });
  }

  private recurringJobs(): RecurringJob[] {
    const jobs: RecurringJob[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const metadata = this.reflector.get<RecurringJobMetadata | undefined>(RECURRING_JOB, (instance[method] as () => unknown) ?? {});
        if (metadata) jobs.push({ ...metadata, run: () => (instance[method] as () => Promise<unknown>).call(instance) });
      }
    }
    return jobs;
  }
}
