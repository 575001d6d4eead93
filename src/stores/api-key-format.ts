import { randomAlphanumeric } from '../infra/crypto/secrets.js';

export const API_KEY_PREFIX = 'sk_live_';
const API_KEY_PATTERN = /^sk_live_[A-Za-z0-9]{40}$/;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomAlphanumeric(40);
}

export function isWellFormedApiKey(value: unknown): value is string {
  return typeof value === 'string' && API_KEY_PATTERN.test(value);
}

/** What an operator sees of a key after issuance: enough to tell keys apart, useless to an attacker. */
export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 4);
}
