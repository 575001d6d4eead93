import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Locale } from '../../common/locale.js';
import type { SessionPrincipal } from '../../auth/principal.js';
import { SessionShoppers, type SessionOwner } from '../../auth/session-shoppers.service.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import {
  claimIdempotencyKey,
  findIdempotencyClaim,
  requestHashOf,
  type IdempotencyScope,
} from '../../infra/idempotency/idempotency-claims.js';
import { NotificationsService } from '../../notifications/notifications.service.js';
import { CartService } from '../cart/cart.service.js';
import { takeStock } from '../catalogue/stock.js';
import { insertOrders } from '../orders/order-writer.js';
import { OrdersService } from '../orders/orders.service.js';
import { paymentInserts, Payments, type Authorization } from '../payments/payments.service.js';
import { StorefrontEventRecorder } from '../events/storefront-event-recorder.js';
import { assertOrderable, CheckoutService, type PricedCart } from './checkout.service.js';
import type { PlaceOrderDto } from './dto/place-order.dto.js';

export interface PlacedOrder {
  order: Record<string, unknown>;
  /** True when the key had already placed this order: nothing new was written. */
  replayed: boolean;
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
    private readonly payments: Payments,
    private readonly events: StorefrontEventRecorder,
  ) {}

  /** `key` is the request's Idempotency-Key, already checked (see @IdempotencyKey). */
  /** `guestLocale`: the language of a guest's emails, from Accept-Language; Arabic when it names neither of ours. */
  async place(principal: SessionPrincipal, key: string, body: PlaceOrderDto, guestLocale?: Locale): Promise<PlacedOrder> {
    checkPaymentFields(body);
    const owner = await this.shoppers.ownerOf(principal);
    const requestHash = hashOf(body);
    const stored = await this.storedOrder(owner, key, requestHash);
    if (stored) return stored;
    const contact = await this.contactOf(owner, body, guestLocale);

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
      authorization = await this.payments.authorize(owner.storeId, body.card!.token, priced.totals.total, priced.cart.currency, key);
    }

    let outcome: Outcome;
    try {
      outcome = await this.em.fork().transactional((em) => this.write(em, owner, key, requestHash, body, contact, authorization));
    } catch (error) {
      if (authorization) await this.payments.release(authorization);
      throw error;
    }
    if (outcome.kind === 'replay') {
      if (authorization) await this.payments.release(authorization);
      return { order: await this.orders.detail(this.em, owner.storeId, outcome.orderId), replayed: true };
    }
    this.events.record({ storeId: owner.storeId, sessionId: principal.sessionId, kind: 'order_placed', orderId: outcome.orderId });
    if (authorization) await this.payments.captureAfterPlacement(outcome.orderId, authorization);
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
    const claim = await claimIdempotencyKey(em, idempotencyScopeOf(owner), key, requestHash, orderId);
    if (claim.kind === 'mismatch') throw new ApiError('IDEMPOTENCY_KEY_REUSED');
    if (claim.kind === 'replay') return { kind: 'replay', orderId: claim.resultId };

    const priced = await this.pricedOrderable(em, owner, true);
    const { cart, lines, totals, quote } = priced;
    if (authorization && authorization.amount !== totals.total) {
      throw new ApiError('PRICE_CHANGED', { details: { authorizedTotal: authorization.amount, total: totals.total } });
    }
    if (!(await takeStock(em, lines))) throw new Error('stock changed under a row lock');

    const fulfilment = quote.fulfilment!;
    const promise = priced.promise!;
    const batch = { storeId: owner.storeId, currency: cart.currency, pricesIncludeTax: quote.taxIncluded, taxRateBps: quote.taxRateBps };
    const numbers = await insertOrders(
      db,
      batch,
      [
        {
          id: orderId,
          sessionId: owner.sessionId,
          shopperId: owner.shopperId,
          email: contact.email,
          locale: contact.locale,
          status: 'open',
          paymentMethod: body.paymentMethod,
          paymentStatus: authorization ? 'authorized' : 'pending',
          fulfilmentType: fulfilment.type,
          fulfilmentStatus: 'unfulfilled',
          shippingMethodCode: fulfilment.type === 'delivery' ? fulfilment.shippingMethod.code : null,
          shippingAddress: fulfilment.type === 'delivery' ? JSON.stringify(fulfilment.address) : null,
          pickupLocationId: fulfilment.type === 'pickup' ? fulfilment.pickupLocation.id : null,
          itemCount: quote.itemCount,
          subtotal: totals.subtotal,
          shippingTotal: totals.shipping,
          taxTotal: totals.tax,
          total: totals.total,
          refundedTotal: 0,
          placedAt: null,
          promisedAfterSeconds: 'days' in promise ? promise.days * 86_400 : promise.hours * 3_600,
          paidAt: null,
          shippedAt: null,
          readyAt: null,
          deliveredAt: null,
          cancelledAt: null,
          refundedAt: null,
          test: body.test ?? false,
        },
      ],
      lines.map((line, position) => ({
        orderId,
        variantId: line.variantId,
        quantity: line.quantity,
        unitPrice: line.unitPrice,
        lineTotal: line.lineTotal,
        taxAmount: totals.lineTaxes[position],
        returnedQuantity: 0,
        position,
      })),
      [
        paymentInserts(owner.storeId, cart.currency, [
          this.payments.placementPayment(orderId, body.paymentMethod, totals.total, authorization),
        ]),
      ],
    );
    await this.carts.convert(em, cart.id, contact.email);
    return {
      kind: 'placed',
      orderId,
      number: numbers.get(orderId)!,
      total: totals.total,
      currency: cart.currency,
      itemCount: quote.itemCount,
    };
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
    const earlier = await findIdempotencyClaim(this.em, idempotencyScopeOf(owner), key, requestHash);
    if (!earlier) return null;
    if (earlier.kind === 'mismatch') throw new ApiError('IDEMPOTENCY_KEY_REUSED');
    return { order: await this.orders.detail(this.em, owner.storeId, earlier.resultId), replayed: true };
  }

  /** The signed-in shopper's email and language; a guest gives an email, and the language comes from Accept-Language. */
  private async contactOf(owner: SessionOwner, body: PlaceOrderDto, guestLocale?: Locale): Promise<{ email: string; locale: Locale }> {
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
    return { email: body.email.trim(), locale: guestLocale ?? 'ar' };
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
  const meaning = [body.paymentMethod, body.card?.token ?? null, body.email?.trim().toLowerCase() ?? null];
  // Only a test order adds its flag: an ordinary request's hash is the one it had before there were test orders.
  return requestHashOf(body.test ? [...meaning, 'test'] : meaning);
}

/** A checkout key is the session's: another session may use the same key for its own order. */
function idempotencyScopeOf(owner: SessionOwner): IdempotencyScope {
  return { storeId: owner.storeId, scope: `checkout:${owner.sessionId}` };
}
