import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { RollupMaintainer } from '../insights/rollups/rollup-maintainer.js';
import { StaffMembers } from '../auth/staff/staff-members.service.js';
import { StoreService, type CreatedStore } from '../stores/store.service.js';
import {
  assertSessionsPerOrder,
  DemoActivitySeeder,
  DEFAULT_DEMO_ORDERS,
  MAX_DEMO_ORDERS,
  type ActivityCounts,
  NO_ACTIVITY,
} from './activity-seeder.js';
import { startOfUtcDay } from './calendar.js';
import { CatalogueNotEmptyError, CatalogueWriter, type CatalogueCounts } from '../storefront/catalogue/catalogue-writer.js';
import { buildDemoCatalogue } from './demo-catalogue.js';

export const DEMO_SEED = 42;

export type DemoSeedCounts = CatalogueCounts & ActivityCounts;

export interface DemoSeedOptions {
  seed?: number;
  productCount?: number;
  /** Orders over the past 18 months, with their shoppers, sessions and searches; 0 (the default here) seeds the catalogue only. */
  orders?: number;
  /** Sessions for each order (default DEFAULT_SESSIONS_PER_ORDER, about 3 % conversion): fewer for huge seeds. */
  sessionsPerOrder?: number;
  /** The end of the order history; by default the start of the current UTC day, so a seed gives the same data all day. */
  anchor?: Date;
  onProgress?: (ordersWritten: number, ordersTotal: number) => void;
}

/** The demo store's owner, who signs in to its dashboard. */
export const DEMO_OWNER = { email: 'owner@demo.store', name: 'Demo Owner' } as const;

export interface DemoStore extends CreatedStore {
  seeded: DemoSeedCounts;
  /** Shown once, in the start banner: only its argon2id hash is kept. */
  owner: { id: string; email: string; password: string };
}

/** The demo store a newcomer gets on first start, and `demo seed` for any store. */
@Injectable()
export class DemoStoreService {
  private readonly logger = new Logger(DemoStoreService.name);
  private readonly activity: DemoActivitySeeder;

  constructor(
    private readonly stores: StoreService,
    private readonly catalogueWriter: CatalogueWriter,
    private readonly em: EntityManager,
    private readonly rollups: RollupMaintainer,
    private readonly staff: StaffMembers,
  ) {
    this.activity = new DemoActivitySeeder(em);
  }

  /**
   * Catalogue first, then the activity. Only into an empty store: one with a catalogue is refused
   * (CatalogueNotEmptyError), then one with shoppers, orders or searches (StoreHasActivityError), both
   * before anything is written.
   */
  async seed(storeId: string, options: DemoSeedOptions = {}): Promise<DemoSeedCounts> {
    const seed = options.seed ?? DEMO_SEED;
    const orders = options.orders ?? 0;
    if (!Number.isSafeInteger(orders) || orders < 0 || orders > MAX_DEMO_ORDERS) {
      throw new RangeError(`orders must be a whole number from 0 to ${MAX_DEMO_ORDERS}, got ${orders}`);
    }
    if (options.sessionsPerOrder !== undefined) assertSessionsPerOrder(options.sessionsPerOrder);
    if (orders > 0) {
      const { rows } = await sql<{ found: boolean }>`
        select exists (select 1 from products where store_id = ${storeId}) as found`.execute(this.em.getKysely());
      if (rows[0].found) throw new CatalogueNotEmptyError(storeId);
      await this.activity.assertNoActivity(storeId);
    }
    const catalogue = await this.catalogueWriter.writeInto(storeId, buildDemoCatalogue({ seed, productCount: options.productCount }));
    if (orders === 0) return { ...catalogue, ...NO_ACTIVITY };
    const activity = await this.activity.seed(storeId, {
      seed,
      orders,
      sessionsPerOrder: options.sessionsPerOrder,
      anchor: options.anchor ?? startOfUtcDay(new Date()),
      onProgress: options.onProgress,
    });
    // History written in bulk skips change capture: the store's Insights rollups are built from it at once.
    await this.rollups.rebuild(storeId);
    return { ...catalogue, ...activity };
  }

  /** Only when the database holds no store at all: a fresh embedded database. */
  async createIfFirstStart(): Promise<DemoStore | null> {
    if ((await this.stores.count()) > 0) return null;
    const created = await this.stores.create('Demo Store', 'pro');
    const { staff, password } = await this.staff.add(created.store.id, { ...DEMO_OWNER, role: 'owner' });
    const seeded = await this.seed(created.store.id, { orders: DEFAULT_DEMO_ORDERS });
    this.logger.log(`demo store ${created.store.id} seeded with ${seeded.products} products and ${seeded.orders} orders`);
    return { ...created, seeded, owner: { id: staff.id, email: staff.email, password } };
  }
}
