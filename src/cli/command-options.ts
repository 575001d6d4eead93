import type { INestApplicationContext } from '@nestjs/common';
import { UUID_PATTERN } from '../common/pagination/cursor.js';
import { CommandError, type Options } from './command.js';

// The option readers several command groups share: each throws a usage CommandError.

export function usage(message: string): CommandError {
  return new CommandError('USAGE', message, 2);
}

export function required(options: Options, name: string): string {
  const value = options[name];
  if (value === undefined) throw usage(`--${name} is required`);
  return value;
}

export function uuid(options: Options, name: string): string {
  const value = required(options, name);
  if (!UUID_PATTERN.test(value)) throw usage(`--${name} must be a UUID`);
  return value.toLowerCase();
}

export function emailOption(options: Options, name: string): string {
  const email = required(options, name).trim();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw usage(`--${name} must be an email address`);
  return email;
}

export function wholeNumber(options: Options, name: string, min: number, max: number): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) throw usage(`--${name} must be a whole number from ${min} to ${max}`);
  return number;
}

export function yesNo(options: Options, name: string): boolean {
  const value = options[name];
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw usage(`--${name} takes true or false`);
}

export async function existingStore(app: INestApplicationContext, options: Options): Promise<string> {
  const storeId = uuid(options, 'store');
  const { StoreService } = await import('../stores/store.service.js');
  if (!(await app.get(StoreService).exists(storeId))) throw new CommandError('STORE_NOT_FOUND', `no store with id ${storeId}`);
  return storeId;
}
