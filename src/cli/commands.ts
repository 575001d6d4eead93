import type { INestApplicationContext } from '@nestjs/common';
import { SCOPES } from '../common/scopes.js';
import { UUID_PATTERN } from '../common/pagination/cursor.js';
import { PERMISSIONS, STAFF_ROLES, STORE_PLANS, type StaffRole } from '../common/permissions.js';
import { SUPPORT_MAX_MINUTES } from '../auth/support/support-limits.js';

// Only light modules are imported statically: the services (MikroORM, Nest) load inside `run`, so a
// usage error is answered at once, without opening (or starting) a database.

export type Options = Record<string, string | undefined>;

/** A refusal the operator can fix: printed as JSON with its code, exit status 1 (2 for usage). */
export class CommandError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface Command {
  usage: string;
  options: string[];
  /** Everything that can be checked before a database is opened; throws a usage CommandError. */
  check(options: Options): Promise<void>;
  /** Runs the command (checking its options again, so it can be called on its own). */
  run(app: INestApplicationContext, options: Options): Promise<unknown>;
}

export const COMMANDS: Record<string, Command> = {
  'store create': {
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
  },
  'key issue': {
    usage: `key issue --store STORE_ID [--rate-limit N] [--scopes ${SCOPES.slice(0, 2).join(',')},...]`,
    options: ['store', 'rate-limit', 'scopes'],
    check: async (options) => {
      uuid(options, 'store');
      rateLimit(options);
      keyScopes(options);
    },
    run: async (app, options) => {
      const storeId = await existingStore(app, options);
      const rateLimitPerMinute = rateLimit(options);
      const scopes = keyScopes(options);
      const { ApiKeyService } = await import('../stores/api-key.service.js');
      const apiKey = await app.get(ApiKeyService).issue(storeId, { rateLimitPerMinute, scopes });
      return { apiKey };
    },
  },
  'key revoke': {
    usage: 'key revoke --key KEY_ID',
    options: ['key'],
    check: async (options) => {
      uuid(options, 'key');
    },
    run: async (app, options) => {
      const keyId = uuid(options, 'key');
      const { ApiKeyService } = await import('../stores/api-key.service.js');
      const revoked = await app.get(ApiKeyService).revoke(keyId);
      if (!revoked) throw new CommandError('KEY_NOT_FOUND', `no API key with id ${keyId}`);
      return { apiKey: { id: revoked.id, revokedAt: revoked.revokedAt.toISOString() } };
    },
  },
  'key list': {
    usage: 'key list --store STORE_ID',
    options: ['store'],
    check: async (options) => {
      uuid(options, 'store');
    },
    run: async (app, options) => {
      const storeId = await existingStore(app, options);
      const { ApiKeyService } = await import('../stores/api-key.service.js');
      return { apiKeys: await app.get(ApiKeyService).list(storeId) };
    },
  },
  'demo seed': {
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
  },
  'outbox list': {
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
  },
  'order list': {
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
  },
  'order ship': orderTransition('ship', (lifecycle, storeId, orderId) => lifecycle.ship(storeId, orderId)),
  'order ready': orderTransition('ready', (lifecycle, storeId, orderId) => lifecycle.readyForPickup(storeId, orderId)),
  'order deliver': orderTransition('deliver', (lifecycle, storeId, orderId) => lifecycle.deliver(storeId, orderId)),
  'order cancel': orderTransition('cancel', (lifecycle, storeId, orderId) => lifecycle.cancel(storeId, orderId)),
  'order refund': {
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
  },
  'store plan': {
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
  },
  'staff add': {
    usage: `staff add --store STORE_ID --email EMAIL --name NAME --role ${STAFF_ROLES.join('|')} [--permissions a,b]`,
    options: ['store', 'email', 'name', 'role', 'permissions'],
    check: async (options) => {
      uuid(options, 'store');
      staffEmail(options);
      staffName(options);
      staffRole(options);
    },
    run: async (app, options) => {
      const storeId = await existingStore(app, options);
      const { role, permissions } = staffRole(options);
      const staff = await staffMembers(app);
      return staffErrorsAsCommandErrors(() =>
        staff.add(storeId, { email: staffEmail(options), name: staffName(options), role, permissions }),
      );
    },
  },
  'staff list': {
    usage: 'staff list --store STORE_ID',
    options: ['store'],
    check: async (options) => {
      uuid(options, 'store');
    },
    run: async (app, options) => {
      const storeId = await existingStore(app, options);
      return { staff: await (await staffMembers(app)).list(storeId) };
    },
  },
  'staff set-role': {
    usage: `staff set-role --staff STAFF_ID --role ${STAFF_ROLES.join('|')} [--permissions a,b]`,
    options: ['staff', 'role', 'permissions'],
    check: async (options) => {
      uuid(options, 'staff');
      staffRole(options);
    },
    run: async (app, options) => {
      const staffId = uuid(options, 'staff');
      const { role, permissions } = staffRole(options);
      const staff = await staffMembers(app);
      return { staff: await staffErrorsAsCommandErrors(() => staff.setRole(staffId, role, permissions)) };
    },
  },
  'staff remove': {
    usage: 'staff remove --staff STAFF_ID',
    options: ['staff'],
    check: async (options) => {
      uuid(options, 'staff');
    },
    run: async (app, options) => {
      const staffId = uuid(options, 'staff');
      const staff = await staffMembers(app);
      return { staff: await staffErrorsAsCommandErrors(() => staff.remove(staffId)) };
    },
  },
  'support open': {
    usage: 'support open --store STORE_ID --agent EMAIL --reason TEXT [--minutes 60]',
    options: ['store', 'agent', 'reason', 'minutes'],
    check: async (options) => {
      uuid(options, 'store');
      agentEmail(options);
      supportReason(options);
      wholeNumber(options, 'minutes', 1, SUPPORT_MAX_MINUTES);
    },
    run: async (app, options) => {
      const storeId = await existingStore(app, options);
      const minutes = wholeNumber(options, 'minutes', 1, SUPPORT_MAX_MINUTES);
      const support = await supportSessions(app);
      return support.open(storeId, agentEmail(options), supportReason(options), minutes);
    },
  },
  'datahub connections list': {
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
  },
  'support list': {
    usage: 'support list --store STORE_ID',
    options: ['store'],
    check: async (options) => {
      uuid(options, 'store');
    },
    run: async (app, options) => {
      const storeId = await existingStore(app, options);
      return { supportSessions: await (await supportSessions(app)).list(storeId) };
    },
  },
  'support close': {
    usage: 'support close --session SUPPORT_SESSION_ID',
    options: ['session'],
    check: async (options) => {
      uuid(options, 'session');
    },
    run: async (app, options) => {
      const sessionId = uuid(options, 'session');
      const support = await supportSessions(app);
      const { SupportSessionError } = await import('../auth/support/support-sessions.service.js');
      try {
        return { supportSession: await support.close(sessionId) };
      } catch (error) {
        if (error instanceof SupportSessionError) throw new CommandError(error.code, error.message);
        throw error;
      }
    },
  },
  'insights rebuild': {
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
  },
  'signing-key rotate': {
    usage: 'signing-key rotate',
    options: [],
    check: async () => undefined,
    run: async (app) => {
      const { SIGNING_KEY_STORE } = await import('../auth/signing/signing-key-store.js');
      const store = app.get<import('../auth/signing/signing-key-store.js').SigningKeyStore>(SIGNING_KEY_STORE);
      return { signingKey: await store.rotate() };
    },
  },
};

function usage(message: string): CommandError {
  return new CommandError('USAGE', message, 2);
}

function required(options: Options, name: string): string {
  const value = options[name];
  if (value === undefined) throw usage(`--${name} is required`);
  return value;
}

function uuid(options: Options, name: string): string {
  const value = required(options, name);
  if (!UUID_PATTERN.test(value)) throw usage(`--${name} must be a UUID`);
  return value.toLowerCase();
}

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

function emailOption(options: Options, name: string): string {
  const email = required(options, name).trim();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw usage(`--${name} must be an email address`);
  return email;
}

function staffEmail(options: Options): string {
  return emailOption(options, 'email');
}

function agentEmail(options: Options): string {
  return emailOption(options, 'agent');
}

function staffName(options: Options): string {
  const name = required(options, 'name').trim();
  if (name.length === 0 || name.length > 200) throw usage('--name must be 1 to 200 characters');
  return name;
}

function supportReason(options: Options): string {
  const reason = required(options, 'reason').trim();
  if (reason.length < 3 || reason.length > 500) throw usage('--reason must be 3 to 500 characters: why the agent needs to look');
  return reason;
}

/** `--role`, and `--permissions` (comma-separated, each a known permission) only with role custom, where it is required. */
function staffRole(options: Options): { role: StaffRole; permissions?: string[] } {
  const role = required(options, 'role') as StaffRole;
  if (!STAFF_ROLES.includes(role)) throw usage(`--role must be one of ${STAFF_ROLES.join(', ')}`);
  const given = options.permissions
    ?.split(',')
    .map((permission) => permission.trim())
    .filter(Boolean);
  if (role !== 'custom') {
    if (given !== undefined) throw usage('--permissions is given only with --role custom (other roles carry their own)');
    return { role };
  }
  const unknown = given?.filter((permission) => !(PERMISSIONS as readonly string[]).includes(permission)) ?? [];
  if (!given || given.length === 0 || unknown.length > 0) {
    throw usage(
      `--role custom needs --permissions, a comma-separated list of: ${PERMISSIONS.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
    );
  }
  return { role, permissions: given };
}

async function staffMembers(app: INestApplicationContext) {
  const { StaffMembers } = await import('../auth/staff/staff-members.service.js');
  return app.get(StaffMembers);
}

async function supportSessions(app: INestApplicationContext) {
  const { SupportSessions } = await import('../auth/support/support-sessions.service.js');
  return app.get(SupportSessions);
}

/** A staff member's refusal (unknown, removed, duplicate email) as the operator's error. */
async function staffErrorsAsCommandErrors<T>(action: () => Promise<T>): Promise<T> {
  const { StaffError } = await import('../auth/staff/staff-members.service.js');
  try {
    return await action();
  } catch (error) {
    if (error instanceof StaffError) throw new CommandError(error.code, error.message);
    throw error;
  }
}

function rateLimit(options: Options): number | undefined {
  const value = options['rate-limit'];
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,6}$/.test(value)) throw usage('--rate-limit must be a whole number from 1 to 9999999');
  return Number(value);
}

function keyScopes(options: Options): string[] | undefined {
  const scopes = options.scopes
    ?.split(',')
    .map((scope) => scope.trim())
    .filter(Boolean);
  const unknown = scopes?.filter((scope) => !(SCOPES as readonly string[]).includes(scope)) ?? [];
  if (scopes && (scopes.length === 0 || unknown.length > 0)) {
    throw usage(
      `--scopes takes a comma-separated list of: ${SCOPES.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
    );
  }
  return scopes;
}

function wholeNumber(options: Options, name: string, min: number, max: number): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) throw usage(`--${name} must be a whole number from ${min} to ${max}`);
  return number;
}

function outboxRecipient(options: Options): string | undefined {
  const to = options.to?.trim();
  if (to !== undefined && (to.length === 0 || to.length > 254 || !to.includes('@'))) throw usage('--to must be an email address');
  return to;
}

type Lifecycle = import('../storefront/orders/order-lifecycle.service.js').OrderLifecycle;
type OrderState = import('../storefront/orders/order-lifecycle.service.js').OrderState;

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

function yesNo(options: Options, name: string): boolean {
  const value = options[name];
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw usage(`--${name} takes true or false`);
}

async function existingStore(app: INestApplicationContext, options: Options): Promise<string> {
  const storeId = uuid(options, 'store');
  const { StoreService } = await import('../stores/store.service.js');
  if (!(await app.get(StoreService).exists(storeId))) throw new CommandError('STORE_NOT_FOUND', `no store with id ${storeId}`);
  return storeId;
}
