import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import type { SessionPrincipal } from '../../auth/principal.js';
import { SessionShoppers, type SessionOwner } from '../../auth/session-shoppers.service.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { CartService, insufficientStock, type CartLine, type PricedLine, type StoredCart } from '../cart/cart.service.js';
import type { AddressSnapshot } from '../../common/address.js';
import type { ChooseFulfilmentDto, DeliveryAddressDto } from './dto/choose-fulfilment.dto.js';
import { shippingPrice, totalsOf, type Totals } from '../pricing/pricing.js';
import type { Bilingual } from '../../common/bilingual.js';
import { StorefrontEventRecorder } from '../events/storefront-event-recorder.js';

export interface DeliveryOption {
  code: string;
  name: Bilingual;
  /** After the free-over threshold: 0 when the subtotal reaches it. */
  price: number;
  /** Calendar dates in the store's time zone. */
  estimatedDelivery: { from: string; to: string };
}

export interface PickupOption {
  id: string;
  code: string;
  name: Bilingual;
  address: Bilingual;
  city: string;
  /** When an order placed now is ready to collect. */
  readyBy: string;
}

export type ChosenFulfilment =
  { type: 'delivery'; shippingMethod: DeliveryOption; address: AddressSnapshot } | { type: 'pickup'; pickupLocation: PickupOption };

export interface Quote {
  lines: CartLine[];
  itemCount: number;
  subtotal: number;
  shipping: number;
  tax: number;
  total: number;
  currency: string;
  taxIncluded: boolean;
  taxRateBps: number;
  fulfilment: ChosenFulfilment | null;
  hasProblems: boolean;
  options: { delivery: DeliveryOption[]; pickup: PickupOption[] };
}

/** A quote with what placing an order also needs. */
export interface PricedCart {
  cart: StoredCart;
  lines: PricedLine[];
  quote: Quote;
  totals: Totals;
  /** Days until the promised delivery, or hours until ready for pickup. */
  promise: { days: number } | { hours: number } | null;
}

interface DeliveryRow {
  id: string;
  code: string;
  name_en: string;
  name_ar: string;
  price: number;
  free_over: number | null;
  max_days: number;
  from_date: string;
  to_date: string;
}

interface PickupRow {
  id: string;
  code: string;
  name_en: string;
  name_ar: string;
  address_en: string;
  address_ar: string;
  city: string;
  preparation_hours: number;
  ready_by: string;
}

/** Quotes (totals, tax, delivery and pickup options) and the fulfilment choice, on the session's cart. */
@Injectable()
export class CheckoutService {
  constructor(
    private readonly em: EntityManager,
    private readonly shoppers: SessionShoppers,
    private readonly carts: CartService,
    private readonly events: StorefrontEventRecorder,
  ) {}

  async quote(principal: SessionPrincipal): Promise<Quote> {
    const owner = await this.shoppers.ownerOf(principal);
    const cart = await this.carts.findActive(this.em, owner);
    if (!cart) throw new ApiError('CART_EMPTY');
    const { quote } = await this.price(this.em, cart, await this.nonEmptyLines(this.em, cart));
    this.events.record({ storeId: principal.storeId, sessionId: principal.sessionId, kind: 'checkout_quoted' });
    return quote;
  }

  async chooseFulfilment(principal: SessionPrincipal, choice: ChooseFulfilmentDto): Promise<Quote> {
    return this.em.fork().transactional(async (em) => {
      const owner = await this.shoppers.ownerOf(principal, em);
      const cart = await this.carts.findActive(em, owner, true);
      if (!cart) throw new ApiError('CART_EMPTY');
      const lines = await this.nonEmptyLines(em, cart);
      let chosen: StoredCart;
      if (choice.type === 'pickup') {
        refuseFields(choice, ['shippingMethod', 'addressId', 'address'], 'pickup');
        if (!choice.pickupLocationId) throw required('pickupLocationId');
        const locationId = await this.carts.choosePickup(em, cart.id, owner.storeId, choice.pickupLocationId);
        if (!locationId) throw new ApiError('PICKUP_LOCATION_UNKNOWN');
        chosen = { ...cart, fulfilmentType: 'pickup', pickupLocationId: locationId, shippingMethodId: null, shippingAddress: null };
      } else {
        refuseFields(choice, ['pickupLocationId'], 'delivery');
        if (!choice.shippingMethod) throw required('shippingMethod');
        if ((choice.addressId === undefined) === (choice.address === undefined)) {
          throw invalidField('address', 'addressOrAddressId', {
            en: 'Give either addressId (a saved address) or address (inline), not both.',
            ar: 'أرسل addressId (عنوانًا محفوظًا) أو address (عنوانًا مكتوبًا)، وليس كليهما.',
          });
        }
        const address = choice.address ? snapshotOf(choice.address) : await savedAddress(em, owner, choice.addressId!);
        const methodId = await this.carts.chooseDelivery(em, cart.id, owner.storeId, choice.shippingMethod, address);
        if (!methodId) throw new ApiError('SHIPPING_METHOD_UNKNOWN', { details: { shippingMethod: choice.shippingMethod } });
        chosen = { ...cart, fulfilmentType: 'delivery', shippingMethodId: methodId, shippingAddress: address, pickupLocationId: null };
      }
      return (await this.price(em, chosen, lines)).quote;
    });
  }

  /** The cart's lines; an empty cart cannot be quoted or ordered. */
  async nonEmptyLines(em: EntityManager, cart: StoredCart): Promise<PricedLine[]> {
    const lines = await this.carts.lines(em, cart.id);
    if (lines.length === 0) throw new ApiError('CART_EMPTY');
    return lines;
  }

  /**
   * Prices a cart: current variant prices, the store's delivery and pickup options, the chosen
   * fulfilment (a choice no longer offered counts as none) and tax from the store's settings.
   */
  async price(em: EntityManager, cart: StoredCart, lines: PricedLine[]): Promise<PricedCart> {
    const db = em.getKysely();
    const subtotal = lines.reduce((sum, line) => sum + line.lineTotal, 0);
    // One round trip for the store's tax settings and its active delivery and pickup options.
    const { rows } = await sql<{ tax_rate_bps: number; prices_include_tax: boolean; delivery: DeliveryRow[]; pickup: PickupRow[] }>`
      select s.tax_rate_bps, s.prices_include_tax,
        coalesce((
          select json_agg(json_build_object(
            'id', sm.id, 'code', sm.code, 'name_en', sm.name_en, 'name_ar', sm.name_ar, 'price', sm.price,
            'free_over', sm.free_over, 'max_days', sm.max_days,
            'from_date', to_char((now() at time zone s.timezone)::date + sm.min_days, 'YYYY-MM-DD'),
            'to_date', to_char((now() at time zone s.timezone)::date + sm.max_days, 'YYYY-MM-DD')
          ) order by sm.position, sm.code)
          from shipping_methods sm where sm.store_id = s.id and sm.active), '[]') as delivery,
        coalesce((
          select json_agg(json_build_object(
            'id', pl.id, 'code', pl.code, 'name_en', pl.name_en, 'name_ar', pl.name_ar, 'address_en', pl.address_en,
            'address_ar', pl.address_ar, 'city', pl.city, 'preparation_hours', pl.preparation_hours,
            'ready_by', iso_utc(now() + make_interval(hours => pl.preparation_hours))
          ) order by pl.position, pl.code)
          from pickup_locations pl where pl.store_id = s.id and pl.active), '[]') as pickup
      from stores s where s.id = ${cart.storeId}`.execute(db);
    const store = rows[0];
    const settings = { taxRateBps: store.tax_rate_bps, pricesIncludeTax: store.prices_include_tax };
    const deliveryOptions = store.delivery.map((row) => ({ row, option: deliveryOption(row, subtotal) }));
    const pickupOptions = store.pickup.map((row) => ({ row, option: pickupOption(row) }));

    let fulfilment: ChosenFulfilment | null = null;
    let promise: PricedCart['promise'] = null;
    const method = deliveryOptions.find(({ row }) => cart.fulfilmentType === 'delivery' && row.id === cart.shippingMethodId);
    const location = pickupOptions.find(({ row }) => cart.fulfilmentType === 'pickup' && row.id === cart.pickupLocationId);
    if (method && cart.shippingAddress) {
      fulfilment = { type: 'delivery', shippingMethod: method.option, address: cart.shippingAddress };
      promise = { days: method.row.max_days };
    } else if (location) {
      fulfilment = { type: 'pickup', pickupLocation: location.option };
      promise = { hours: location.row.preparation_hours };
    }
    const shipping = fulfilment?.type === 'delivery' ? fulfilment.shippingMethod.price : 0;
    const totals = totalsOf(
      lines.map((line) => line.lineTotal),
      shipping,
      settings,
    );
    const shown = lines.map(({ categoryId: _category, brandId: _brand, ...line }) => line);
    return {
      cart,
      lines,
      totals,
      promise,
      quote: {
        lines: shown,
        itemCount: shown.reduce((sum, line) => sum + line.quantity, 0),
        subtotal: totals.subtotal,
        shipping: totals.shipping,
        tax: totals.tax,
        total: totals.total,
        currency: cart.currency,
        taxIncluded: settings.pricesIncludeTax,
        taxRateBps: settings.taxRateBps,
        fulfilment,
        hasProblems: shown.some((line) => line.problems.length > 0),
        options: { delivery: deliveryOptions.map(({ option }) => option), pickup: pickupOptions.map(({ option }) => option) },
      },
    };
  }
}

/** Refuses a cart that cannot be ordered as it is: a fulfilment is chosen, every line purchasable and in stock. */
export function assertOrderable(priced: PricedCart): void {
  if (!priced.quote.fulfilment) throw new ApiError('FULFILMENT_REQUIRED');
  const unavailable = priced.lines.filter((line) => !line.purchasable).map((line) => line.variantId);
  if (unavailable.length > 0) throw new ApiError('VARIANT_UNAVAILABLE', { details: { variantIds: unavailable } });
  const short = priced.lines.filter((line) => line.available < line.quantity);
  if (short.length > 0) {
    throw insufficientStock(short.map((line) => ({ variantId: line.variantId, requested: line.quantity, available: line.available })));
  }
}

function deliveryOption(row: DeliveryRow, subtotal: number): DeliveryOption {
  return {
    code: row.code,
    name: { en: row.name_en, ar: row.name_ar },
    price: shippingPrice({ price: row.price, freeOver: row.free_over }, subtotal),
    estimatedDelivery: { from: row.from_date, to: row.to_date },
  };
}

function pickupOption(row: PickupRow): PickupOption {
  return {
    id: row.id,
    code: row.code,
    name: { en: row.name_en, ar: row.name_ar },
    address: { en: row.address_en, ar: row.address_ar },
    city: row.city,
    readyBy: row.ready_by,
  };
}

function snapshotOf(address: DeliveryAddressDto): AddressSnapshot {
  return {
    fullName: address.fullName.trim(),
    phone: address.phone.trim(),
    line1: address.line1.trim(),
    line2: address.line2?.trim() ?? '',
    district: address.district?.trim() ?? '',
    city: address.city.trim(),
    region: address.region?.trim() ?? '',
    postalCode: address.postalCode?.trim() ?? '',
    country: address.country,
  };
}

async function savedAddress(em: EntityManager, owner: SessionOwner, addressId: string): Promise<AddressSnapshot> {
  if (!owner.shopperId) throw new ApiError('SIGN_IN_REQUIRED');
  const { rows } = await sql<AddressSnapshot>`
    select full_name as "fullName", phone, line1, line2, district, city, region, postal_code as "postalCode", country
    from addresses where id = ${addressId} and shopper_id = ${owner.shopperId} and store_id = ${owner.storeId}`.execute(em.getKysely());
  if (!rows[0]) throw new ApiError('ADDRESS_UNKNOWN');
  return rows[0];
}

function refuseFields(choice: ChooseFulfilmentDto, fields: (keyof ChooseFulfilmentDto)[], type: string): void {
  const present = fields.find((field) => choice[field] !== undefined);
  if (present) {
    throw invalidField(present, 'notForThisType', {
      en: `This field does not apply to ${type}.`,
      ar: `هذا الحقل لا ينطبق على ${type === 'pickup' ? 'الاستلام' : 'التوصيل'}.`,
    });
  }
}

function required(field: string) {
  return invalidField(field, 'isNotEmpty', { en: 'This field is required here.', ar: 'هذا الحقل مطلوب هنا.' });
}
