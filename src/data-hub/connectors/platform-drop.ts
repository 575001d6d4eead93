import { Inject, Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { FILE_STORAGE, type FileStorage } from '../../infra/storage/file-storage.js';
import { StorageFailure } from '../../infra/storage/storage-failure.js';
import { PlatformDropConfigDto } from './connector-config.dto.js';
import { ConnectionFailure } from './connection-failure.js';
import {
  newestFileFields,
  probeFileLocation,
  type ConnectionTarget,
  type Connector,
  type FieldsRequest,
  type FileLocation,
  type RemoteFile,
} from './connector.js';

export interface PlatformDropConfig {
  prefix: string;
}

/** The folder of a store's drop that a `platform_drop` connection names, as a file storage prefix. */
export function dropFolder(storeId: string, config: PlatformDropConfig): string {
  const prefix = config.prefix.replace(/\/+$/, '');
  return `data-hub/${storeId}/drop/${prefix ? `${prefix}/` : ''}`;
}

/**
 * The service's own drop location (contract section 9): files uploaded to the service (or written by
 * its exports) kept in the configured `FileStorage`, under the store's own folder, so that several
 * instances sharing a bucket see the same files. A full storage, a refused access or a missing bucket
 * fails as the ConnectionFailure of the same name.
 */
@Injectable()
export class PlatformDropConnector implements Connector {
  readonly kind = 'platform_drop';
  readonly configType = PlatformDropConfigDto;
  readonly credentialsType = null;

  constructor(@Inject(FILE_STORAGE) private readonly storage: FileStorage) {}

  async test(target: ConnectionTarget): Promise<object> {
    await probeFileLocation(this.open(target));
    return {};
  }

  async fields(target: ConnectionTarget, request: Required<FieldsRequest>) {
    return newestFileFields(this.open(target), request.template, request.format);
  }

  async location(target: ConnectionTarget): Promise<FileLocation> {
    return this.open(target);
  }

  open(target: ConnectionTarget): FileLocation {
    const folder = dropFolder(target.storeId, target.config as PlatformDropConfig);
    const storage = this.storage;
    return {
      async list(): Promise<RemoteFile[]> {
        return (await reasoned(storage.list(folder)))
          .map((file) => ({ name: file.key.slice(folder.length), bytes: file.bytes, modifiedAt: file.modifiedAt }))
          .filter((file) => !file.name.includes('/'));
      },
      async read(name: string): Promise<Readable> {
        const file = await reasoned(storage.open(folder + name));
        if (!file) throw new ConnectionFailure('not_found', { en: `No file ${name}.`, ar: `لا يوجد الملف ${name}.` });
        return file.content;
      },
      async write(name: string, content: Readable): Promise<void> {
        await reasoned(storage.write(folder + name, content));
      },
      async remove(name: string): Promise<void> {
        await reasoned(storage.delete(folder + name));
      },
      async close(): Promise<void> {},
    };
  }
}

/** The storage's failure that names a reason as the connection's. */
function reasoned<T>(operation: Promise<T>): Promise<T> {
  return operation.catch((error: unknown) => {
    throw error instanceof StorageFailure ? new ConnectionFailure(error.code) : error;
  });
}
