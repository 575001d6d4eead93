import { Global, Module } from '@nestjs/common';
import { join } from 'node:path';
import { AppConfig } from '../config/app-config.js';
import { FILE_STORAGE, type FileStorage } from './file-storage.js';
import { LocalDiskFileStorage } from './local-disk.file-storage.js';

/** The configured `FileStorage`: the local disk under DATA_DIR/files by default. */
@Global()
@Module({
  providers: [
    {
      provide: FILE_STORAGE,
      inject: [AppConfig],
      useFactory: (config: AppConfig): FileStorage => new LocalDiskFileStorage(join(config.dataDir, 'files')),
    },
  ],
  exports: [FILE_STORAGE],
})
export class StorageModule {}
