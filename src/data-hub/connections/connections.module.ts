import { Module } from '@nestjs/common';
import { AppConfig } from '../../infra/config/app-config.js';
import { deriveKey } from '../../infra/crypto/derived-keys.js';
import { loadMasterKey } from '../../infra/crypto/master-key.js';
import { SecretBox } from '../../infra/crypto/secrets.js';
import { EgressPolicy } from '../../infra/egress/egress-policy.js';
import { ConnectorRegistry } from '../connectors/connector-registry.js';
import { DatabaseReadConnector } from '../connectors/database-read.js';
import { ObjectStorageConnector } from '../connectors/object-storage.js';
import { PlatformDropConnector } from '../connectors/platform-drop.js';
import { SftpConnector } from '../connectors/sftp.js';
import { CONNECTION_SECRETS, ConnectionsService } from './connections.service.js';

/**
 * Connections and their connectors, reached only where DATAHUB_ALLOWED_HOSTS allows, credentials sealed
 * under their own key: what the data hub's routes and the operator's command line share.
 */
@Module({
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
  ],
  exports: [ConnectionsService, ConnectorRegistry, PlatformDropConnector],
})
export class ConnectionsModule {}
