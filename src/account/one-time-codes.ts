import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { createHmac, randomInt } from 'node:crypto';
import { sql } from 'kysely';
import { ApiError } from '../common/errors/api-error.js';
import { AppConfig } from '../infra/config/app-config.js';
import { deriveKey } from '../infra/crypto/derived-keys.js';
import { loadMasterKey } from '../infra/crypto/master-key.js';
import { safeEqual } from '../infra/crypto/secrets.js';
import { countRateLimitRefusal } from '../infra/telemetry/metrics.js';
import type { OneTimeCodePurpose, PendingRegistration } from './entities/one-time-code.entity.js';

export const CODE_LIFETIME_MINUTES = 10;
export const MAX_WRONG_ATTEMPTS = 5;
export const CODES_PER_WINDOW = 3;
export const CODE_WINDOW_MINUTES = 15;
/** First key of the two-key advisory locks taken here, so they cannot collide with other features' locks. */
const ADVISORY_LOCK_NAMESPACE = 0x07c0de;

export interface IssuedCode {
  id: string;
  code: string;
  expiresAt: string;
}

export interface MatchedCode {
  id: string;
  purpose: OneTimeCodePurpose;
  registration: PendingRegistration | null;
}

/**
 * Six-digit codes sent by email. Only an HMAC of (store, address, code) is stored, under a key
 * derived from the master key: a plain hash of a million possibilities would fall offline at once.
 * The newest code of an address is the only one that counts.
 */
@Injectable()
export class OneTimeCodes {
  private readonly key: Buffer;

  constructor(
    private readonly em: EntityManager,
    config: AppConfig,
  ) {
    this.key = deriveKey(loadMasterKey(config), 'one-time-codes');
  }

  /**
   * A new code for the address, refused with 429 when it already had CODES_PER_WINDOW in the window.
   * The advisory lock makes count-then-insert atomic per address across instances.
   */
  async issue(storeId: string, email: string, purpose: OneTimeCodePurpose, registration: PendingRegistration | null): Promise<IssuedCode> {
    const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
    return this.em.fork().transactional(async (em) => {
      const db = em.getKysely();
      await sql`select pg_advisory_xact_lock(${ADVISORY_LOCK_NAMESPACE}, hashtext(${storeId} || ':' || ${email}))`.execute(db);
      const { rows } = await sql<{ issued: number; retry_after: number | null }>`
        select count(*)::int as issued,
               ceil(extract(epoch from min(created_at) + make_interval(mins => ${CODE_WINDOW_MINUTES}) - clock_timestamp()))::int as retry_after
        from one_time_codes
        where store_id = ${storeId} and email_normalized = ${email}
          and created_at > clock_timestamp() - make_interval(mins => ${CODE_WINDOW_MINUTES})`.execute(db);
      const { issued, retry_after } = rows[0];
      if (issued >= CODES_PER_WINDOW) {
        countRateLimitRefusal('one_time_code');
        throw new ApiError('ONE_TIME_CODE_RATE_LIMITED', { headers: { 'Retry-After': Math.max(1, retry_after ?? 1) } });
      }
      // clock_timestamp(), not now(): the window above and these times must not go back to the transaction's start.
      const inserted = await sql<{ id: string; expires_at: string }>`
        insert into one_time_codes (store_id, email_normalized, code_hash, purpose, registration, created_at, expires_at)
        values (${storeId}, ${email}, ${this.hash(storeId, email, code)}, ${purpose},
                ${registration === null ? null : JSON.stringify(registration)}::jsonb,
                clock_timestamp(), clock_timestamp() + make_interval(mins => ${CODE_LIFETIME_MINUTES}))
        returning id, iso_utc(expires_at) as expires_at`.execute(db);
      return { id: inserted.rows[0].id, code, expiresAt: inserted.rows[0].expires_at };
    });
  }

  /** Forgets a code that could not be delivered, so it does not count against the address's requests. */
  async withdraw(id: string): Promise<void> {
    await sql`delete from one_time_codes where id = ${id}`.execute(this.em.getKysely());
  }

  /**
   * Checks a code against the address's newest one. Every attempt is counted BEFORE the comparison, by
   * a conditional UPDATE, so however many guesses race, at most MAX_WRONG_ATTEMPTS are ever compared;
   * after that many wrong ones even the right code is refused.
   * The code is not consumed here: `consume` does that inside the sign-in transaction.
   */
  async match(storeId: string, email: string, code: string): Promise<MatchedCode> {
    const db = this.em.getKysely();
    const { rows } = await sql<MatchedCode & { code_hash: string }>`
      update one_time_codes set attempts = attempts + 1
      where id = (select id from one_time_codes where store_id = ${storeId} and email_normalized = ${email}
                  order by created_at desc, id desc limit 1)
        and consumed_at is null and expires_at > clock_timestamp() and attempts < ${MAX_WRONG_ATTEMPTS}
      returning id, code_hash, purpose, registration`.execute(db);
    const row = rows[0];
    if (row && safeEqual(row.code_hash, this.hash(storeId, email, code))) {
      return { id: row.id, purpose: row.purpose, registration: row.registration };
    }
    if (row) throw new ApiError('ONE_TIME_CODE_INVALID');
    throw new ApiError(await this.whyRefused(storeId, email));
  }

  /** Marks a matched code used; exactly one of two concurrent consumers succeeds. */
  async consume(em: EntityManager, id: string): Promise<void> {
    const { rows } = await sql`
      update one_time_codes set consumed_at = clock_timestamp()
      where id = ${id} and consumed_at is null and expires_at > clock_timestamp()
      returning id`.execute(em.getKysely());
    if (rows.length === 0) throw new ApiError('ONE_TIME_CODE_EXPIRED');
  }

  private async whyRefused(storeId: string, email: string) {
    const { rows } = await sql<{ consumed: boolean; expired: boolean; attempts: number }>`
      select consumed_at is not null as consumed, expires_at <= clock_timestamp() as expired, attempts
      from one_time_codes where store_id = ${storeId} and email_normalized = ${email}
      order by created_at desc, id desc limit 1`.execute(this.em.getKysely());
    const latest = rows[0];
    if (!latest) return 'ONE_TIME_CODE_INVALID' as const;
    if (latest.consumed || latest.expired) return 'ONE_TIME_CODE_EXPIRED' as const;
    return 'ONE_TIME_CODE_ATTEMPTS_EXCEEDED' as const;
  }

  private hash(storeId: string, email: string, code: string): string {
    return createHmac('sha256', this.key).update(`${storeId}\n${email}\n${code}`).digest('hex');
  }
}
