import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { SecretBox } from './secrets.js';

/**
 * The key that seals secrets at rest. SECRET_KEY wins; without it a key is generated once under
 * DATA_DIR (mode 0600) so the zero-configuration start needs nothing. Instances that share a
 * database must share this key.
 */
export function loadSecretBox(config: AppConfig): SecretBox {
  return new SecretBox(loadMasterKey(config));
}

/** The master key itself, for deriving purpose-bound keys (HKDF) from it. */
export function loadMasterKey(config: AppConfig): Buffer {
  if (config.SECRET_KEY) return Buffer.from(config.SECRET_KEY, 'base64');
  const file = join(config.dataDir, 'secret.key');
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64');
  try {
    writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }
  return Buffer.from(key, 'base64');
}
