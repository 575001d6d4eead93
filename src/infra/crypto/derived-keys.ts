import { hkdfSync } from 'node:crypto';

/**
 * A 32-byte key for one purpose, derived from the master key with HKDF-SHA256. Each purpose gets its
 * own key, so a key leaked or misused in one place says nothing about the master key or the others.
 */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `storefront:${purpose}`, 32));
}
