import { CommandError, type Command } from './command.js';
import { existingStore, uuid, wholeNumber } from './command-options.js';

export const seedDemo: Command = {
  usage: 'demo seed --store STORE_ID [--products N] [--orders N] [--seed N] [--sessions-per-order N]',
  options: ['store', 'products', 'orders', 'seed', 'sessions-per-order'],
  check: async (options) => {
    uuid(options, 'store');
    wholeNumber(options, 'products', 1, 1_000_000);
    wholeNumber(options, 'orders', 0, 5_000_000);
    wholeNumber(options, 'seed', 0, 2 ** 31);
    wholeNumber(options, 'sessions-per-order', 1, 100);
  },
  run: async (app, options) => {
    const storeId = await existingStore(app, options);
    const productCount = wholeNumber(options, 'products', 1, 1_000_000);
    const seed = wholeNumber(options, 'seed', 0, 2 ** 31);
    const sessionsPerOrder = wholeNumber(options, 'sessions-per-order', 1, 100);
    const [{ DemoStoreService }, { CatalogueNotEmptyError }, { DEFAULT_DEMO_ORDERS, StoreHasActivityError }] = await Promise.all([
      import('../demo/demo-store.service.js'),
      import('../storefront/catalogue/catalogue-writer.js'),
      import('../demo/activity-seeder.js'),
    ]);
    const orders = wholeNumber(options, 'orders', 0, 5_000_000) ?? DEFAULT_DEMO_ORDERS;
    // stdout carries the JSON answer only: progress of a big run goes to stderr.
    const every = 50_000;
    let reported = 0;
    const onProgress =
      orders >= every
        ? (written: number, total: number) => {
            if (written - reported < every && written < total) return;
            reported = written;
            process.stderr.write(`demo seed: ${written} of ${total} orders written\n`);
          }
        : undefined;
    try {
      const seeded = await app.get(DemoStoreService).seed(storeId, { productCount, seed, orders, sessionsPerOrder, onProgress });
      return { storeId, seeded };
    } catch (error) {
      if (error instanceof CatalogueNotEmptyError) throw new CommandError('CATALOGUE_NOT_EMPTY', error.message);
      if (error instanceof StoreHasActivityError) throw new CommandError('STORE_HAS_ACTIVITY', error.message);
      throw error;
    }
  },
};
