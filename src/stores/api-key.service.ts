import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { isScope, SCOPES, type Scope } from '../common/scopes.js';
import { BoundedMap } from '../common/cache/bounded-map.js';
import { AppConfig } from '../infra/config/app-config.js';
import { sha256Hex } from '../infra/crypto/secrets.js';
import { ChangeFeed } from '../infra/database/change-feed.js';
import { displayPrefix, generateApiKey, isWellFormedApiKey } from './api-key-format.js';
import { ApiKey } from './entities/api-key.entity.js';

export interface ResolvedApiKey {
  id: string;
  storeId: string;
  scopes: Scope[];
  rateLimitPerMinute: number;
}

export interface IssuedApiKey {
  id: string;
  key: string;
  rateLimitPerMinute: number;
  scopes: Scope[];
}

interface CacheEntry {
  value: ResolvedApiKey | null;
  expiresAt: number;
}

const KEY_CHANNEL = 'api_key_changed';
/** Safety net only: revocations reach every instance at once through the change feed. */
const CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 10_000;

/**
 * Issues, revokes and resolves API keys. Resolution is cached per instance because it sits on the
 * mint and refresh path; every change is broadcast on a PostgreSQL channel so that a key revoked by
 * the command line stops working on every running instance immediately.
 */
@Injectable()
export class ApiKeyService {
  /** Live keys and unknown ones apart, so a flood of made-up keys cannot push live ones out. */
  private readonly known = new BoundedMap<string, CacheEntry>(CACHE_MAX_ENTRIES);
  private readonly unknown = new BoundedMap<string, CacheEntry>(CACHE_MAX_ENTRIES);
  /**
   * Bumped by every invalidation. A lookup that was in flight when an invalidation arrived must not
   * cache what it read: the row may predate the change (e.g. a revocation committed and notified
   * between the SELECT and its answer), and caching it would undo the invalidation for the TTL.
   */
  private generation = 0;

  constructor(
    private readonly em: EntityManager,
    private readonly config: AppConfig,
    private readonly changes: ChangeFeed,
  ) {
    this.changes.subscribe(KEY_CHANNEL, (keyHash) => this.invalidate(keyHash));
    this.changes.onReconnect(() => this.invalidate());
  }

  /** Issues a key; pass `em` to make it part of a larger transaction. */
  async issue(
    storeId: string,
    options: { rateLimitPerMinute?: number; scopes?: string[] } = {},
    em: EntityManager = this.em.fork(),
  ): Promise<IssuedApiKey> {
    const scopes = normaliseKeyScopes(options.scopes);
    const rateLimitPerMinute = options.rateLimitPerMinute ?? this.config.DEFAULT_KEY_RATE_LIMIT;
    if (!Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute < 1) {
      throw new RangeError('rate limit must be a positive whole number');
    }
    const key = generateApiKey();
    const record = em.create(ApiKey, {
      store: storeId,
      keyHash: sha256Hex(key),
      displayPrefix: displayPrefix(key),
      scopes,
      rateLimitPerMinute,
    });
    await em.flush();
    return { id: record.id, key, rateLimitPerMinute, scopes };
  }

  async revoke(keyId: string): Promise<{ id: string; revokedAt: Date } | null> {
    const em = this.em.fork();
    const record = await em.findOne(ApiKey, { id: keyId });
    if (!record) return null;
    record.revokedAt ??= new Date();
    await em.flush();
    this.invalidate(record.keyHash);
    await this.changes.publish(KEY_CHANNEL, record.keyHash);
    return { id: record.id, revokedAt: record.revokedAt };
  }

  async list(storeId: string) {
    const keys = await this.em.fork().find(ApiKey, { store: storeId }, { orderBy: { createdAt: 'asc' } });
    return keys.map((key) => ({
      id: key.id,
      displayPrefix: key.displayPrefix,
      scopes: key.scopes,
      rateLimitPerMinute: key.rateLimitPerMinute,
      createdAt: key.createdAt,
      revokedAt: key.revokedAt ?? null,
    }));
  }

  /** The live key a raw `X-Api-Key` value stands for, or null when it is malformed, unknown or revoked. */
  async resolve(rawKey: unknown): Promise<ResolvedApiKey | null> {
    if (!isWellFormedApiKey(rawKey)) return null;
    const keyHash = sha256Hex(rawKey);
    const cached = this.known.get(keyHash) ?? this.unknown.get(keyHash);
    if (cached && cached.expiresAt > Date.now()) return cached.value;

    const generation = this.generation;
    const record = await this.em.fork().findOne(ApiKey, { keyHash, revokedAt: null });
    const value = record
      ? { id: record.id, storeId: record.store, scopes: record.scopes as Scope[], rateLimitPerMinute: record.rateLimitPerMinute }
      : null;
    if (generation === this.generation) (value ? this.known : this.unknown).set(keyHash, { value, expiresAt: Date.now() + CACHE_TTL_MS });
    return value;
  }

  /** Forgets one key (or all of them) and voids lookups still in flight. */
  private invalidate(keyHash?: string): void {
    this.generation += 1;
    for (const cache of [this.known, this.unknown]) {
      if (keyHash === undefined) cache.clear();
      else cache.delete(keyHash);
    }
  }
}

function normaliseKeyScopes(requested: string[] | undefined): Scope[] {
  if (!requested) return [...SCOPES];
  const unknown = requested.filter((scope) => !isScope(scope));
  if (unknown.length > 0) throw new RangeError(`unknown scopes: ${unknown.join(', ')}`);
  if (requested.length === 0) throw new RangeError('a key needs at least one scope');
  return SCOPES.filter((scope) => requested.includes(scope));
}
