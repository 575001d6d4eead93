import type { Command } from './command.js';
import { existingStore, uuid } from './command-options.js';

export const rebuildInsights: Command = {
  usage: 'insights rebuild --store STORE_ID',
  options: ['store'],
  check: async (options) => {
    uuid(options, 'store');
  },
  run: async (app, options) => {
    const storeId = await existingStore(app, options);
    const { RollupMaintainer } = await import('../insights/rollups/rollup-maintainer.js');
    const started = Date.now();
    await app.get(RollupMaintainer).rebuild(storeId);
    return { storeId, rebuiltInMs: Date.now() - started };
  },
};
