import type { Command, Options } from './command.js';
import { existingStore, usage, uuid, wholeNumber } from './command-options.js';

export const listOutbox: Command = {
  usage: 'outbox list --store STORE_ID [--to EMAIL] [--limit N]',
  options: ['store', 'to', 'limit'],
  check: async (options) => {
    uuid(options, 'store');
    outboxRecipient(options);
    wholeNumber(options, 'limit', 1, 1000);
  },
  run: async (app, options) => {
    const storeId = await existingStore(app, options);
    const [{ EntityManager }, { readOutbox }] = await Promise.all([
      import('@mikro-orm/postgresql'),
      import('../notifications/outbox.notifier.js'),
    ]);
    const limit = wholeNumber(options, 'limit', 1, 1000) ?? 20;
    return { messages: await readOutbox(app.get(EntityManager), storeId, { to: outboxRecipient(options), limit }) };
  },
};

function outboxRecipient(options: Options): string | undefined {
  const to = options.to?.trim();
  if (to !== undefined && (to.length === 0 || to.length > 254 || !to.includes('@'))) throw usage('--to must be an email address');
  return to;
}
