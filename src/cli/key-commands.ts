import { SCOPES } from '../common/scopes.js';
import { CommandError, type Command, type Options } from './command.js';
import { existingStore, usage, uuid } from './command-options.js';

export const issueKey: Command = {
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
};

export const revokeKey: Command = {
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
};

export const listKeys: Command = {
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
};

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
