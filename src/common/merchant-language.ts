import type { Locale } from './locale.js';

/**
 * The language a store's merchants read what the service writes to them unasked (alerts, deliveries).
 * Insights settings own it; an area Insights depends on (the data hub) asks through this token rather
 * than by importing Insights or reading its table.
 */
export const MERCHANT_LANGUAGE = Symbol('MerchantLanguage');

export interface MerchantLanguage {
  of(storeId: string): Promise<Locale>;
}
