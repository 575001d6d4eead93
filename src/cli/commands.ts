import type { INestApplicationContext } from '@nestjs/common';
import { SCOPES } from '../auth/access/scopes.js';
import { SIGNING_KEY_STORE, type SigningKeyStore } from '../auth/signing/signing-key-store.js';
import { UUID_PATTERN } from '../common/pagination/cursor.js';
import { DemoStoreService } from '../storefront/catalogue/demo-store.service.js';
import { ApiKeyService } from '../stores/api-key.service.js';
import { STORE_PLANS, type StorePlan } from '../stores/entities/store.entity.js';
import { StoreService } from '../stores/store.service.js';

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
  run(app: INestApplicationContext, options: Options): Promise<unknown>;
}

export const COMMANDS: Record<string, Command> = {
  'store create': {
    usage: 'store create --name NAME [--plan basic|growth|pro]',
    options: ['name', 'plan'],
    run: async (app, options) => {
      const name = required(options, 'name').trim();
      if (name.length === 0 || name.length > 200) throw usage('--name must be 1 to 200 characters');
      const plan = (options.plan ?? 'basic') as StorePlan;
      if (!STORE_PLANS.includes(plan)) throw usage(`--plan must be one of ${STORE_PLANS.join(', ')}`);
      return app.get(StoreService).create(name, plan);
    },
  },
  'key issue': {
    usage: `key issue --store STORE_ID [--rate-limit N] [--scopes ${SCOPES.slice(0, 2).join(',')},...]`,
    options: ['store', 'rate-limit', 'scopes'],
    run: async (app, options) => {
      const storeId = await existingStore(app, options);
      const rateLimit = options['rate-limit'];
      if (rateLimit !== undefined && !/^[1-9]\d{0,6}$/.test(rateLimit)) throw usage('--rate-limit must be a whole number from 1 to 9999999');
      const scopes = options.scopes?.split(',').map((scope) => scope.trim()).filter(Boolean);
      const unknown = scopes?.filter((scope) => !(SCOPES as readonly string[]).includes(scope)) ?? [];
      if (scopes && (scopes.length === 0 || unknown.length > 0)) {
        throw usage(`--scopes takes a comma-separated list of: ${SCOPES.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
      }
      const apiKey = await app.get(ApiKeyService).issue(storeId, { rateLimitPerMinute: rateLimit ? Number(rateLimit) : undefined, scopes });
      return { apiKey };
    },
  },
  'key revoke': {
    usage: 'key revoke --key KEY_ID',
    options: ['key'],
    run: async (app, options) => {
      const keyId = uuid(options, 'key');
      const revoked = await app.get(ApiKeyService).revoke(keyId);
      if (!revoked) throw new CommandError('KEY_NOT_FOUND', `no API key with id ${keyId}`);
      return { apiKey: { id: revoked.id, revokedAt: revoked.revokedAt.toISOString() } };
    },
  },
  'key list': {
    usage: 'key list --store STORE_ID',
    options: ['store'],
    run: async (app, options) => ({ apiKeys: await app.get(ApiKeyService).list(await existingStore(app, options)) }),
  },
  'demo seed': {
    usage: 'demo seed --store STORE_ID [--products N] [--seed N]',
    options: ['store', 'products', 'seed'],
    run: async (app, options) => {
      const storeId = await existingStore(app, options);
      const productCount = wholeNumber(options, 'products', 1, 1_000_000);
      const seed = wholeNumber(options, 'seed', 0, 2 ** 31);
      const seeded = await app.get(DemoStoreService).seed(storeId, { productCount, seed });
      return { storeId, seeded };
    },
  },
  'signing-key rotate': {
    usage: 'signing-key rotate',
    options: [],
    run: async (app) => ({ signingKey: await app.get<SigningKeyStore>(SIGNING_KEY_STORE).rotate() }),
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

function wholeNumber(options: Options, name: string, min: number, max: number): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) throw usage(`--${name} must be a whole number from ${min} to ${max}`);
  return number;
}

async function existingStore(app: INestApplicationContext, options: Options): Promise<string> {
  const storeId = uuid(options, 'store');
  if (!(await app.get(StoreService).exists(storeId))) throw new CommandError('STORE_NOT_FOUND', `no store with id ${storeId}`);
  return storeId;
}
