import { Global, Module } from '@nestjs/common';
import { join } from 'node:path';
import { AppConfig } from '../config/app-config.js';
import { FILE_STORAGE, type FileStorage } from './file-storage.js';
import { parseFileStorageUrl } from './file-storage-url.js';
import { LocalDiskFileStorage } from './local-disk.file-storage.js';
import { S3FileStorage } from './s3.file-storage.js';
import { ClassifiedFileStorage } from './storage-failure.js';

/** The storage FILE_STORAGE_URL names: an S3 bucket, or when unset the local disk under DATA_DIR/files. */
export function fileStorageFor(config: AppConfig): FileStorage {
  if (!config.FILE_STORAGE_URL) return new LocalDiskFileStorage(join(config.dataDir, 'files'));
  const parsed = parseFileStorageUrl(config.FILE_STORAGE_URL);
  if ('error' in parsed) throw new Error(`FILE_STORAGE_URL ${parsed.error}`); // validated at start-up already
  return S3FileStorage.at(parsed.location);
}

/** The service's storage: a full disk, a refused access or a missing bucket fails as a StorageFailure naming it. */
@Global()
@Module({
  providers: [
    { provide: FILE_STORAGE, inject: [AppConfig], useFactory: (config: AppConfig) => new ClassifiedFileStorage(fileStorageFor(config)) },
  ],
  exports: [FILE_STORAGE],
})
export class StorageModule {}
