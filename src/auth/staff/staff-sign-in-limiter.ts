import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { ApiError } from '../../common/errors/api-error.js';
import { countRateLimitRefusal } from '../../infra/telemetry/metrics.js';

/** Failed sign-ins allowed per (store, address) in the window: a password guessed at slowly. */
export const STAFF_FAILURES_PER_ACCOUNT = 10;
/** Failed sign-ins allowed per client address in the window, whatever accounts they name: a spray across accounts. */
export const STAFF_FAILURES_PER_CLIENT = 100;
export const STAFF_SIGN_IN_WINDOW_MINUTES = 15;

const RATE_LIMITED_MESSAGE = {
  en: 'Too many failed sign-ins for this email address or from this network. Retry after the time in Retry-After.',
  ar: 'محاولات دخول فاشلة كثيرة لهذا البريد الإلكتروني أو من هذه الشبكة. أعد المحاولة بعد المدة المذكورة في Retry-After.',
};

interface Counted {
  account_failures: number;
  account_retry: number | null;
  client_failures: number;
  client_retry: number | null;
}

/**
 * Failed dashboard sign-ins, counted in the database so every instance sees the same counts, per
 * (store, address) and per client address. Each attempt first records itself as a failure, then
 * counts: racing attempts all see one another, so no more than the limit are ever let through to the
 * password check. A successful attempt takes its record back.
 */
@Injectable()
export class StaffSignInLimiter {
  constructor(private readonly em: EntityManager) {}

  /** Records the attempt as a failure in advance; 429 rate_limited when either count is over its limit. Returns the record's id. */
  async begin(storeId: string, email: string, clientAddress: string): Promise<string> {
    const db = this.em.getKysely();
    const window = sql`make_interval(mins => ${STAFF_SIGN_IN_WINDOW_MINUTES})`;
    const { rows } = await sql<{ id: string }>`
      with expired as (
        delete from staff_sign_in_failures
        where ((store_id = ${storeId} and email_normalized = ${email}) or client_address = ${clientAddress})
          and created_at <= clock_timestamp() - ${window}
      )
      insert into staff_sign_in_failures (store_id, email_normalized, client_address, created_at)
      values (${storeId}, ${email}, ${clientAddress}, clock_timestamp())
      returning id`.execute(db);
    const attemptId = rows[0].id;
    const account = sql`store_id = ${storeId} and email_normalized = ${email}`;
    const client = sql`client_address = ${clientAddress}`;
    const counted = await sql<Counted>`
      select count(*) filter (where ${account})::int as account_failures,
             ceil(extract(epoch from min(created_at) filter (where ${account}) + ${window} - clock_timestamp()))::int as account_retry,
             count(*) filter (where ${client})::int as client_failures,
             ceil(extract(epoch from min(created_at) filter (where ${client}) + ${window} - clock_timestamp()))::int as client_retry
      from staff_sign_in_failures
      where ((${account}) or ${client}) and created_at > clock_timestamp() - ${window}`.execute(db);
    const { account_failures, account_retry, client_failures, client_retry } = counted.rows[0];
    const waits = [
      ...(account_failures > STAFF_FAILURES_PER_ACCOUNT ? [account_retry ?? 1] : []),
      ...(client_failures > STAFF_FAILURES_PER_CLIENT ? [client_retry ?? 1] : []),
    ];
    if (waits.length > 0) {
      await this.release(attemptId);
      countRateLimitRefusal('staff_sign_in');
      const retryAfterSeconds = Math.max(1, ...waits);
      throw new ApiError('RATE_LIMITED', {
        headers: { 'Retry-After': retryAfterSeconds },
        details: { retryAfterSeconds },
        message: RATE_LIMITED_MESSAGE,
      });
    }
    return attemptId;
  }

  /** The attempt did not fail: it stops counting. */
  async release(attemptId: string): Promise<void> {
    await sql`delete from staff_sign_in_failures where id = ${attemptId}`.execute(this.em.getKysely());
  }

  /** Failures outside the window count for nothing; the hourly purge deletes them. */
  async purgeExpired(): Promise<number> {
    const deleted = await sql`
      delete from staff_sign_in_failures
      where created_at < now() - make_interval(mins => ${2 * STAFF_SIGN_IN_WINDOW_MINUTES})`.execute(this.em.getKysely());
    return Number(deleted.numAffectedRows ?? 0);
  }
}
