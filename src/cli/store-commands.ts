import { STORE_PLANS } from '../common/permissions.js';
import { CommandError, type Command, type Options } from './command.js';
import { required, usage, uuid } from './command-options.js';

export const createStore: Command = {
  usage: 'store create --name NAME [--plan basic|growth|pro]',
  options: ['name', 'plan'],
  check: async (options) => {
    storeName(options);
    await storePlan(options);
  },
  run: async (app, options) => {
    const { StoreService } = await import('../stores/store.service.js');
    return app.get(StoreService).create(storeName(options), await storePlan(options));
  },
};

export const setStorePlan: Command = {
  usage: 'store plan --store STORE_ID --plan basic|growth|pro',
  options: ['store', 'plan'],
  check: async (options) => {
    uuid(options, 'store');
    required(options, 'plan');
    await storePlan(options);
  },
  run: async (app, options) => {
    const storeId = uuid(options, 'store');
    required(options, 'plan');
    const plan = await storePlan(options);
    const { StoreService } = await import('../stores/store.service.js');
    const store = await app.get(StoreService).setPlan(storeId, plan);
    if (!store) throw new CommandError('STORE_NOT_FOUND', `no store with id ${storeId}`);
    return { store };
  },
};

function storeName(options: Options): string {
  const name = required(options, 'name').trim();
  if (name.length === 0 || name.length > 200) throw usage('--name must be 1 to 200 characters');
  return name;
}

async function storePlan(options: Options) {
  const plan = (options.plan ?? 'basic') as (typeof STORE_PLANS)[number];
  if (!STORE_PLANS.includes(plan)) throw usage(`--plan must be one of ${STORE_PLANS.join(', ')}`);
  return plan;
}
