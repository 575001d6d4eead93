import type { Command } from './command.js';
import { existingStore, uuid } from './command-options.js';

export const listDatahubConnections: Command = {
  usage: 'datahub connections list --store STORE_ID',
  options: ['store'],
  check: async (options) => {
    uuid(options, 'store');
  },
  run: async (app, options) => {
    const storeId = await existingStore(app, options);
    const { ConnectionsService } = await import('../data-hub/connections/connections.service.js');
    return { connections: await app.get(ConnectionsService).all(storeId) };
  },
};
