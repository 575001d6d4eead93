import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { AccountModule } from './account/account.module.js';
import { AuthModule } from './auth/auth.module.js';
import { ProblemFilter } from './common/errors/problem.filter.js';
import { HealthModule } from './health/health.module.js';
import { DataHubModule } from './data-hub/data-hub.module.js';
import { InsightsModule } from './insights/insights.module.js';
import type { AppConfig } from './infra/config/app-config.js';
import { DemoModule } from './demo/demo.module.js';
import { ENTITIES } from './entities.js';
import { ConfigModule } from './infra/config/config.module.js';
import type { DatabaseConnection } from './infra/database/database-connection.js';
import { DatabaseModule } from './infra/database/database.module.js';
import { JobsModule } from './infra/jobs/jobs.module.js';
import { StorageModule } from './infra/storage/storage.module.js';
import { StorefrontModule } from './storefront/storefront.module.js';
import { StoresModule } from './stores/stores.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseConnection, options: { schedulers?: boolean } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(database, ENTITIES),
        // Background work: jobs on pg-boss (sent everywhere, worked where background work is on) and in-process intervals.
        JobsModule.forRoot({ work: options.schedulers !== false }),
        StorageModule,
        ...(options.schedulers === false ? [] : [ScheduleModule.forRoot()]),
        StoresModule,
        AuthModule,
        AccountModule,
        StorefrontModule,
        InsightsModule,
        DataHubModule,
        DemoModule,
        HealthModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: ProblemFilter }],
    };
  }
}
