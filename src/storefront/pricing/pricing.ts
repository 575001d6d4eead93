/** Tax settings of a store. */
export interface TaxSettings {
  taxRateBps: number;
  pricesIncludeTax: boolean;
}

/** a × b / c rounded half up, on non-negative integers, exact at any size (BigInt). */
export function mulDivHalfUp(a: number, b: number, c: number): number {
  const numerator = BigInt(a) * BigInt(b);
  const denominator = BigInt(c);
  return Number((2n * numerator + denominator) / (2n * denominator));
}

/**
 * The tax in an amount of minor units, rounded half up to a whole minor unit. With tax-inclusive
 * prices it is the part of the amount that is tax, amount × rate / (1 + rate); otherwise it is added
 * on top, amount × rate. Computed per order line and for shipping, so line taxes add up to the total.
 */
export function taxOf(amount: number, settings: TaxSettings): number {
  if (settings.taxRateBps === 0 || amount === 0) return 0;
  return settings.pricesIncludeTax
    ? mulDivHalfUp(amount, settings.taxRateBps, 10_000 + settings.taxRateBps)
    : mulDivHalfUp(amount, settings.taxRateBps, 10_000);
}

/** What the shopper pays for an amount whose tax is `tax`: the amount itself when prices include tax, else both. */
export function withTax(amount: number, tax: number, pricesIncludeTax: boolean): number {
  return pricesIncludeTax ? amount : amount + tax;
}

export interface Totals {
  subtotal: number;
  shipping: number;
  tax: number;
  total: number;
  lineTaxes: number[];
  shippingTax: number;
}

/** Totals of lines (their line totals) and a shipping charge under the store's tax settings. */
export function totalsOf(lineTotals: number[], shipping: number, settings: TaxSettings): Totals {
  const subtotal = lineTotals.reduce((sum, value) => sum + value, 0);
  const lineTaxes = lineTotals.map((value) => taxOf(value, settings));
  const shippingTax = taxOf(shipping, settings);
  const tax = lineTaxes.reduce((sum, value) => sum + value, shippingTax);
  const total = withTax(subtotal + shipping, tax, settings.pricesIncludeTax);
  return { subtotal, shipping, tax, total, lineTaxes, shippingTax };
}

/** A delivery method's charge for a subtotal: free once the subtotal reaches `freeOver`. */
export function shippingPrice(method: { price: number; freeOver: number | null }, subtotal: number): number {
  return method.freeOver !== null && subtotal >= method.freeOver ? 0 : method.price;
}
