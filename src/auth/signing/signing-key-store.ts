import type { JWK } from 'jose';
import type { KeyObject, webcrypto } from 'node:crypto';

export type CryptoKey = webcrypto.CryptoKey;

export interface ActiveSigningKey {
  kid: string;
  algorithm: string;
  /** A Node key object: node:crypto signs Ed25519 synchronously, about three times faster than WebCrypto here. */
  privateKey: KeyObject;
}

/**
 * Where token signing keys live and how they rotate. The default keeps them in PostgreSQL,
 * sealed with the master key; a KMS-backed store would implement the same four methods.
 */
export interface SigningKeyStore {
  /** The key new tokens are signed with. */
  active(): Promise<ActiveSigningKey>;
  /** The public key for a `kid`, if it may still verify tokens. */
  verificationKey(kid: string): Promise<CryptoKey | undefined>;
  /** Public keys of every key that may still verify tokens (the JWKS). */
  publicKeys(): Promise<JWK[]>;
  /** Starts signing with a fresh key; the previous one keeps verifying until its tokens expire. */
  rotate(): Promise<{ kid: string; retiredKid: string | null }>;
}

export const SIGNING_KEY_STORE = Symbol('SigningKeyStore');
