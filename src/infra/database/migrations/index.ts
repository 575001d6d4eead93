import { Migration0001Foundation } from './0001-foundation.js';
import { Migration0002ShoppersAndOrders } from './0002-shoppers-and-orders.js';
import { Migration0003Search } from './0003-search.js';

/** Applied in order on start; a new migration is appended here. */
export const MIGRATIONS = [
  { name: '0001-foundation', class: Migration0001Foundation },
  { name: '0002-shoppers-and-orders', class: Migration0002ShoppersAndOrders },
  { name: '0003-search', class: Migration0003Search },
];
