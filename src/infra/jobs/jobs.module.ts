import { type DynamicModule, Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JOB_QUEUE_OPTIONS, JobQueue, type JobQueueOptions } from './job-queue.js';

/** Durable background work: every instance sends jobs; those with background work on also run them. */
@Global()
@Module({})
export class JobsModule {
  static forRoot(options: JobQueueOptions): DynamicModule {
    return {
      module: JobsModule,
      imports: [DiscoveryModule],
      providers: [{ provide: JOB_QUEUE_OPTIONS, useValue: options }, JobQueue],
      exports: [JobQueue],
    };
  }
}
