/**
 * The fixed price bands of the search facets, per currency, in minor units. A product falls in the
 * band of its lowest variant price (the "from" price of listings). Each band is `[min, max]`
 * inclusive; the last one has no upper bound (`max: null`).
 */
const SAR_BOUNDARIES = [5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000];
const THREE_DECIMAL_BOUNDARIES = [5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000];
const DOLLAR_BOUNDARIES = [1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000];

/** Lower bounds of every band but the first (which starts at 0), ascending. */
export const PRICE_BAND_BOUNDARIES: Record<string, number[]> = {
  SAR: SAR_BOUNDARIES,
  AED: SAR_BOUNDARIES,
  QAR: SAR_BOUNDARIES,
  EGP: [25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000],
  // 1,000 fils to the dinar
  KWD: THREE_DECIMAL_BOUNDARIES,
  BHD: THREE_DECIMAL_BOUNDARIES,
  OMR: THREE_DECIMAL_BOUNDARIES,
  USD: DOLLAR_BOUNDARIES,
  EUR: DOLLAR_BOUNDARIES,
  GBP: DOLLAR_BOUNDARIES,
};

export function priceBandBoundaries(currency: string): number[] {
  return PRICE_BAND_BOUNDARIES[currency] ?? SAR_BOUNDARIES;
}

/** The band `index` (as SQL `width_bucket` numbers them: 0 is below the first boundary). */
export function priceBand(boundaries: number[], index: number): { min: number; max: number | null } {
  return { min: index === 0 ? 0 : boundaries[index - 1], max: index < boundaries.length ? boundaries[index] - 1 : null };
}
