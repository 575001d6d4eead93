import { MikroOrmModule } from '@mikro-orm/nestjs';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { EntityClass } from '@mikro-orm/postgresql';
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { ChangeFeed } from './change-feed.js';
import { DatabaseConnection } from './database-connection.js';
import { MigrationRunner } from './migration-runner.js';
import { ormOptions } from './orm-options.js';
import { ReportReads } from './report-reads.js';

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(database: DatabaseConnection, entities: EntityClass<unknown>[]): DynamicModule {
    const connection = { provide: DatabaseConnection, useValue: database };
    return {
      module: DatabaseModule,
      imports: [
        MikroOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => ({
            ...ormOptions(database.url, entities, config.DATABASE_POOL_SIZE, database.sessionUrl !== database.url),
            registerRequestContext: false,
          }),
          driver: PostgreSqlDriver,
        }),
      ],
      providers: [connection, MigrationRunner, ChangeFeed, ReportReads],
      exports: [connection, ChangeFeed, ReportReads],
    };
  }
}
