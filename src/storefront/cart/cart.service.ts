import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import type { SessionPrincipal } from '../../auth/principal.js';
import { SessionShoppers, type SessionOwner } from '../../auth/session-shoppers.service.js';
import { ApiError } from '../../common/errors/api-error.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import type { VariantOption } from '../catalogue/entities/product-variant.entity.js';
import type { AddressSnapshot } from '../../common/address.js';
import type { FulfilmentType } from './entities/cart.entity.js';
import { StoreService } from '../../stores/store.service.js';
import { adoptGuestOrders } from '../orders/order-writer.js';
import { StorefrontEventRecorder } from '../events/storefront-event-recorder.js';
import { MAX_CART_LINES, MAX_LINE_QUANTITY } from './cart-limits.js';

export type LineProblem = { code: 'VARIANT_UNAVAILABLE' } | { code: 'INSUFFICIENT_STOCK'; available: number };

/** A cart line as shoppers see it, priced from the variant's current price. */
export interface CartLine {
  id: string;
  variantId: string;
  product: { id: string; slug: string; name: { en: string; ar: string } };
  sku: string;
  name: { en: string; ar: string };
  options: VariantOption[];
  quantity: number;
  unitPrice: number;
  lineTotal: number;
  currency: string;
  /** Units in stock now; the line cannot be ordered while it is below `quantity`. */
  available: number;
  /** The variant exists in this store, its product is active and it is priced in the store's currency. */
  purchasable: boolean;
  problems: LineProblem[];
}

/** What checkout needs of a line beyond what the shopper sees: snapshots for the order line. */
export interface PricedLine extends CartLine {
  categoryId: string | null;
  brandId: string | null;
}

export interface StoredCart {
  id: string;
  storeId: string;
  currency: string;
  fulfilmentType: FulfilmentType | null;
  shippingMethodId: string | null;
  shippingAddress: AddressSnapshot | null;
  pickupLocationId: string | null;
}

export interface CartView {
  /** Null until the first item is added: reading a cart never creates one. */
  id: string | null;
  currency: string;
  items: CartLine[];
  /** Units over all lines. */
  itemCount: number;
  subtotal: number;
  /** True when some line cannot be ordered as it is (see each line's problems). */
  hasProblems: boolean;
}

interface LineRow {
  id: string;
  variant_id: string;
  quantity: number;
  product_id: string;
  slug: string;
  name_en: string;
  name_ar: string;
  sku: string;
  options: VariantOption[];
  price: number;
  currency: string;
  stock: number;
  purchasable: boolean;
  category_id: string | null;
  brand_id: string | null;
}

interface CartRow {
  id: string;
  store_id: string;
  currency: string;
  fulfilment_type: FulfilmentType | null;
  shipping_method_id: string | null;
  shipping_address: AddressSnapshot | null;
  pickup_location_id: string | null;
}

/**
 * The cart of a session: the shopper's when one is attached, else the session's own anonymous cart.
 * Prices, stock and purchasability are read from the catalogue on every read and change: the cart
 * stores only variant and quantity.
 */
@Injectable()
export class CartService {
  constructor(
    private readonly em: EntityManager,
    private readonly shoppers: SessionShoppers,
    private readonly stores: StoreService,
    private readonly events: StorefrontEventRecorder,
  ) {}

  async view(principal: SessionPrincipal): Promise<CartView> {
    const owner = await this.shoppers.ownerOf(principal);
    const cart = await this.findActive(this.em, owner);
    if (!cart)
      return { id: null, currency: await this.stores.currencyOf(owner.storeId), items: [], itemCount: 0, subtotal: 0, hasProblems: false };
    return renderCart(cart, await this.lines(this.em, cart.id));
  }

  /** Adds `quantity` units of a variant; a variant already in the cart has its quantity increased. */
  async addItem(principal: SessionPrincipal, variantId: string, quantity: number): Promise<CartView> {
    const { view, productId } = await this.em.fork().transactional(async (em) => {
      const owner = await this.shoppers.ownerOf(principal, em);
      const variant = await purchasableVariant(em, owner.storeId, variantId);
      const cart = await this.activeOrCreated(em, owner);
      if (variant.currency !== cart.currency) throw unavailable(variantId);
      const db = em.getKysely();
      const { rows } = await sql<{ quantity: number | null; lines: number }>`
        select (select quantity from cart_items where cart_id = ${cart.id} and variant_id = ${variantId}) as quantity,
               (select count(*)::int from cart_items where cart_id = ${cart.id}) as lines`.execute(db);
      const [{ quantity: existing, lines }] = rows;
      const requested = (existing ?? 0) + quantity;
      if (requested > MAX_LINE_QUANTITY) throw cartLimitReached({ variantId, quantityInCart: existing });
      if (requested > variant.stock) throw insufficientStock([{ variantId, requested, available: variant.stock }]);
      if (existing === null && lines >= MAX_CART_LINES) {
        throw cartLimitReached();
      }
      await sql`
        with item as (
          insert into cart_items (store_id, cart_id, variant_id, quantity) values (${owner.storeId}, ${cart.id}, ${variantId}, ${requested})
          on conflict (cart_id, variant_id) do update set quantity = excluded.quantity, updated_at = now()
          returning cart_id
        )
        update carts set updated_at = now() where id = (select cart_id from item)`.execute(db);
      return { view: renderCart(cart, await this.lines(em, cart.id)), productId: variant.product_id };
    });
    this.events.record({ storeId: principal.storeId, sessionId: principal.sessionId, kind: 'cart_line_added', productId });
    return view;
  }

  async setQuantity(principal: SessionPrincipal, itemId: string, quantity: number): Promise<CartView> {
    return this.em.fork().transactional(async (em) => {
      const { cart, variantId } = await this.ownItem(em, principal, itemId);
      const variant = await purchasableVariant(em, cart.storeId, variantId);
      if (variant.currency !== cart.currency) throw unavailable(variantId);
      if (quantity > variant.stock) throw insufficientStock([{ variantId, requested: quantity, available: variant.stock }]);
      await sql`update cart_items set quantity = ${quantity}, updated_at = now() where id = ${itemId}`.execute(em.getKysely());
      await touch(em, cart.id);
      return renderCart(cart, await this.lines(em, cart.id));
    });
  }

  async removeItem(principal: SessionPrincipal, itemId: string): Promise<CartView> {
    return this.em.fork().transactional(async (em) => {
      const { cart } = await this.ownItem(em, principal, itemId);
      await sql`delete from cart_items where id = ${itemId}`.execute(em.getKysely());
      await touch(em, cart.id);
      return renderCart(cart, await this.lines(em, cart.id));
    });
  }

  /** The owner's active cart, optionally locked for the rest of the caller's transaction. */
  /** The cart became an order: it is kept, no longer active, with the email the order went to. */
  async convert(em: EntityManager, cartId: string, email: string): Promise<void> {
    await sql`update carts set status = 'converted', email = ${email}, updated_at = now() where id = ${cartId}`.execute(em.getKysely());
  }

  /** Chooses pickup at one of the store's active locations; the location's id, or null when there is none. */
  async choosePickup(em: EntityManager, cartId: string, storeId: string, pickupLocationId: string): Promise<string | null> {
    const { rows } = await sql<{ id: string }>`
      update carts set fulfilment_type = 'pickup', pickup_location_id = pl.id, shipping_method_id = null,
             shipping_address = null, updated_at = now()
      from pickup_locations pl
      where carts.id = ${cartId} and pl.id = ${pickupLocationId} and pl.store_id = ${storeId} and pl.active
      returning pl.id`.execute(em.getKysely());
    return rows[0]?.id ?? null;
  }

  /** Chooses delivery by one of the store's active methods (by code) to `address`; the method's id, or null when there is none. */
  async chooseDelivery(
    em: EntityManager,
    cartId: string,
    storeId: string,
    methodCode: string,
    address: AddressSnapshot,
  ): Promise<string | null> {
    const { rows } = await sql<{ id: string }>`
      update carts set fulfilment_type = 'delivery', shipping_method_id = sm.id, shipping_address = ${JSON.stringify(address)}::jsonb,
             pickup_location_id = null, updated_at = now()
      from shipping_methods sm
      where carts.id = ${cartId} and sm.store_id = ${storeId} and sm.code = ${methodCode} and sm.active
      returning sm.id`.execute(em.getKysely());
    return rows[0]?.id ?? null;
  }

  async findActive(em: EntityManager, owner: SessionOwner, lock = false): Promise<StoredCart | null> {
    const { rows } = await sql<CartRow>`
      select id, store_id, currency, fulfilment_type, shipping_method_id, shipping_address, pickup_location_id
      from carts
      where store_id = ${owner.storeId} and status = 'active'
        and ${owner.shopperId ? sql`shopper_id = ${owner.shopperId}` : sql`session_id = ${owner.sessionId} and shopper_id is null`}
      ${lock ? sql`for update` : sql``}`.execute(em.getKysely());
    return rows[0] ? toStoredCart(rows[0]) : null;
  }

  /** The cart's lines, priced and checked against the catalogue as it is now, oldest line first. */
  async lines(em: EntityManager, cartId: string): Promise<PricedLine[]> {
    const { rows } = await sql<LineRow>`
      select ci.id, ci.variant_id, ci.quantity, p.id as product_id, p.slug, p.name_en, p.name_ar, pv.sku, pv.options,
             pv.price, pv.currency, pv.stock, (p.status = 'active' and pv.store_id = c.store_id and pv.currency = c.currency) as purchasable,
             p.category_id, p.brand_id
      from cart_items ci
      join carts c on c.id = ci.cart_id
      join product_variants pv on pv.id = ci.variant_id
      join products p on p.id = pv.product_id
      where ci.cart_id = ${cartId}
      order by ci.created_at, ci.id`.execute(em.getKysely());
    return rows.map(toLine);
  }

  /**
   * Sign-in rule (README, "Cart on sign-in"): the anonymous cart's lines join the shopper's cart; a
   * variant in both keeps the quantity of the anonymous cart, because that is what the shopper chose
   * last. The session's guest orders move to the shopper too. Runs inside the sign-in transaction;
   * the shopper row lock serialises concurrent sign-ins.
   */
  async mergeIntoShopper(em: EntityManager, storeId: string, sessionId: string, shopperId: string): Promise<void> {
    const db = em.getKysely();
    await sql`select 1 from shoppers where id = ${shopperId} and store_id = ${storeId} for update`.execute(db);
    await adoptGuestOrders(em, { storeId, sessionId, shopperId });
    const anonymous = await sql<{ id: string }>`
      select id from carts
      where store_id = ${storeId} and session_id = ${sessionId} and shopper_id is null and status = 'active'
      for update`.execute(db);
    const anonymousId = anonymous.rows[0]?.id;
    if (!anonymousId) return;
    const existing = await sql<{ id: string }>`
      select id from carts where store_id = ${storeId} and shopper_id = ${shopperId} and status = 'active' for update`.execute(db);
    const targetId = existing.rows[0]?.id;
    if (!targetId) {
      await sql`update carts set shopper_id = ${shopperId}, updated_at = now() where id = ${anonymousId}`.execute(db);
      return;
    }
    await sql`
      insert into cart_items (store_id, cart_id, variant_id, quantity, created_at, updated_at)
      select store_id, ${targetId}, variant_id, quantity, created_at, now() from cart_items where cart_id = ${anonymousId}
      on conflict (cart_id, variant_id) do update set quantity = excluded.quantity, updated_at = now()`.execute(db);
    await sql`
      update carts target set
        fulfilment_type = coalesce(target.fulfilment_type, source.fulfilment_type),
        shipping_method_id = coalesce(target.shipping_method_id, source.shipping_method_id),
        shipping_address = coalesce(target.shipping_address, source.shipping_address),
        pickup_location_id = coalesce(target.pickup_location_id, source.pickup_location_id),
        updated_at = now()
      from carts source where target.id = ${targetId} and source.id = ${anonymousId}`.execute(db);
    await sql`update carts set status = 'merged', updated_at = now() where id = ${anonymousId}`.execute(db);
  }

  /**
   * The owner's active cart, created on first use and locked. Two first adds racing each other both
   * insert: the partial unique index lets one win and the other do nothing, then both read the winner.
   */
  private async activeOrCreated(em: EntityManager, owner: SessionOwner): Promise<StoredCart> {
    await sql`
      insert into carts (store_id, session_id, shopper_id, currency)
      select id, ${owner.sessionId}, ${owner.shopperId}, currency from stores where id = ${owner.storeId}
      on conflict do nothing`.execute(em.getKysely());
    const cart = await this.findActive(em, owner, true);
    if (!cart) throw new Error(`no active cart after creating one for session ${owner.sessionId}`);
    return cart;
  }

  /** A line of the session's own cart (404 for any other), with its cart locked. */
  private async ownItem(em: EntityManager, principal: SessionPrincipal, itemId: string) {
    if (!UUID_PATTERN.test(itemId)) throw new ApiError('NOT_FOUND');
    const cart = await this.findActive(em, await this.shoppers.ownerOf(principal, em), true);
    if (!cart) throw new ApiError('NOT_FOUND');
    const { rows } = await sql<{ variant_id: string }>`
      select variant_id from cart_items where id = ${itemId} and cart_id = ${cart.id}`.execute(em.getKysely());
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    return { cart, variantId: rows[0].variant_id };
  }
}

export function renderCart(cart: StoredCart, lines: PricedLine[]): CartView {
  const items = lines.map(({ categoryId: _category, brandId: _brand, ...line }) => line);
  return {
    id: cart.id,
    currency: cart.currency,
    items,
    itemCount: items.reduce((sum, line) => sum + line.quantity, 0),
    subtotal: items.reduce((sum, line) => sum + line.lineTotal, 0),
    hasProblems: items.some((line) => line.problems.length > 0),
  };
}

export function insufficientStock(lines: { variantId: string; requested: number; available: number }[]): ApiError {
  return new ApiError('INSUFFICIENT_STOCK', { details: { lines } });
}

function unavailable(variantId: string): ApiError {
  return new ApiError('VARIANT_UNAVAILABLE', { details: { variantId } });
}

function cartLimitReached(details: Record<string, unknown> = {}): ApiError {
  return new ApiError('CART_LIMIT_REACHED', { details: { maxLines: MAX_CART_LINES, maxQuantityPerLine: MAX_LINE_QUANTITY, ...details } });
}

async function purchasableVariant(em: EntityManager, storeId: string, variantId: string) {
  const { rows } = await sql<{ stock: number; currency: string; product_id: string }>`
    select pv.stock, pv.currency, pv.product_id from product_variants pv join products p on p.id = pv.product_id
    where pv.id = ${variantId} and pv.store_id = ${storeId} and p.status = 'active'`.execute(em.getKysely());
  if (!rows[0]) throw unavailable(variantId);
  return rows[0];
}

async function touch(em: EntityManager, cartId: string): Promise<void> {
  await sql`update carts set updated_at = now() where id = ${cartId}`.execute(em.getKysely());
}

function toStoredCart(row: CartRow): StoredCart {
  return {
    id: row.id,
    storeId: row.store_id,
    currency: row.currency,
    fulfilmentType: row.fulfilment_type,
    shippingMethodId: row.shipping_method_id,
    shippingAddress: row.shipping_address,
    pickupLocationId: row.pickup_location_id,
  };
}

function toLine(row: LineRow): PricedLine {
  const problems: LineProblem[] = [];
  if (!row.purchasable) problems.push({ code: 'VARIANT_UNAVAILABLE' });
  else if (row.stock < row.quantity) problems.push({ code: 'INSUFFICIENT_STOCK', available: row.stock });
  return {
    id: row.id,
    variantId: row.variant_id,
    product: { id: row.product_id, slug: row.slug, name: { en: row.name_en, ar: row.name_ar } },
    sku: row.sku,
    name: { en: row.name_en, ar: row.name_ar },
    options: row.options,
    quantity: row.quantity,
    unitPrice: row.price,
    lineTotal: row.price * row.quantity,
    currency: row.currency,
    available: row.stock,
    purchasable: row.purchasable,
    problems,
    categoryId: row.category_id,
    brandId: row.brand_id,
  };
}
