import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { ApiError } from '../common/errors/api-error.js';
import { countRateLimitRefusal } from '../infra/telemetry/metrics.js';

export const FAILED_SIGN_INS_PER_WINDOW = 10;
export const SIGN_IN_WINDOW_MINUTES = 15;

/**
 * Failed password sign-ins per (store, address), counted in the database so every instance sees the
 * same count. Each attempt first records itself as a failure, then counts: racing attempts all see
 * one another, so no more than the limit are ever let through to the password check. A successful
 * attempt takes its record back.
 */
@Injectable()
export class SignInLimiter {
  constructor(private readonly em: EntityManager) {}

  /** Records the attempt as a failure in advance; 429 when the address is over its limit. Returns the record's id. */
  async begin(storeId: string, email: string): Promise<string> {
    const db = this.em.getKysely();
    const { rows } = await sql<{ id: string }>`
      with expired as (
        delete from sign_in_failures
        where store_id = ${storeId} and email_normalized = ${email}
          and created_at <= clock_timestamp() - make_interval(mins => ${SIGN_IN_WINDOW_MINUTES})
      )
      insert into sign_in_failures (store_id, email_normalized, created_at) values (${storeId}, ${email}, clock_timestamp())
      returning id`.execute(db);
    const attemptId = rows[0].id;
    const counted = await sql<{ failures: number; retry_after: number }>`
      select count(*)::int as failures,
             ceil(extract(epoch from min(created_at) + make_interval(mins => ${SIGN_IN_WINDOW_MINUTES}) - clock_timestamp()))::int as retry_after
      from sign_in_failures
      where store_id = ${storeId} and email_normalized = ${email}
        and created_at > clock_timestamp() - make_interval(mins => ${SIGN_IN_WINDOW_MINUTES})`.execute(db);
    const { failures, retry_after } = counted.rows[0];
    if (failures > FAILED_SIGN_INS_PER_WINDOW) {
      await this.release(attemptId);
      countRateLimitRefusal('shopper_sign_in');
      throw new ApiError('SIGN_IN_RATE_LIMITED', {
        headers: { 'Retry-After': Math.max(1, retry_after) },
        suggestion: {
          code: 'SIGN_IN_WITH_CODE',
          message_en: 'Sign in with a one-time code sent to this email address instead.',
          message_ar: 'سجّل الدخول برمز لمرة واحدة يُرسل إلى هذا البريد الإلكتروني بدلًا من ذلك.',
          path: '/v1/account/one-time-codes',
        },
      });
    }
    return attemptId;
  }

  /** The attempt did not fail, or was refused before the password was checked: it stops counting. */
  async release(attemptId: string): Promise<void> {
    await sql`delete from sign_in_failures where id = ${attemptId}`.execute(this.em.getKysely());
  }
}
