import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { sql } from 'kysely';
import { createPrivateKey, type JsonWebKey } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { SecretBox } from '../../infra/crypto/secrets.js';
import { ChangeFeed } from '../../infra/database/change-feed.js';
import { SigningKey } from '../entities/signing-key.entity.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../token-lifetimes.js';
import type { ActiveSigningKey, CryptoKey, SigningKeyStore } from './signing-key-store.js';

const ALGORITHM = 'EdDSA';
const ROTATION_LOCK = 727_002;
const CHANNEL = 'signing_keys_changed';
/** Every instance re-reads the key set at least this often, even if a notification is lost. */
const RELOAD_INTERVAL_MS = 60_000;
/**
 * A retired key keeps verifying for one token lifetime plus two reload intervals: an instance that
 * has not heard of a rotation yet may sign with the old key for up to one interval.
 */
const VERIFY_AFTER_RETIREMENT_SECONDS = ACCESS_TOKEN_TTL_SECONDS + (2 * RELOAD_INTERVAL_MS) / 1000;
/** An unknown `kid` triggers a reload at most this often, so forged kids cannot hammer the database. */
const UNKNOWN_KID_RELOAD_MS = 1_000;

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  publicKey: CryptoKey;
}

@Injectable()
export class DatabaseSigningKeyStore implements SigningKeyStore, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseSigningKeyStore.name);
  private verifying = new Map<string, LoadedKey>();
  private current?: ActiveSigningKey;
  private loadedAt = 0;
  private loading?: Promise<void>;
  private reloadAgain?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly em: EntityManager,
    private readonly secrets: SecretBox,
    private readonly changes: ChangeFeed,
  ) {
    this.changes.subscribe(CHANNEL, () => void this.reload());
    this.changes.onReconnect(() => void this.reload());
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureSigningKey();
    await this.reload();
    this.timer = setInterval(() => void this.reload().catch((e) => this.logger.warn(`key reload failed: ${e}`)), RELOAD_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async active(): Promise<ActiveSigningKey> {
    if (!this.current) await this.reload();
    if (!this.current) throw new Error('no active signing key');
    return this.current;
  }

  async verificationKey(kid: string): Promise<CryptoKey | undefined> {
    const known = this.verifying.get(kid);
    if (known) return known.publicKey;
    if (Date.now() - this.loadedAt > UNKNOWN_KID_RELOAD_MS) await this.reload();
    return this.verifying.get(kid)?.publicKey;
  }

  async publicKeys(): Promise<JWK[]> {
    return [...this.verifying.values()].map((key) => key.publicJwk);
  }

  async rotate(): Promise<{ kid: string; retiredKid: string | null }> {
    const result = await this.em.fork().transactional(async (em) => {
      await sql`select pg_advisory_xact_lock(${ROTATION_LOCK})`.execute(em.getKysely());
      const previous = await em.findOne(SigningKey, { retiredAt: null }, { orderBy: { createdAt: 'desc' } });
      if (previous) previous.retiredAt = new Date();
      const created = await this.createKey(em);
      await em.flush();
      return { kid: created.kid, retiredKid: previous?.kid ?? null };
    });
    await this.changes.publish(CHANNEL, result.kid);
    await this.reload();
    return result;
  }

  /** Rotates when the active key is older than `maxAgeDays`; safe to call from every instance at once. */
  async rotateIfOlderThan(maxAgeDays: number): Promise<boolean> {
    const rotated = await this.em.fork().transactional(async (em) => {
      const lock = await sql<{ acquired: boolean }>`select pg_try_advisory_xact_lock(${ROTATION_LOCK}) as acquired`.execute(em.getKysely());
      if (!lock.rows[0].acquired) return false;
      const active = await em.findOne(SigningKey, { retiredAt: null }, { orderBy: { createdAt: 'desc' } });
      if (active && active.createdAt.getTime() > Date.now() - maxAgeDays * 86_400_000) return false;
      if (active) active.retiredAt = new Date();
      await this.createKey(em);
      await em.flush();
      return true;
    });
    if (rotated) {
      await this.changes.publish(CHANNEL, 'rotated');
      await this.reload();
    }
    return rotated;
  }

  private async ensureSigningKey(): Promise<void> {
    await this.em.fork().transactional(async (em) => {
      await sql`select pg_advisory_xact_lock(${ROTATION_LOCK})`.execute(em.getKysely());
      if ((await em.count(SigningKey, { retiredAt: null })) === 0) {
        await this.createKey(em);
        await em.flush();
      }
    });
  }

  private async createKey(em: EntityManager): Promise<SigningKey> {
    const { publicKey, privateKey } = await generateKeyPair(ALGORITHM, { crv: 'Ed25519', extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    return em.create(SigningKey, {
      kid,
      algorithm: ALGORITHM,
      publicJwk: { ...publicJwk, kid, alg: ALGORITHM, use: 'sig' },
      privateJwkSealed: this.secrets.seal(JSON.stringify(await exportJWK(privateKey))),
    });
  }

  /**
   * Re-reads the key set. Concurrent calls share one read, but a call made while a read is already
   * running gets a fresh read after it: that running read may predate the change that prompted the
   * call (a rotation notice arriving mid-read would otherwise be lost until the next interval).
   */
  private reload(): Promise<void> {
    if (!this.loading) {
      this.loading = this.load().finally(() => (this.loading = undefined));
      return this.loading;
    }
    this.reloadAgain ??= this.loading
      .catch(() => undefined)
      .then(() => {
        this.reloadAgain = undefined;
        return this.reload();
      });
    return this.reloadAgain;
  }

  private async load(): Promise<void> {
    const rows = await this.em
      .fork()
      .find(
        SigningKey,
        { $or: [{ retiredAt: null }, { retiredAt: { $gt: new Date(Date.now() - VERIFY_AFTER_RETIREMENT_SECONDS * 1000) } }] },
        { orderBy: { createdAt: 'desc' } },
      );
    const verifying = new Map<string, LoadedKey>();
    for (const row of rows) {
      const publicJwk = row.publicJwk as JWK;
      verifying.set(row.kid, { kid: row.kid, publicJwk, publicKey: (await importJWK(publicJwk, row.algorithm)) as CryptoKey });
    }
    const newest = rows.find((row) => !row.retiredAt);
    if (newest && newest.kid !== this.current?.kid) {
      const privateJwk = JSON.parse(this.secrets.open(newest.privateJwkSealed)) as JWK;
      this.current = {
        kid: newest.kid,
        algorithm: newest.algorithm,
        privateKey: createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' }),
      };
    }
    this.verifying = verifying;
    this.loadedAt = Date.now();
  }
}
