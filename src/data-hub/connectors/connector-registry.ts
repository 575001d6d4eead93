import { Injectable } from '@nestjs/common';
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
    this.byKind = { sftp, object_storage: objectStorage, database_read: databaseRead, platform_drop: platformDrop };
  }

  of(kind: ConnectionKind): Connector {
    return this.byKind[kind];
  }
}
