import { Injectable, Logger } from '@nestjs/common';
import { StoreService, type CreatedStore } from '../../stores/store.service.js';
import { CatalogueSeeder, type SeedCounts } from './catalogue-seeder.js';
import { buildDemoCatalogue } from './demo-catalogue.js';

export const DEMO_SEED = 42;

/** The demo store a newcomer gets on first start, and `demo seed` for any store. */
@Injectable()
export class DemoStoreService {
  private readonly logger = new Logger(DemoStoreService.name);

  constructor(
    private readonly stores: StoreService,
    private readonly seeder: CatalogueSeeder,
  ) {}

  seed(storeId: string, options: { seed?: number; productCount?: number } = {}): Promise<SeedCounts> {
    return this.seeder.seed(storeId, buildDemoCatalogue({ seed: options.seed ?? DEMO_SEED, productCount: options.productCount }));
  }

  /** Only when the database holds no store at all: a fresh embedded database. */
  async createIfFirstStart(): Promise<(CreatedStore & { seeded: SeedCounts }) | null> {
    if ((await this.stores.count()) > 0) return null;
    const created = await this.stores.create('Demo Store', 'pro');
    const seeded = await this.seed(created.store.id);
    this.logger.log(`demo store ${created.store.id} seeded with ${seeded.products} products`);
    return { ...created, seeded };
  }
}
