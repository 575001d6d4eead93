import { EntityManager } from '@mikro-orm/postgresql';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import { ApiError } from '../../common/errors/api-error.js';
import type { PaymentStatus } from './entities/payment.entity.js';
import type { PaymentMethod } from './payment-methods.js';
import { PAYMENT_PROVIDER, type PaymentProvider } from './payment-provider.js';

/** A payment row to insert. Times are epoch seconds; null means the transaction's `now()`. */
export interface NewPayment {
  /** Null for an attempt that never became an order: a declined card. */
  orderId: string | null;
  provider: string;
  method: PaymentMethod;
  status: PaymentStatus;
  amount: number;
  reference: string | null;
  createdAt: number | null;
  updatedAt: number | null;
}

/**
 * The one way payment rows are inserted (placement one at a time, the demo by the thousand): the
 * `new_payments` part of a WITH statement, over unnest()ed arrays.
 */
export function paymentInserts(storeId: string, currency: string, payments: NewPayment[]): RawBuilder<unknown> {
  return sql`
    new_payments as (
      insert into payments (store_id, order_id, provider, method, status, amount, currency, provider_reference, created_at, updated_at)
      select ${storeId}, p.order_id, p.provider, p.method, p.status, p.amount, ${currency}, p.reference,
             coalesce(to_timestamp(p.created_at), now()), coalesce(to_timestamp(p.updated_at), now())
      from unnest(${payments.map((p) => p.orderId)}::uuid[], ${payments.map((p) => p.provider)}::text[], ${payments.map((p) => p.method)}::text[],
                  ${payments.map((p) => p.status)}::text[], ${payments.map((p) => p.amount)}::int[], ${payments.map((p) => p.reference)}::text[],
                  ${payments.map((p) => p.createdAt)}::float8[], ${payments.map((p) => p.updatedAt)}::float8[])
        as p(order_id, provider, method, status, amount, reference, created_at, updated_at)
    )`;
}

/** An amount reserved on a card before its order is written. */
export interface Authorization {
  reference: string;
  amount: number;
}

/**
 * An order's payment as its caller read it under the order's row lock. The order row is the lock
 * every change of an order takes, so money moves are serialised with everything else done to it.
 */
export interface LockedPayment {
  /** The order. */
  id: string;
  payment_method: PaymentMethod;
  /** The order's payment status, kept current by this service. */
  payment_status: string;
  payment_id: string | null;
  payment_reference: string | null;
  payment_amount: number | null;
  /** The moment of the change being made: the time written on the payment and the order. */
  at: string;
}

/**
 * Everything money does for an order, through the configured PaymentProvider: authorise before the
 * order is written, capture, void, refund, collect cash on delivery, and the retry of captures that
 * failed after placement. Writes the `payments` rows and the order's payment state (`payment_status`,
 * `paid_at`); nothing else writes them.
 */
@Injectable()
export class Payments {
  private readonly logger = new Logger(Payments.name);

  constructor(
    private readonly em: EntityManager,
    @Inject(PAYMENT_PROVIDER) private readonly provider: PaymentProvider,
  ) {}

  /**
   * Reserves `amount` on the card, before any row is locked (no network call under a lock). A decline
   * is PAYMENT_DECLINED, and is recorded as a `declined` payment of no order (the Insights failed
   * payments) once the provider has answered.
   */
  async authorize(storeId: string, token: string, amount: number, currency: string, idempotencyKey: string): Promise<Authorization> {
    const result = await this.provider.authorize({ token, amount, currency, idempotencyKey });
    if (!result.approved) {
      await this.recordDeclined(storeId, amount, currency, result.reason);
      throw new ApiError('PAYMENT_DECLINED', { details: { reason: result.reason } });
    }
    return { reference: result.reference, amount };
  }

  /** Releases an authorisation whose order was not written (or was already written by a retry). Best effort. */
  async release(authorization: Authorization): Promise<void> {
    try {
      await this.provider.void(authorization.reference);
    } catch (error) {
      this.logger.error(`voiding card authorization ${authorization.reference} failed: ${String(error)}`);
    }
  }

  /** The payment of a new order: `authorized` for a card, `pending` for cash on delivery. Part of the placing statement. */
  placementPayment(orderId: string, method: PaymentMethod, amount: number, authorization: Authorization | undefined): NewPayment {
    return {
      orderId,
      provider: authorization ? this.provider.name : 'cash_on_delivery',
      method,
      status: authorization ? 'authorized' : 'pending',
      amount,
      reference: authorization?.reference ?? null,
      createdAt: null,
      updatedAt: null,
    };
  }

  /**
   * Captures a new order's card after its transaction committed. A failed capture leaves the order
   * `authorized`: the retry (captureStalled) or the order's next step captures it later.
   */
  async captureAfterPlacement(orderId: string, authorization: Authorization): Promise<void> {
    try {
      await this.provider.capture(authorization.reference, authorization.amount);
    } catch (error) {
      this.logger.error(`card capture failed for order ${orderId}; it stays authorized: ${String(error)}`);
      return;
    }
    await this.em.fork().transactional(async (em) => {
      const db = em.getKysely();
      await sql`update payments set status = 'captured', updated_at = now() where order_id = ${orderId} and status = 'authorized'`.execute(
        db,
      );
      await sql`update orders set payment_status = 'paid', paid_at = now() where id = ${orderId} and payment_status = 'authorized'`.execute(
        db,
      );
    });
  }

  /** Captures an authorised card before the order moves on; true when it did. */
  async captureIfAuthorized(em: EntityManager, order: LockedPayment): Promise<boolean> {
    if (order.payment_status !== 'authorized') return false;
    await this.call('capture', order, () => this.provider.capture(order.payment_reference!, order.payment_amount!));
    await this.markPaid(em, order);
    return true;
  }

  /** Cash on delivery is collected when the order is handed over. */
  async collectCash(em: EntityManager, order: LockedPayment): Promise<void> {
    if (order.payment_method !== 'cash_on_delivery' || order.payment_status !== 'pending') return;
    await this.markPaid(em, order);
  }

  /** Releases an order's payment that was never taken: voids an authorised card; cash never collected is voided too. */
  async voidUncollected(em: EntityManager, order: LockedPayment): Promise<void> {
    if (order.payment_status === 'authorized') {
      await this.call('void', order, () => this.provider.void(order.payment_reference!));
    }
    const db = em.getKysely();
    await sql`update payments set status = 'voided', updated_at = ${order.at}::timestamptz where id = ${order.payment_id}`.execute(db);
    await sql`update orders set payment_status = 'voided' where id = ${order.id}`.execute(db);
    order.payment_status = 'voided';
  }

  /**
   * Returns `amount` of what was paid (a card through the provider; cash is handed back in person) and
   * records the order's payment as `refunded` once `fullyRefunded`, else `partially_refunded`.
   */
  async refund(em: EntityManager, order: LockedPayment, amount: number, fullyRefunded: boolean): Promise<void> {
    if (amount > 0 && order.payment_method === 'card') {
      await this.call('refund', order, () => this.provider.refund(order.payment_reference!, amount));
    }
    const db = em.getKysely();
    if (fullyRefunded) {
      await sql`update payments set status = 'refunded', updated_at = ${order.at}::timestamptz where id = ${order.payment_id}`.execute(db);
    }
    order.payment_status = fullyRefunded ? 'refunded' : 'partially_refunded';
    await sql`update orders set payment_status = ${order.payment_status} where id = ${order.id}`.execute(db);
  }

  /**
   * Cards authorised at placement whose capture failed after the commit, captured again, oldest first:
   * open orders placed more than `graceSeconds` ago (the placement's own capture has had its chance)
   * and within the last 7 days (authorisations expire). Each order is captured under its row lock
   * and only while still authorised, so instances running this at the same time capture each once.
   */
  async captureStalled(options: { graceSeconds?: number; limit?: number } = {}): Promise<{ captured: number; failed: number }> {
    const { rows } = await sql<{ id: string }>`
      select id from orders
      where payment_method = 'card' and payment_status = 'authorized' and status = 'open'
        and placed_at < now() - make_interval(secs => ${options.graceSeconds ?? 120}) and placed_at > now() - interval '7 days'
      order by placed_at
      limit ${options.limit ?? 100}`.execute(this.em.getKysely());
    const outcome = { captured: 0, failed: 0 };
    for (const { id } of rows) {
      try {
        const captured = await this.em.fork().transactional(async (em) => {
          const order = await this.lockOpenOrder(em, id);
          return order ? this.captureIfAuthorized(em, order) : false;
        });
        if (captured) {
          outcome.captured += 1;
          this.logger.log(`order ${id}: stalled card payment captured`);
        }
      } catch {
        outcome.failed += 1;
      }
    }
    return outcome;
  }

  private async lockOpenOrder(em: EntityManager, orderId: string): Promise<LockedPayment | undefined> {
    const { rows } = await sql`select 1 from orders where id = ${orderId} and status = 'open' for update`.execute(em.getKysely());
    return rows.length > 0 ? this.underLock(em, orderId) : undefined;
  }

  /**
   * The order's payment, once the caller holds the order's row lock, with the time of the change
   * being made: read after the lock, so it never precedes the previous change.
   */
  async underLock(em: EntityManager, orderId: string): Promise<LockedPayment> {
    const { rows } = await sql<LockedPayment>`
      select o.id, o.payment_method, o.payment_status, pay.id as payment_id, pay.provider_reference as payment_reference,
             pay.amount as payment_amount, clock_timestamp()::text as at
      from orders o
      left join lateral (select id, provider_reference, amount from payments where order_id = o.id order by created_at limit 1) pay on true
      where o.id = ${orderId}`.execute(em.getKysely());
    return rows[0];
  }

  private async markPaid(em: EntityManager, order: LockedPayment): Promise<void> {
    const db = em.getKysely();
    await sql`update payments set status = 'captured', updated_at = ${order.at}::timestamptz where id = ${order.payment_id}`.execute(db);
    await sql`update orders set payment_status = 'paid', paid_at = ${order.at}::timestamptz where id = ${order.id}`.execute(db);
    order.payment_status = 'paid';
  }

  private async call(operation: string, order: LockedPayment, providerCall: () => Promise<void>): Promise<void> {
    try {
      await providerCall();
    } catch (error) {
      this.logger.error(`payment ${operation} failed for order ${order.id}: ${String(error)}`);
      throw new ApiError('PAYMENT_PROVIDER_FAILED', { details: { operation } });
    }
  }

  /** A failure to record the decline is logged: the shopper's answer is the decline either way. */
  private async recordDeclined(storeId: string, amount: number, currency: string, reason: string): Promise<void> {
    const declined: NewPayment = {
      orderId: null,
      provider: this.provider.name,
      method: 'card',
      status: 'declined',
      amount,
      reference: null,
      createdAt: null,
      updatedAt: null,
    };
    try {
      await sql`with ${paymentInserts(storeId, currency, [declined])} select 1`.execute(this.em.getKysely());
    } catch (error) {
      this.logger.error(`declined card payment (${reason}) of store ${storeId} not recorded: ${String(error)}`);
    }
  }
}
