import { customersExport } from '../../account/customer-export.js';
import type { RecordExport } from '../../infra/database/record-export.js';
import {
  brandsExport,
  categoriesExport,
  pricesExport,
  productsExport,
  stockExport,
  variantsExport,
} from '../../storefront/catalogue/catalogue-exports.js';
import { ordersExport } from '../../storefront/orders/order-export.js';

/** How each exportable structure is read, by the module that owns its table. */
export const RECORD_EXPORTS: Readonly<Record<string, RecordExport>> = {
  products: productsExport,
  variants: variantsExport,
  stock: stockExport,
  prices: pricesExport,
  categories: categoriesExport,
  brands: brandsExport,
  customers: customersExport,
  orders: ordersExport,
};
