import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Kysely } from 'kysely';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ActivityBatch } from './activity-batch.js';
import { generateActivity } from './activity-generator.js';
import type { StoreContext, StoreProduct } from './store-context.js';
import { DAY, SECOND, windowStartOf } from './calendar.js';
import { randomStream } from './random.js';
import { buildQueryPool, type CatalogueWords } from './search-queries.js';
import { shopperInserts } from '../account/shopper-writer.js';
import { historySessionInserts } from '../auth/session-writer.js';
import { eventInserts } from '../storefront/events/storefront-event-recorder.js';
import { backdateProducts } from '../storefront/catalogue/catalogue-writer.js';
import { assertLinesWritten, orderInserts, refundInserts, type OrderBatch } from '../storefront/orders/order-writer.js';
import { paymentInserts } from '../storefront/payments/payments.service.js';
import { searchInserts } from '../storefront/search/search-recorder.js';
import { correctQueries, FEW_RESULTS } from '../storefront/search/spelling.js';
import { DEFAULT_SESSIONS_PER_ORDER, MAX_SESSIONS_PER_ORDER } from './sessions.js';

export const DEFAULT_DEMO_ORDERS = 2000;
export const MAX_DEMO_ORDERS = 5_000_000;
const BATCH_ORDERS = 5000;
/** Share of the catalogue already on sale when the demo history starts; the rest launches during it. */
const LAUNCHED_BEFORE_WINDOW = 0.55;

export interface ActivityCounts {
  shoppers: number;
  addresses: number;
  orders: number;
  orderLines: number;
  payments: number;
  searches: number;
  /** Sessions of the funnel (each has a session_started event); those that searched or ordered are also session rows. */
  sessions: number;
  storefrontEvents: number;
}

export const NO_ACTIVITY: Readonly<ActivityCounts> = {
  shoppers: 0,
  addresses: 0,
  orders: 0,
  orderLines: 0,
  payments: 0,
  searches: 0,
  sessions: 0,
  storefrontEvents: 0,
};

export interface ActivityOptions {
  seed: number;
  orders: number;
  /** Sessions for each order, on average (DEFAULT_SESSIONS_PER_ORDER, about 3 % conversion, unless given). */
  sessionsPerOrder?: number;
  /** The end of the history (default: the start of the current UTC day). */
  anchor: Date;
  onProgress?: (ordersWritten: number, ordersTotal: number) => void;
}

/** The store already has shoppers, orders or searches: demo activity is only written into a store without any. */
export class StoreHasActivityError extends Error {
  constructor(storeId: string) {
    super(`store ${storeId} already has shoppers, orders or searches; demo activity is only seeded into a store without any`);
  }
}

type Db = Kysely<unknown>;

/**
 * Writes generated shoppers, addresses, orders, payments, searches, sessions and their storefront events
 * into one store, through the owning areas' bulk writers, all in one transaction (a failure leaves no
 * activity behind). Batches are single
 * multi-row statements over unnest()ed arrays; the next batch is generated while one is written.
 */
export class DemoActivitySeeder {
  constructor(private readonly em: EntityManager) {}

  async assertNoActivity(storeId: string, db: Db = this.em.getKysely() as unknown as Db): Promise<void> {
    const { rows } = await sql<{ busy: boolean }>`
      select exists (select 1 from orders where store_id = ${storeId})
          or exists (select 1 from shoppers where store_id = ${storeId})
          or exists (select 1 from searches where store_id = ${storeId}) as busy`.execute(db);
    if (rows[0].busy) throw new StoreHasActivityError(storeId);
  }

  async seed(storeId: string, options: ActivityOptions): Promise<ActivityCounts> {
    if (!Number.isSafeInteger(options.orders) || options.orders < 0 || options.orders > MAX_DEMO_ORDERS) {
      throw new RangeError(`orders must be a whole number from 0 to ${MAX_DEMO_ORDERS}, got ${options.orders}`);
    }
    const sessionsPerOrder = options.sessionsPerOrder ?? DEFAULT_SESSIONS_PER_ORDER;
    assertSessionsPerOrder(sessionsPerOrder);
    return this.em.fork().transactional(async (em) => {
      const db = em.getKysely() as unknown as Db;
      // JIT compiling these one-off statements costs more than running them.
      await sql`set local jit = off`.execute(db);
      // Two seeds of one store at once would both find it empty.
      await sql`select id from stores where id = ${storeId} for update`.execute(db);
      await this.assertNoActivity(storeId, db);
      const context = await this.loadContext(db, storeId, options);
      const { rows } = await sql<{ currency: string }>`select currency from stores where id = ${storeId}`.execute(db);
      const orderBatch: OrderBatch = { storeId, currency: rows[0].currency, ...context.tax };

      const { rows: before } = await sql<{ rows: number }>`
        select greatest(reltuples, 0)::float8 as rows from pg_class where oid = 'orders'::regclass`.execute(db);
      await this.enterBulkMode(db);
      const shopperIds = new Set<string>();
      const pickupLocationIds = new Set(context.pickupLocations.map((location) => location.id));
      const total: ActivityCounts = { ...NO_ACTIVITY };
      let writing: Promise<void> = Promise.resolve();
      for (const batch of generateActivity(context, {
        seed: options.seed,
        orders: options.orders,
        anchor: options.anchor,
        sessionsPerOrder,
        batchSize: BATCH_ORDERS,
      })) {
        checkReferences(batch, shopperIds, pickupLocationIds);
        await writing;
        writing = this.write(db, orderBatch, batch).then(() => {
          total.shoppers += batch.shoppers.length;
          total.addresses += batch.addresses.length;
          total.orders += batch.orders.length;
          total.orderLines += batch.lines.length;
          total.payments += batch.payments.length;
          total.searches += batch.searches.length;
          total.sessions += batch.events.filter((event) => event.kind === 'session_started').length;
          total.storefrontEvents += batch.events.length;
          options.onProgress?.(total.orders, options.orders);
        });
        // Let the statement go out before the next batch is generated, so both work at once.
        await nextTurn();
      }
      await writing;
      // A seed that changes the tables by more than autovacuum's 10% gets fresh statistics now, or the
      // planner keeps its old guesses for the reports until autovacuum comes round.
      if (total.orders > 0.1 * before[0].rows) {
        await sql`analyze shoppers, addresses, sessions, orders, order_lines, payments, refunds, refund_lines, searches, storefront_events`.execute(
          db,
        );
      }
      return total;
    });
  }

  /**
   * The store as the generator needs it. The catalogue's creation times are spread first: some products
   * were on sale before the history starts, the others launch during it, and none sells before its launch.
   */
  private async loadContext(db: Db, storeId: string, options: ActivityOptions): Promise<StoreContext> {
    const launches = await this.spreadLaunches(db, storeId, options.anchor);
    const store = (
      await sql<{ tax_rate_bps: number; prices_include_tax: boolean }>`
        select tax_rate_bps, prices_include_tax from stores where id = ${storeId}`.execute(db)
    ).rows[0];
    const variants = await sql<{ id: string; price: number; product_id: string; category: string | null; department: string | null }>`
      select v.id, v.price, v.product_id, c.slug as category, root.slug as department
      from product_variants v
      join products p on p.id = v.product_id
      left join categories c on c.id = p.category_id
      left join categories root on root.id = c.path[1]
      where v.store_id = ${storeId} and p.status = 'active'
      order by v.sku`.execute(db);
    if (variants.rows.length === 0) throw new RangeError(`store ${storeId} has no active product to sell; seed a catalogue first`);
    const products = new Map<string, StoreProduct>();
    for (const row of variants.rows) {
      let product = products.get(row.product_id);
      if (!product) {
        product = {
          id: row.product_id,
          launchedAt: launches.get(row.product_id)!,
          department: row.department,
          category: row.category,
          variants: [],
        };
        products.set(row.product_id, product);
      }
      product.variants.push({ id: row.id, price: row.price });
    }
    const shippingMethods = await sql<{ code: string; price: number; free_over: number | null; min_days: number; max_days: number }>`
      select code, price, free_over, min_days, max_days from shipping_methods
      where store_id = ${storeId} and active order by position, code`.execute(db);
    const pickupLocations = await sql<{ id: string; city: string; preparation_hours: number }>`
      select id, city, preparation_hours from pickup_locations where store_id = ${storeId} and active order by position, code`.execute(db);

    const queries = buildQueryPool(randomStream(options.seed, 5), await this.catalogueWords(db, storeId));
    const normalized = [...new Set([...queries.en.items, ...queries.ar.items].map((query) => query.normalized))];
    return {
      tax: { taxRateBps: store.tax_rate_bps, pricesIncludeTax: store.prices_include_tax },
      products: [...products.values()],
      shippingMethods: shippingMethods.rows.map((m) => ({
        code: m.code,
        price: m.price,
        freeOver: m.free_over,
        minDays: m.min_days,
        maxDays: m.max_days,
      })),
      pickupLocations: pickupLocations.rows.map((l) => ({ id: l.id, city: l.city, preparationHours: l.preparation_hours })),
      queries,
      resultCounts: await this.resultCounts(db, storeId, normalized),
    };
  }

  /**
   * Foreign keys are checked row by row by triggers, which costs more than the inserts themselves at a
   * million orders. When the role may (superuser) and these tables have no trigger of their own other
   * than Insights' change capture, the triggers are switched off for this transaction only; every
   * batch's references are checked before it is written instead (checkReferences, and the count of
   * lines that found their variant). Change capture is off with them: the store's Insights rollups are
   * rebuilt after the seed.
   */
  private async enterBulkMode(db: Db): Promise<void> {
    const { rows } = await sql<{ bulk: boolean }>`
      select current_setting('is_superuser') = 'on' and not exists (
        select 1 from pg_trigger where not tgisinternal and tgname not like 'insights\\_%'
          and tgrelid = any (array['shoppers', 'addresses', 'sessions', 'orders', 'order_lines', 'payments', 'refunds', 'refund_lines',
                                   'searches', 'storefront_events']::regclass[])
      ) as bulk`.execute(db);
    if (rows[0].bulk) await sql`set local session_replication_role = replica`.execute(db);
  }

  /** Launch times in the catalogue's own order (oldest first), written back as the products' creation times. */
  private async spreadLaunches(db: Db, storeId: string, anchor: Date): Promise<Map<string, number>> {
    const { rows } = await sql<{ id: string }>`
      select id from products where store_id = ${storeId} order by created_at, slug`.execute(db);
    const windowStart = windowStartOf(anchor);
    const before = Math.ceil(rows.length * LAUNCHED_BEFORE_WINDOW);
    const launches = rows.map((_, i) => {
      const at =
        i < before
          ? windowStart - 365 * DAY + (i / before) * 365 * DAY
          : windowStart + ((i - before) / Math.max(1, rows.length - before)) * (anchor.getTime() - 7 * DAY - windowStart);
      return Math.round(at / SECOND);
    });
    const ids = rows.map((row) => row.id);
    await backdateProducts(db, storeId, ids, launches);
    return new Map(ids.map((id, i) => [id, launches[i] * SECOND]));
  }

  private async catalogueWords(db: Db, storeId: string): Promise<CatalogueWords> {
    const products = await sql<{ name_en: string; name_ar: string; brand_en: string | null; brand_ar: string | null }>`
      select p.name_en, p.name_ar, b.name_en as brand_en, b.name_ar as brand_ar
      from products p left join brands b on b.id = p.brand_id
      where p.store_id = ${storeId} and p.status = 'active' order by p.slug`.execute(db);
    const categories = await sql<{ name_en: string; name_ar: string }>`
      select name_en, name_ar from categories where store_id = ${storeId} order by slug`.execute(db);
    const brands = await sql<{ name_en: string; name_ar: string }>`
      select name_en, name_ar from brands where store_id = ${storeId} order by slug`.execute(db);
    return {
      products: products.rows.map((p) => ({ nameEn: p.name_en, nameAr: p.name_ar, brandEn: p.brand_en, brandAr: p.brand_ar })),
      categories: categories.rows.map((c) => ({ en: c.name_en, ar: c.name_ar })),
      brands: brands.rows.map((b) => ({ en: b.name_en, ar: b.name_ar })),
    };
  }

  /**
   * What the store's own search finds for each query, as the live service records it: the full-text
   * count, or, for fewer than a few matches, the count of the spelling-corrected query when that is more.
   */
  private async resultCounts(db: Db, storeId: string, queries: string[]): Promise<Map<string, number>> {
    const found = await this.fullTextCounts(db, storeId, queries);
    const corrections = await correctQueries(
      db,
      storeId,
      found.filter(({ count }) => count < FEW_RESULTS).map(({ normalized }) => normalized),
    );
    const corrected = new Map(
      (await this.fullTextCounts(db, storeId, [...new Set(corrections.values())])).map((row) => [row.query, row.count]),
    );
    return new Map(
      found.map(({ query, normalized, count }) => [query, Math.max(count, corrected.get(corrections.get(normalized) ?? '') ?? 0)]),
    );
  }

  private async fullTextCounts(db: Db, storeId: string, queries: string[]) {
    const { rows } = await sql<{ query: string; normalized: string; count: number }>`
      select q.query, normalize_search_text(q.query) as normalized,
        (select count(*) from product_search ps
         where ps.store_id = ${storeId} and ps.document @@ search_tsquery(normalize_search_text(q.query)))::int as count
      from (select distinct query from unnest(${queries}::text[]) as query) q`.execute(db);
    return rows;
  }

  /** One batch in one statement (one round trip): its rows reference each other, and foreign keys are checked at its end. */
  private async write(db: Db, orderBatch: OrderBatch, batch: ActivityBatch): Promise<void> {
    const { storeId, currency } = orderBatch;
    const { shoppers, addresses, sessions, orders, lines, payments, refunds, refundLines, searches, events } = batch;
    const { rows } = await sql<{ lines: string }>`
      with ${shopperInserts(storeId, shoppers, addresses)}, ${historySessionInserts(storeId, sessions)},
           ${orderInserts(orderBatch, orders, lines)}, ${paymentInserts(storeId, currency, payments)},
           ${refundInserts(orderBatch, refunds, refundLines)},
           ${searchInserts(searches.map((q) => ({ ...q, storeId, searchedAt: q.createdAt })))},
           ${eventInserts(events.map((event) => ({ ...event, storeId })))}
      -- every data-modifying part runs to completion whether or not it is read
      select count(*) as lines from new_lines`.execute(db);
    assertLinesWritten(orderBatch, lines.length, Number(rows[0].lines));
  }
}

/** What the foreign keys check, for a batch about to be written (possibly without their triggers). */
function checkReferences(batch: ActivityBatch, shopperIds: Set<string>, pickupLocationIds: Set<string>): void {
  for (const shopper of batch.shoppers) shopperIds.add(shopper.id);
  const orderIds = new Set(batch.orders.map((order) => order.id));
  // A session lies within its day, so what names it is in its batch.
  const sessionIds = new Set(batch.sessions.map((session) => session.id));
  const shopper = (id: string | null) => id === null || shopperIds.has(id);
  const session = (id: string | null) => id === null || sessionIds.has(id);
  const dangling =
    batch.addresses.some((address) => !shopperIds.has(address.shopperId)) ||
    batch.sessions.some((row) => !shopper(row.shopperId)) ||
    batch.orders.some(
      (order) =>
        !shopper(order.shopperId) ||
        !session(order.sessionId) ||
        (order.pickupLocationId !== null && !pickupLocationIds.has(order.pickupLocationId)),
    ) ||
    batch.lines.some((line) => !orderIds.has(line.orderId)) ||
    batch.payments.some((payment) => payment.orderId !== null && !orderIds.has(payment.orderId)) ||
    batch.refunds.some((refund) => !orderIds.has(refund.orderId)) ||
    batch.searches.some((search) => !shopper(search.shopperId) || !session(search.sessionId));
  if (dangling) throw new Error('a batch of demo activity refers to a row that is not written before it');
}

export function assertSessionsPerOrder(sessionsPerOrder: number): void {
  if (!Number.isSafeInteger(sessionsPerOrder) || sessionsPerOrder < 1 || sessionsPerOrder > MAX_SESSIONS_PER_ORDER) {
    throw new RangeError(`sessions per order must be a whole number from 1 to ${MAX_SESSIONS_PER_ORDER}, got ${sessionsPerOrder}`);
  }
}
