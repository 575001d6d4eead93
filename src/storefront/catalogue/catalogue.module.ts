import { Module } from '@nestjs/common';
import { StoresModule } from '../../stores/stores.module.js';
import { StorefrontEventsModule } from '../events/storefront-events.module.js';
import { CatalogueCache } from './catalogue-cache.js';
import { CatalogueController } from './catalogue.controller.js';
import { CatalogueService } from './catalogue.service.js';

/** Products, categories and brands; the page cache is shared with search, whose answers show products too. */
@Module({
  imports: [StoresModule, StorefrontEventsModule],
  controllers: [CatalogueController],
  providers: [CatalogueService, CatalogueCache],
  exports: [CatalogueCache],
})
export class CatalogueModule {}
