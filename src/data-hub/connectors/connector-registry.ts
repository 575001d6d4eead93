import { Injectable } from '@nestjs/common';
import { tracedCalls } from '../../infra/telemetry/tracing.js';
import type { ConnectionKind } from '../entities/connection.entity.js';
import type { Connector } from './connector.js';
import { DatabaseReadConnector } from './database-read.js';
import { ObjectStorageConnector } from './object-storage.js';
import { PlatformDropConnector } from './platform-drop.js';
import { SftpConnector } from './sftp.js';

/** The connector of each connection kind. */
@Injectable()
export class ConnectorRegistry {
  private readonly byKind: Record<ConnectionKind, Connector>;

  constructor(
    sftp: SftpConnector,
    objectStorage: ObjectStorageConnector,
    databaseRead: DatabaseReadConnector,
    platformDrop: PlatformDropConnector,
  ) {
    const kinds = { sftp, object_storage: objectStorage, database_read: databaseRead, platform_drop: platformDrop };
    // A span for each test, field discovery and opening of a connection (SFTP's transfers have their own, S3's are the AWS SDK's).
    this.byKind = Object.fromEntries(
      Object.entries(kinds).map(([kind, connector]) => [kind, tracedCalls(connector, `data_hub.${kind}`)]),
    ) as typeof kinds;
  }

  of(kind: ConnectionKind): Connector {
    return this.byKind[kind];
  }
}
