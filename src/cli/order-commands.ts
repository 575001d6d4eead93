import type { INestApplicationContext } from '@nestjs/common';
import { UUID_PATTERN } from '../common/pagination/cursor.js';
import { CommandError, type Command, type Options } from './command.js';
import { existingStore, required, usage, uuid, wholeNumber, yesNo } from './command-options.js';

type Lifecycle = import('../storefront/orders/order-lifecycle.service.js').OrderLifecycle;
type OrderState = import('../storefront/orders/order-lifecycle.service.js').OrderState;

export const listOrders: Command = {
  usage: 'order list --store STORE_ID [--limit N]',
  options: ['store', 'limit'],
  check: async (options) => {
    uuid(options, 'store');
    wholeNumber(options, 'limit', 1, 100);
  },
  run: async (app, options) => {
    const storeId = await existingStore(app, options);
    const lifecycle = await orderLifecycle(app);
    return { orders: await lifecycle.list(storeId, wholeNumber(options, 'limit', 1, 100) ?? 20) };
  },
};

export const shipOrder = orderTransition('ship', (lifecycle, storeId, orderId) => lifecycle.ship(storeId, orderId));
export const markOrderReady = orderTransition('ready', (lifecycle, storeId, orderId) => lifecycle.readyForPickup(storeId, orderId));
export const deliverOrder = orderTransition('deliver', (lifecycle, storeId, orderId) => lifecycle.deliver(storeId, orderId));
export const cancelOrder = orderTransition('cancel', (lifecycle, storeId, orderId) => lifecycle.cancel(storeId, orderId));

export const refundOrder: Command = {
  usage:
    'order refund --store STORE_ID --order ORDER_ID --lines LINE_ID:QTY[,LINE_ID:QTY] [--restock true|false] [--include-shipping true|false]',
  options: ['store', 'order', 'lines', 'restock', 'include-shipping'],
  check: async (options) => {
    uuid(options, 'store');
    uuid(options, 'order');
    refundLines(options);
    yesNo(options, 'restock');
    yesNo(options, 'include-shipping');
  },
  run: async (app, options) => {
    const storeId = await existingStore(app, options);
    const orderId = uuid(options, 'order');
    const request = {
      lines: refundLines(options),
      restock: yesNo(options, 'restock'),
      includeShipping: yesNo(options, 'include-shipping'),
    };
    const lifecycle = await orderLifecycle(app);
    return { order: await refusalsAsCommandErrors(() => lifecycle.refund(storeId, orderId, request)) };
  },
};

/** `order ship|ready|deliver|cancel --store STORE_ID --order ORDER_ID`. */
function orderTransition(
  name: string,
  transition: (lifecycle: Lifecycle, storeId: string, orderId: string) => Promise<OrderState>,
): Command {
  return {
    usage: `order ${name} --store STORE_ID --order ORDER_ID`,
    options: ['store', 'order'],
    check: async (options) => {
      uuid(options, 'store');
      uuid(options, 'order');
    },
    run: async (app, options) => {
      const storeId = await existingStore(app, options);
      const orderId = uuid(options, 'order');
      const lifecycle = await orderLifecycle(app);
      return { order: await refusalsAsCommandErrors(() => transition(lifecycle, storeId, orderId)) };
    },
  };
}

/** The lifecycle module is loaded on demand: the other commands need neither it nor the payment provider. */
async function orderLifecycle(app: INestApplicationContext): Promise<Lifecycle> {
  const [{ LazyModuleLoader }, { OrderLifecycleModule }, { OrderLifecycle }] = await Promise.all([
    import('@nestjs/core'),
    import('../storefront/orders/order-lifecycle.module.js'),
    import('../storefront/orders/order-lifecycle.service.js'),
  ]);
  const module = await app.get(LazyModuleLoader).load(() => OrderLifecycleModule);
  return module.get(OrderLifecycle);
}

/** An order transition's refusal (state conflict, unknown order, bad line) as the operator's error, with what the order's states are. */
async function refusalsAsCommandErrors<T>(action: () => Promise<T>): Promise<T> {
  const { ApiError } = await import('../common/errors/api-error.js');
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const { details, errors } = error.options;
    const facts = [details ? JSON.stringify(details) : '', ...(errors ?? []).map((field) => `${field.field}: ${field.message_en}`)];
    throw new CommandError(
      error.code === 'NOT_FOUND' ? 'ORDER_NOT_FOUND' : error.code,
      [error.message, ...facts.filter(Boolean)].join(' '),
    );
  }
}

function refundLines(options: Options): { lineId: string; quantity: number }[] {
  const entries = required(options, 'lines').split(',');
  return entries.map((entry) => {
    const match = /^\s*([0-9a-fA-F-]{36}):([1-9]\d{0,5})\s*$/.exec(entry);
    if (!match || !UUID_PATTERN.test(match[1])) throw usage('--lines takes LINE_ID:QUANTITY pairs separated by commas, e.g. 3f2c…:1');
    return { lineId: match[1].toLowerCase(), quantity: Number(match[2]) };
  });
}
