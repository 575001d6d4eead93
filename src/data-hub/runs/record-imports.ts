import { customersImport } from '../../account/customer-import.js';
import type { RecordImport } from '../../infra/database/record-import.js';
import {
  brandsImport,
  categoriesImport,
  pricesImport,
  productsImport,
  stockImport,
  variantsImport,
} from '../../storefront/catalogue/catalogue-imports.js';

/** How each importable structure is written, by the module that owns its table. */
export const RECORD_IMPORTS: Readonly<Record<string, RecordImport>> = {
  products: productsImport,
  variants: variantsImport,
  stock: stockImport,
  prices: pricesImport,
  categories: categoriesImport,
  brands: brandsImport,
  customers: customersImport,
};
