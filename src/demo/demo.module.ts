import { Module } from '@nestjs/common';
import { DashboardModule } from '../auth/dashboard/dashboard.module.js';
import { CatalogueWriterModule } from '../storefront/catalogue/catalogue-writer.module.js';
import { RollupsModule } from '../insights/rollups/rollups.module.js';
import { StoresModule } from '../stores/stores.module.js';
import { DemoStoreService } from './demo-store.service.js';

/**
 * Demo data: a bilingual catalogue and 18 months of activity, written through the domains' own
 * writers. It sits above the domains it fills; none of them imports it.
 */
@Module({
  imports: [StoresModule, CatalogueWriterModule, RollupsModule, DashboardModule],
  providers: [DemoStoreService],
  exports: [DemoStoreService],
})
export class DemoModule {}
