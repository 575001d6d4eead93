import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { CatalogueModule } from '../catalogue/catalogue.module.js';
import { SearchContextService } from './search-context.service.js';
import { SearchController } from './search.controller.js';
import { SearchRecorder } from './search-recorder.js';
import { SearchService } from './search.service.js';
import { StoresModule } from '../../stores/stores.module.js';

/** Product search with facets, suggestions and search context; every search is recorded. */
@Module({
  imports: [StoresModule, AuthModule, CatalogueModule],
  controllers: [SearchController],
  providers: [SearchService, SearchContextService, SearchRecorder],
})
export class SearchModule {}
