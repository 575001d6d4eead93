import { Module } from '@nestjs/common';
import { ApiKeyService } from './api-key.service.js';
import { StoreService } from './store.service.js';

@Module({
  providers: [StoreService, ApiKeyService],
  exports: [StoreService, ApiKeyService],
})
export class StoresModule {}
