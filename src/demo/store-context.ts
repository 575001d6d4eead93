import type { Locale } from '../common/locale.js';
import type { TaxSettings } from '../storefront/pricing/pricing.js';
import type { WeightedTable } from './random.js';
import type { PoolQuery } from './search-queries.js';

export interface StoreProduct {
  id: string;
  /** When the product went on sale, epoch ms: it is not sold before. */
  launchedAt: number;
  /** Slug of the top-level category, and of the product's own category. */
  department: string | null;
  category: string | null;
  variants: { id: string; price: number }[];
}

/** What the activity generator knows of the store it writes history for. */
export interface StoreContext {
  tax: TaxSettings;
  /** In a stable order (by SKU): the same catalogue gives the same draws. */
  products: StoreProduct[];
  shippingMethods: { code: string; price: number; freeOver: number | null; minDays: number; maxDays: number }[];
  pickupLocations: { id: string; city: string; preparationHours: number }[];
  queries: Record<Locale, WeightedTable<PoolQuery>>;
  resultCounts: Map<string, number>;
}
