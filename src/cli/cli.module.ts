import { type DynamicModule, Module } from '@nestjs/common';
import { DashboardModule } from '../auth/dashboard/dashboard.module.js';
import { SigningModule } from '../auth/signing/signing.module.js';
import type { AppConfig } from '../infra/config/app-config.js';
import { ConfigModule } from '../infra/config/config.module.js';
import type { DatabaseConnection } from '../infra/database/database-connection.js';
import { DatabaseModule } from '../infra/database/database.module.js';
import { ConnectionsModule } from '../data-hub/connections/connections.module.js';
import { StorageModule } from '../infra/storage/storage.module.js';
import { DemoModule } from '../demo/demo.module.js';
import { ENTITIES } from '../entities.js';
import { StoresModule } from '../stores/stores.module.js';

/**
 * What the operator's command line needs: no HTTP, no schedulers, no rate limiter. It imports the
 * writer modules (DemoModule and what it imports), never StorefrontModule, whose controllers would
 * load the HTTP and OpenAPI machinery for nothing.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig, database: DatabaseConnection): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(database, ENTITIES),
        StoresModule,
        SigningModule,
        DashboardModule,
        DemoModule,
        StorageModule,
        ConnectionsModule,
      ],
    };
  }
}
