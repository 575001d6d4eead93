import type { DemoDay, Season } from './calendar.js';
import { WeightedTable, type Random } from './random.js';
import type { StoreProduct } from './store-context.js';

const POPULARITY_EXPONENT = 1.1;
const POPULARITY_OFFSET = 4;

/** What sells more in a season, by department or category slug of the demo catalogue. */
const SEASONAL_DEMAND: Partial<Record<Season, Record<string, number>>> = {
  eid: { fashion: 2.2, beauty: 1.9, cookware: 1.6, toys: 1.7 },
  ramadan: { 'kitchen-appliances': 1.4, cookware: 1.5 },
  mega_sale: { electronics: 2.4, 'kitchen-appliances': 1.6 },
  national_day: { thobes: 2, fashion: 1.2 },
  back_to_school: { laptops: 2.5, bags: 2.2, 'electronics-accessories': 1.4 },
  winter: { outdoor: 3, bedding: 1.3 },
  summer: { outdoor: 0.3 },
};

/** How likely each product is to be in a basket on a day: Zipf-like popularity, seasons, launched products only. */
export class ProductDemand {
  private readonly popularity: Float64Array;
  private week = -1;
  private readonly tables = new Map<string, WeightedTable<StoreProduct>>();

  constructor(
    private readonly products: StoreProduct[],
    rng: Random,
  ) {
    const ranks = products.map((_, i) => i);
    for (let i = ranks.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [ranks[i], ranks[j]] = [ranks[j], ranks[i]];
    }
    this.popularity = Float64Array.from(ranks, (rank) => 1 / (rank + POPULARITY_OFFSET) ** POPULARITY_EXPONENT);
  }

  /** Rebuilt weekly (launches) and when the seasons change. */
  tableFor(day: DemoDay, dayIndex: number): WeightedTable<StoreProduct> {
    const week = Math.floor(dayIndex / 7);
    if (week !== this.week) {
      this.week = week;
      this.tables.clear();
    }
    const key = day.seasons.join(',');
    let table = this.tables.get(key);
    if (!table) {
      const launched = this.products.some((product) => product.launchedAt <= day.start);
      const weights = this.products.map((product, i) =>
        launched && product.launchedAt > day.start ? 0 : this.popularity[i] * seasonalDemand(product, day.seasons),
      );
      table = new WeightedTable(this.products, weights);
      this.tables.set(key, table);
    }
    return table;
  }
}

function seasonalDemand(product: StoreProduct, seasons: Season[]): number {
  let factor = 1;
  for (const season of seasons) {
    const demand = SEASONAL_DEMAND[season];
    if (!demand) continue;
    if (product.department !== null) factor *= demand[product.department] ?? 1;
    if (product.category !== null && product.category !== product.department) factor *= demand[product.category] ?? 1;
  }
  return factor;
}
