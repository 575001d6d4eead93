import { EntityManager } from '@mikro-orm/postgresql';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { createHash, randomUUID } from 'node:crypto';
import type { Locale } from '../../common/locale.js';
import type { SessionPrincipal } from '../../auth/access/principal.js';
import { SessionShoppers, type SessionOwner } from '../../auth/session-shoppers.service.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { NotificationsService } from '../../notifications/notifications.service.js';
import { CartService } from '../cart/cart.service.js';
import { OrdersService } from '../orders/orders.service.js';
import { assertOrderable, CheckoutService, type PricedCart } from './checkout.service.js';
import type { PlaceOrderDto } from './dto/place-order.dto.js';
import { PAYMENT_PROVIDER, type PaymentProvider } from '../payments/payment-provider.js';

/** 1 to 255 visible ASCII characters (a UUID is the usual choice). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

export interface PlacedOrder {
  order: Record<string, unknown>;
  /** True when the key had already placed this order: nothing new was written. */
  replayed: boolean;
}

interface Authorization {
  reference: string;
  amount: number;
}

type Outcome =
  | { kind: 'placed'; orderId: string; number: string; total: number; currency: string; itemCount: number }
  | { kind: 'replay'; orderId: string };

/**
 * Places the session's cart as an order, exactly once per Idempotency-Key.
 *
 * One transaction does everything: it first claims the key (a concurrent request with the same key
 * blocks on the primary key until this one ends, then answers the stored order), locks the cart and
 * its variants in id order, re-prices the cart, decrements stock conditionally and writes the order,
 * its lines and its payment. Any refusal rolls all of it back. A card is authorised before the
 * transaction (no network call while holding row locks), captured after commit, and voided when the
 * transaction does not commit.
 */
@Injectable()
export class OrderPlacementService {
  private readonly logger = new Logger(OrderPlacementService.name);

  constructor(
    private readonly em: EntityManager,
    private readonly shoppers: SessionShoppers,
    private readonly carts: CartService,
    private readonly checkout: CheckoutService,
    private readonly orders: OrdersService,
    private readonly notifications: NotificationsService,
    @Inject(PAYMENT_PROVIDER) private readonly payments: PaymentProvider,
  ) {}

  async place(principal: SessionPrincipal, key: string | undefined, body: PlaceOrderDto, acceptLanguage?: string): Promise<PlacedOrder> {
    if (key === undefined || !IDEMPOTENCY_KEY_PATTERN.test(key)) throw new ApiError('IDEMPOTENCY_KEY_REQUIRED');
    checkPaymentFields(body);
    const owner = await this.shoppers.ownerOf(principal);
    const requestHash = hashOf(body);
    const stored = await this.storedOrder(owner, key, requestHash);
    if (stored) return stored;
    const contact = await this.contactOf(owner, body, acceptLanguage);

    let authorization: Authorization | undefined;
    if (body.paymentMethod === 'card') {
      let priced: PricedCart;
      try {
        priced = await this.pricedOrderable(this.em, owner, false);
      } catch (error) {
        // The same key may have placed the order (and converted the cart) since the look-up above.
        const replay = await this.storedOrder(owner, key, requestHash);
        if (replay) return replay;
        throw error;
      }
      authorization = await this.authorize(body.card!.token, priced, key);
    }

    let outcome: Outcome;
    try {
      outcome = await this.em.fork().transactional((em) => this.write(em, owner, key, requestHash, body, contact, authorization));
    } catch (error) {
      if (authorization) await this.release(authorization);
      throw error;
    }
    if (outcome.kind === 'replay') {
      if (authorization) await this.release(authorization);
      return { order: await this.orders.detail(this.em, owner.storeId, outcome.orderId), replayed: true };
    }
    if (authorization) await this.capture(outcome.orderId, authorization);
    this.confirm(owner.storeId, contact, outcome);
    return { order: await this.orders.detail(this.em, owner.storeId, outcome.orderId), replayed: false };
  }

  private async write(
    em: EntityManager,
    owner: SessionOwner,
    key: string,
    requestHash: string,
    body: PlaceOrderDto,
    contact: { email: string; locale: Locale },
    authorization: Authorization | undefined,
  ): Promise<Outcome> {
    const db = em.getKysely();
    const orderId = randomUUID();
    // First statement: a concurrent request with this key waits here until this transaction ends.
    const claimed = await sql`
      insert into idempotency_keys (store_id, session_id, key, request_hash, order_id)
      values (${owner.storeId}, ${owner.sessionId}, ${key}, ${requestHash}, ${orderId})
      on conflict do nothing`.execute(db);
    if (Number(claimed.numAffectedRows ?? 0) === 0) {
      const existing = await this.findKey(em, owner, key);
      if (!existing) throw new Error('idempotency key conflicted but is not stored');
      if (existing.request_hash !== requestHash) throw new ApiError('IDEMPOTENCY_KEY_REUSED');
      return { kind: 'replay', orderId: existing.order_id };
    }

    const priced = await this.pricedOrderable(em, owner, true);
    const { cart, lines, totals, quote } = priced;
    if (authorization && authorization.amount !== totals.total) {
      throw new ApiError('PRICE_CHANGED', { details: { authorizedTotal: authorization.amount, total: totals.total } });
    }
    const sold = JSON.stringify(lines.map((line) => ({ variant_id: line.variantId, quantity: line.quantity })));
    const decremented = await sql`
      update product_variants pv set stock = pv.stock - sold.quantity
      from jsonb_to_recordset(${sold}::jsonb) as sold(variant_id uuid, quantity int)
      where pv.id = sold.variant_id and pv.stock >= sold.quantity`.execute(db);
    if (Number(decremented.numAffectedRows ?? 0) !== lines.length) throw new Error('stock changed under a row lock');

    const fulfilment = quote.fulfilment!;
    const promise = priced.promise!;
    const { rows } = await sql<{ number: string }>`
      insert into orders (id, store_id, session_id, shopper_id, email, locale, currency, payment_method, payment_status,
                          fulfilment_type, shipping_method_code, shipping_address, pickup_location_id,
                          item_count, subtotal, shipping_total, tax_total, total, prices_include_tax, promised_by)
      values (${orderId}, ${owner.storeId}, ${owner.sessionId}, ${owner.shopperId}, ${contact.email}, ${contact.locale}, ${cart.currency},
              ${body.paymentMethod}, ${authorization ? 'authorized' : 'pending'}, ${fulfilment.type},
              ${fulfilment.type === 'delivery' ? fulfilment.shippingMethod.code : null},
              ${fulfilment.type === 'delivery' ? JSON.stringify(fulfilment.address) : null}::jsonb,
              ${fulfilment.type === 'pickup' ? fulfilment.pickupLocation.id : null},
              ${quote.itemCount}, ${totals.subtotal}, ${totals.shipping}, ${totals.tax}, ${totals.total}, ${quote.taxIncluded},
              now() + ${'days' in promise ? sql`make_interval(days => ${promise.days})` : sql`make_interval(hours => ${promise.hours})`})
      returning number::text`.execute(db);
    const orderLines = JSON.stringify(
      lines.map((line, position) => ({
        product_id: line.product.id,
        variant_id: line.variantId,
        category_id: line.categoryId,
        brand_id: line.brandId,
        sku: line.sku,
        product_name_en: line.name.en,
        product_name_ar: line.name.ar,
        options: line.options,
        quantity: line.quantity,
        unit_price: line.unitPrice,
        line_total: line.lineTotal,
        tax_amount: totals.lineTaxes[position],
        position,
      })),
    );
    await sql`
      insert into order_lines (store_id, order_id, product_id, variant_id, category_id, brand_id, sku, product_name_en, product_name_ar,
                               options, quantity, unit_price, line_total, tax_amount, position)
      select ${owner.storeId}, ${orderId}, product_id, variant_id, category_id, brand_id, sku, product_name_en, product_name_ar,
             options, quantity, unit_price, line_total, tax_amount, position
      from jsonb_to_recordset(${orderLines}::jsonb) as line(product_id uuid, variant_id uuid, category_id uuid, brand_id uuid, sku text,
           product_name_en text, product_name_ar text, options jsonb, quantity int, unit_price int, line_total int, tax_amount int, position int)`.execute(
      db,
    );
    await sql`
      insert into payments (store_id, order_id, provider, method, status, amount, currency, provider_reference)
      values (${owner.storeId}, ${orderId}, ${authorization ? this.payments.name : 'cash_on_delivery'}, ${body.paymentMethod},
              ${authorization ? 'authorized' : 'pending'}, ${totals.total}, ${cart.currency}, ${authorization?.reference ?? null})`.execute(
      db,
    );
    await sql`update carts set status = 'converted', email = ${contact.email}, updated_at = now() where id = ${cart.id}`.execute(db);
    return { kind: 'placed', orderId, number: rows[0].number, total: totals.total, currency: cart.currency, itemCount: quote.itemCount };
  }

  /**
   * The session's cart, priced and checked. With `lock`, the cart row and then its variant rows (in
   * id order, so concurrent checkouts cannot deadlock) are locked, and stock is read after the lock.
   */
  private async pricedOrderable(em: EntityManager, owner: SessionOwner, lock: boolean): Promise<PricedCart> {
    const cart = await this.carts.findActive(em, owner, lock);
    if (!cart) throw new ApiError('CART_EMPTY');
    if (lock) {
      // The stock update's own lock strength: adding these variants to other carts (a foreign-key
      // check, KEY SHARE) need not wait for this order.
      await sql`
        select id from product_variants where id = any(select variant_id from cart_items where cart_id = ${cart.id})
        order by id for no key update`.execute(em.getKysely());
    }
    const priced = await this.checkout.price(em, cart, await this.checkout.nonEmptyLines(em, cart));
    assertOrderable(priced);
    return priced;
  }

  private async authorize(token: string, priced: PricedCart, key: string): Promise<Authorization> {
    const result = await this.payments.authorize({
      token,
      amount: priced.totals.total,
      currency: priced.cart.currency,
      idempotencyKey: key,
    });
    if (!result.approved) throw new ApiError('PAYMENT_DECLINED', { details: { reason: result.reason } });
    return { reference: result.reference, amount: priced.totals.total };
  }

  /** Captures after commit. A failed capture leaves the order `authorized`, to be captured again later. */
  private async capture(orderId: string, authorization: Authorization): Promise<void> {
    try {
      await this.payments.capture(authorization.reference, authorization.amount);
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

  private async release(authorization: Authorization): Promise<void> {
    try {
      await this.payments.void(authorization.reference);
    } catch (error) {
      this.logger.error(`voiding card authorization ${authorization.reference} failed: ${String(error)}`);
    }
  }

  /** The confirmation email is best effort: the order stands whether or not it goes out. */
  private confirm(storeId: string, contact: { email: string; locale: Locale }, placed: Extract<Outcome, { kind: 'placed' }>): void {
    this.notifications
      .send({
        storeId,
        to: contact.email,
        locale: contact.locale,
        template: 'order_confirmation',
        vars: { orderNumber: placed.number, total: placed.total, currency: placed.currency, itemCount: placed.itemCount },
      })
      .catch((error: unknown) => this.logger.warn(`order confirmation for order ${placed.orderId} not sent: ${String(error)}`));
  }

  private async storedOrder(owner: SessionOwner, key: string, requestHash: string): Promise<PlacedOrder | null> {
    const existing = await this.findKey(this.em, owner, key);
    if (!existing) return null;
    if (existing.request_hash !== requestHash) throw new ApiError('IDEMPOTENCY_KEY_REUSED');
    return { order: await this.orders.detail(this.em, owner.storeId, existing.order_id), replayed: true };
  }

  private async findKey(em: EntityManager, owner: SessionOwner, key: string) {
    const { rows } = await sql<{ request_hash: string; order_id: string }>`
      select request_hash, order_id from idempotency_keys
      where store_id = ${owner.storeId} and session_id = ${owner.sessionId} and key = ${key}`.execute(em.getKysely());
    return rows[0];
  }

  /** The signed-in shopper's email and language; a guest gives an email, and the language comes from Accept-Language. */
  private async contactOf(owner: SessionOwner, body: PlaceOrderDto, acceptLanguage?: string): Promise<{ email: string; locale: Locale }> {
    if (owner.shopperId) {
      const { rows } = await sql<{ email: string; locale: Locale }>`
        select email, locale from shoppers where id = ${owner.shopperId}`.execute(this.em.getKysely());
      return { email: body.email?.trim() ?? rows[0].email, locale: rows[0].locale };
    }
    if (!body.email) {
      throw invalidField('email', 'isNotEmpty', {
        en: 'A guest checkout needs a contact email address.',
        ar: 'يتطلب الطلب دون تسجيل الدخول بريدًا إلكترونيًا للتواصل.',
      });
    }
    return { email: body.email.trim(), locale: /^\s*en\b/i.test(acceptLanguage ?? '') ? 'en' : 'ar' };
  }
}

function checkPaymentFields(body: PlaceOrderDto): void {
  if (body.paymentMethod === 'card' && !body.card) {
    throw invalidField('card', 'isNotEmpty', { en: 'Card payments need card.token.', ar: 'يتطلب الدفع بالبطاقة الحقل card.token.' });
  }
  if (body.paymentMethod === 'cash_on_delivery' && body.card) {
    throw invalidField('card', 'notForThisMethod', {
      en: 'Cash on delivery takes no card.',
      ar: 'الدفع عند الاستلام لا يحتاج بطاقة.',
    });
  }
}

/** What makes two requests "the same" for an Idempotency-Key: the body's meaning, not its formatting. */
function hashOf(body: PlaceOrderDto): string {
  const canonical = JSON.stringify([body.paymentMethod, body.card?.token ?? null, body.email?.trim().toLowerCase() ?? null]);
  return createHash('sha256').update(canonical).digest('hex');
}
