import { Migration0001Foundation } from './0001-foundation.js';

/** Applied in order on start; a new migration is appended here. */
export const MIGRATIONS = [{ name: '0001-foundation', class: Migration0001Foundation }];
