import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { isScope, SCOPES, type Scope } from '../auth/access/scopes.js';
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
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly em: EntityManager,
    private readonly config: AppConfig,
    private readonly changes: ChangeFeed,
  ) {
    this.changes.subscribe(KEY_CHANNEL, (keyHash) => this.cache.delete(keyHash));
    this.changes.onReconnect(() => this.cache.clear());
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
    await this.changes.publish(KEY_CHANNEL, record.keyHash);
    return { id: record.id, key, rateLimitPerMinute, scopes };
  }

  async revoke(keyId: string): Promise<{ id: string; revokedAt: Date } | null> {
    const em = this.em.fork();
    const record = await em.findOne(ApiKey, { id: keyId });
    if (!record) return null;
    record.revokedAt ??= new Date();
    await em.flush();
    this.cache.delete(record.keyHash);
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
    const cached = this.cache.get(keyHash);
    if (cached && cached.expiresAt > Date.now()) return cached.value;

    const record = await this.em.fork().findOne(ApiKey, { keyHash, revokedAt: null });
    const value = record
      ? { id: record.id, storeId: record.store, scopes: record.scopes as Scope[], rateLimitPerMinute: record.rateLimitPerMinute }
      : null;
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
    this.cache.set(keyHash, { value, expiresAt: Date.now() + CACHE_TTL_MS });
    return value;
  }
}

function normaliseKeyScopes(requested: string[] | undefined): Scope[] {
  if (!requested) return [...SCOPES];
  const unknown = requested.filter((scope) => !isScope(scope));
  if (unknown.length > 0) throw new RangeError(`unknown scopes: ${unknown.join(', ')}`);
  if (requested.length === 0) throw new RangeError('a key needs at least one scope');
  return SCOPES.filter((scope) => requested.includes(scope));
}
