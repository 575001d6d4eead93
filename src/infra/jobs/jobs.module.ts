import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JobQueue } from './job-queue.js';

/** Durable background work: imported where the service runs its jobs (not by the command line). */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [JobQueue],
  exports: [JobQueue],
})
export class JobsModule {}
