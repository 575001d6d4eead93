import { Module } from '@nestjs/common';
import { DashboardModule } from '../auth/dashboard/dashboard.module.js';
import { AppConfig } from '../infra/config/app-config.js';
import { deriveKey } from '../infra/crypto/derived-keys.js';
import { loadMasterKey } from '../infra/crypto/master-key.js';
import { SecretBox } from '../infra/crypto/secrets.js';
import { EgressPolicy } from '../infra/egress/egress-policy.js';
import { DataHubCatalogueController } from './catalogue.controller.js';
import { FlowsController } from './flows/flows.controller.js';
import { FlowsService } from './flows/flows.service.js';
import { MappingsController } from './mappings/mappings.controller.js';
import { MappingsService } from './mappings/mappings.service.js';
import { ConnectionsController } from './connections/connections.controller.js';
import { CONNECTION_SECRETS, ConnectionsService } from './connections/connections.service.js';
import { DropFilesService } from './connections/drop-files.service.js';
import { ConnectorRegistry } from './connectors/connector-registry.js';
import { DatabaseReadConnector } from './connectors/database-read.js';
import { ObjectStorageConnector } from './connectors/object-storage.js';
import { PlatformDropConnector } from './connectors/platform-drop.js';
import { SftpConnector } from './connectors/sftp.js';

/**
 * The data hub (contract section 9): connections to the places a store's data comes from and goes
 * to, each kind a connector behind one interface, reached only where DATAHUB_ALLOWED_HOSTS allows; the
 * structures and transforms mappings are built from; versioned mappings; flows.
 */
@Module({
  imports: [DashboardModule],
  controllers: [DataHubCatalogueController, ConnectionsController, MappingsController, FlowsController],
  providers: [
    { provide: EgressPolicy, inject: [AppConfig], useFactory: (config: AppConfig) => EgressPolicy.of(config.DATAHUB_ALLOWED_HOSTS) },
    {
      provide: CONNECTION_SECRETS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new SecretBox(deriveKey(loadMasterKey(config), 'data-hub-credentials')),
    },
    SftpConnector,
    ObjectStorageConnector,
    DatabaseReadConnector,
    PlatformDropConnector,
    ConnectorRegistry,
    ConnectionsService,
    DropFilesService,
    MappingsService,
    FlowsService,
  ],
  exports: [ConnectionsService],
})
export class DataHubModule {}
