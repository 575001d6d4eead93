import { Module } from '@nestjs/common';
import { StoresModule } from '../stores/stores.module.js';
import { CatalogueCache } from './catalogue/catalogue-cache.js';
import { CatalogueSeeder } from './catalogue/catalogue-seeder.js';
import { CatalogueController } from './catalogue/catalogue.controller.js';
import { CatalogueService } from './catalogue/catalogue.service.js';
import { DemoStoreService } from './catalogue/demo-store.service.js';

@Module({
  imports: [StoresModule],
  controllers: [CatalogueController],
  providers: [CatalogueService, CatalogueCache, CatalogueSeeder, DemoStoreService],
  exports: [DemoStoreService],
})
export class StorefrontModule {}
