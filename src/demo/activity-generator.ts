import { randomUUID } from 'node:crypto';
import { DAY, demoTimeline, HOUR, SECOND, type DemoDay, type Season } from './calendar.js';
import { shippingPrice, taxOf, totalsOf, withTax, type TaxSettings } from '../storefront/pricing/pricing.js';
import type { Locale } from '../common/locale.js';
import type { NewAddress, NewShopper } from '../account/shopper-writer.js';
import type {
  FulfilmentStatus,
  NewOrder,
  NewOrderLine,
  NewRefund,
  NewRefundLine,
  OrderPaymentStatus,
  OrderStatus,
} from '../storefront/orders/order-writer.js';
import type { PaymentMethod } from '../storefront/payments/payment-methods.js';
import type { NewPayment } from '../storefront/payments/payments.service.js';
import type { HistorySession } from '../auth/session-writer.js';
import { DemoPeople, type DemoAddress, type DemoPerson } from './people.js';
import { apportion, between, DynamicWeights, pick, randomStream, WeightedTable, type Random } from './random.js';
import type { PoolQuery } from './search-queries.js';
import { conversionFactors, historySessionId, writeDaySessions, type SearchRow, type SessionEvent, type SessionOrder } from './sessions.js';

export interface StoreProduct {
  id: string;
  /** When the product went on sale, epoch ms: it is not sold before. */
  launchedAt: number;
  /** Slug of the top-level category, and of the product's own category. */
  department: string | null;
  category: string | null;
  variants: { id: string; price: number }[];
}

export interface StoreContext {
  tax: TaxSettings;
  /** In a stable order (by SKU): the same catalogue gives the same draws. */
  products: StoreProduct[];
  shippingMethods: { code: string; price: number; freeOver: number | null; minDays: number; maxDays: number }[];
  pickupLocations: { id: string; city: string; preparationHours: number }[];
  queries: Record<Locale, WeightedTable<PoolQuery>>;
  resultCounts: Map<string, number>;
}

export interface ActivityBatch {
  shoppers: NewShopper[];
  addresses: NewAddress[];
  orders: NewOrder[];
  lines: NewOrderLine[];
  payments: NewPayment[];
  refunds: NewRefund[];
  refundLines: NewRefundLine[];
  /** The sessions that searches and orders name; the others exist only in their events. */
  sessions: HistorySession[];
  events: SessionEvent[];
  searches: SearchRow[];
}

export interface ActivityOptions {
  seed: number;
  orders: number;
  anchor: Date;
  /** Sessions started for each order placed (the inverse of the conversion rate), on average over the history. */
  sessionsPerOrder: number;
  /** Orders per yielded batch (a batch closes at the end of a day once it holds this many, or 80 times as many events). */
  batchSize: number;
}

/**
 * About one session in eleven searches (1.7 searches each), as on shops with a search box in view. The year's
 * searches by day and query are then past the builder's 5,000 rows (about 7,000 at the default 2,000 orders):
 * the demo store shows its refusal and the export instead.
 */
const SEARCHES_PER_ORDER = 5;
const GUEST_SHARE = 0.12;
/** Share of an order's buyer being a new shopper, from the window's start to its end (the base grows). */
const NEW_SHOPPER_SHARE: [start: number, end: number] = [0.5, 0.34];
/**
 * Who comes back: half of the first-time buyers never do; the others come back in proportion to a
 * Pareto-distributed appetite (a few buy very often), and each order may be their last.
 */
const ONE_TIME_BUYERS = 0.6;
const APPETITE_SHAPE = 1.6;
const APPETITE_CAP = 20;
const CHURN_AFTER_ORDER = 0.1;
const SIGNED_UP_NOT_BOUGHT = 0.15;
const IDLE_LATER_BUYS = 0.3;
const SIGN_UP_AT_CHECKOUT = 0.55;
const PICKUP_WHEN_NEARBY = 0.4;
const EXPRESS_SHARE = 0.22;
const CASH_ON_DELIVERY_SHARE: [start: number, end: number] = [0.48, 0.34];
const CANCELLED = 0.03;
const LATE_BASE = 0.085;
const LATE_IN_RUSH = 0.09;
const RETURN_BASE = 0.048;
const RETURN_PER_FASHION_SHARE = 0.07;
const SEARCHES_BY_SHOPPERS = 0.4;
const ARABIC_SHARE = 0.62;
const POPULARITY_EXPONENT = 1.1;
const POPULARITY_OFFSET = 4;
const EXPENSIVE = 100_000;
const LINE_COUNTS = WeightedTable.of([
  [1, 0.52],
  [2, 0.26],
  [3, 0.13],
  [4, 0.06],
  [5, 0.03],
]);
const QUANTITIES = WeightedTable.of([
  [1, 0.84],
  [2, 0.11],
  [3, 0.035],
  [4, 0.01],
  [5, 0.005],
]);
const VARIANT_POSITION_WEIGHTS = [0.4, 0.3, 0.18, 0.12];
const PERSON_CACHE_SIZE = 20_000;

/** What sells more in a season, by department or category slug of the demo catalogue. */
const SEASONAL_DEMAND: Partial<Record<Season, Record<string, number>>> = {
  eid: { fashion: 2.2, beauty: 1.9, cookware: 1.6, toys: 1.7 },
  ramadan: { 'kitchen-appliances': 1.4, cookware: 1.5 },
  mega_sale: { electronics: 2.4, 'kitchen-appliances': 1.6 },
  national_day: { thobes: 2, fashion: 1.2 },
  back_to_school: { laptops: 2.5, bags: 2.2, 'electronics-accessories': 1.4 },
  winter: { outdoor: 3, bedding: 1.3 },
  summer: { outdoor: 0.3 },
};

const seconds = (ms: number) => Math.round(ms / SECOND);
const secondsOrNull = (ms: number | null, anchor: number) => (ms === null || ms > anchor ? null : seconds(ms));

/**
 * Shoppers, their addresses, orders with lines and payments, and the sessions of one store with their
 * funnel events and searches, over the 18 months before the anchor, day by day in time order, in
 * batches. Deterministic for (seed, orders, sessions per order, anchor, catalogue); memory holds one
 * batch plus a few bytes per shopper and order.
 */
export function* generateActivity(context: StoreContext, options: ActivityOptions): Generator<ActivityBatch> {
  const timeline = demoTimeline(options.anchor, randomStream(options.seed, 1));
  const { anchor, windowStart, days } = timeline;
  const rng = randomStream(options.seed, 2);
  const searchRng = randomStream(options.seed, 3);
  const sessionRng = randomStream(options.seed, 6);
  const people = new DemoPeople(options.seed);
  const weights = days.map((day) => day.weight);
  const ordersPerDay = apportion(options.orders, weights);
  const searchesPerDay = apportion(Math.round(options.orders * SEARCHES_PER_ORDER), weights);
  const conversion = conversionFactors(sessionRng, days);
  const sessionsPerDay = apportion(
    Math.round(options.orders * options.sessionsPerOrder),
    days.map((day, d) => day.weight / conversion[d]),
  );
  const demand = new ProductDemand(context.products, randomStream(options.seed, 4));

  const shopperIds: string[] = [];
  /** Epoch ms. */
  const shopperCreatedAt: number[] = [];
  const shopperEmails: string[] = [];
  const emails = new Set<string>();
  const appetite = new DynamicWeights();
  const regulars = new PersonCache(people);
  const appetiteOf = () => Math.min(APPETITE_CAP, (1 - rng()) ** (-1 / APPETITE_SHAPE));
  let guests = 0;
  let batch = emptyBatch();

  const createShopper = (person: DemoPerson, signedUpAt: number, comesBack: number): number => {
    const index = appetite.add(comesBack);
    const id = randomUUID();
    shopperIds.push(id);
    shopperCreatedAt.push(signedUpAt);
    let email = `${person.emailLocal}@${person.emailDomain}`;
    for (let n = 2; emails.has(email); n++) email = `${person.emailLocal}${n}@${person.emailDomain}`;
    emails.add(email);
    shopperEmails.push(email);
    const createdAt = seconds(signedUpAt);
    batch.shoppers.push({
      id,
      email,
      firstName: person.firstName,
      lastName: person.lastName,
      phone: person.phone,
      locale: person.locale,
      marketingOptIn: person.marketingOptIn,
      emailVerifiedAt: person.emailVerified ? seconds(Math.min(anchor, signedUpAt + between(rng, 30 * SECOND, 0.5 * HOUR))) : null,
      createdAt,
    });
    person.addresses.forEach((address, i) =>
      batch.addresses.push({ ...address, shopperId: id, isDefault: i === 0, createdAt: createdAt + i * 60 }),
    );
    return index;
  };

  for (let d = 0; d < days.length; d++) {
    const day = days[d];
    const progress = d / Math.max(1, days.length - 1);
    const products = demand.tableFor(day, d);
    const shoppersAtDayStart = shopperIds.length;
    const ordersToday: SessionOrder[] = [];
    let newToday = 0;

    for (const placedAt of timesOfDay(rng, day, ordersPerDay[d], anchor)) {
      let buyer: { person: DemoPerson; shopperIndex: number | null };
      if (rng() < GUEST_SHARE) {
        buyer = { person: people.person('guest', guests++), shopperIndex: null };
      } else {
        const newShare = NEW_SHOPPER_SHARE[0] + (NEW_SHOPPER_SHARE[1] - NEW_SHOPPER_SHARE[0]) * progress;
        let index: number;
        if (appetite.total <= 0 || rng() < newShare) {
          const person = people.person('shopper', shopperIds.length);
          const signedUpAt =
            rng() < SIGN_UP_AT_CHECKOUT
              ? placedAt - between(rng, 2 * 60 * SECOND, 25 * 60 * SECOND)
              : Math.max(windowStart - 120 * DAY, placedAt - -Math.log(1 - rng()) * 45 * DAY);
          index = createShopper(person, signedUpAt, rng() < ONE_TIME_BUYERS ? 0 : appetiteOf());
          newToday++;
        } else {
          index = appetite.draw(rng);
          if (rng() < CHURN_AFTER_ORDER) appetite.set(index, 0);
        }
        buyer = { person: regulars.get(index), shopperIndex: index };
      }
      const sessionId = historySessionId(placedAt);
      const shopperId = buyer.shopperIndex === null ? null : shopperIds[buyer.shopperIndex];
      const placed = placeOrder(rng, context, batch, {
        person: buyer.person,
        sessionId,
        shopperId,
        email: buyer.shopperIndex === null ? guestEmail(buyer.person) : shopperEmails[buyer.shopperIndex],
        placedAt,
        day,
        progress,
        anchor,
        products,
      });
      ordersToday.push({
        ...placed,
        sessionId,
        placedAt,
        shopperId,
        shopperSince: buyer.shopperIndex === null ? null : shopperCreatedAt[buyer.shopperIndex],
        locale: buyer.person.locale,
      });
    }

    // Some sign up and never buy (or not yet).
    const idle = Math.floor(newToday * SIGNED_UP_NOT_BOUGHT + rng());
    for (let i = 0; i < idle; i++) {
      const signedUpAt = Math.min(anchor - SECOND, day.start + rng() * DAY);
      createShopper(people.person('shopper', shopperIds.length), signedUpAt, rng() < IDLE_LATER_BUYS ? appetiteOf() / 2 : 0);
    }

    writeDaySessions(
      sessionRng,
      {
        day,
        anchor,
        sessions: sessionsPerDay[d],
        conversion: conversion[d] / options.sessionsPerOrder,
        orders: ordersToday,
        searches: searchesPerDay[d],
        products,
        visitor: () => {
          const shopperIndex =
            shoppersAtDayStart > 0 && searchRng() < SEARCHES_BY_SHOPPERS ? Math.floor(searchRng() * shoppersAtDayStart) : null;
          if (shopperIndex === null) return { shopperId: null, locale: searchRng() < ARABIC_SHARE ? 'ar' : 'en' };
          return { shopperId: shopperIds[shopperIndex], locale: regulars.get(shopperIndex).locale };
        },
        query: (locale) => {
          const query = context.queries[locale].draw(searchRng);
          return { query: query.query, resultCount: context.resultCounts.get(query.normalized) ?? 0 };
        },
      },
      batch,
    );

    if (batch.orders.length >= options.batchSize || batch.events.length >= 80 * options.batchSize || d === days.length - 1) {
      yield batch;
      batch = emptyBatch();
    }
  }
}

interface OrderInput {
  person: DemoPerson;
  sessionId: string;
  shopperId: string | null;
  email: string;
  placedAt: number;
  day: DemoDay;
  progress: number;
  anchor: number;
  products: WeightedTable<StoreProduct>;
}

/** Writes the order into the batch; what its session needs of it. */
function placeOrder(
  rng: Random,
  context: StoreContext,
  batch: ActivityBatch,
  input: OrderInput,
): Pick<SessionOrder, 'id' | 'productIds' | 'paymentMethod' | 'total'> {
  const { person, placedAt, anchor } = input;
  const address = person.addresses.length > 1 && rng() >= 0.8 ? pick(rng, person.addresses.slice(1)) : person.addresses[0];
  const pickupNearby = context.pickupLocations.filter((location) => location.city === address.city);
  const pickup = pickupNearby.length > 0 && rng() < PICKUP_WHEN_NEARBY ? pick(rng, pickupNearby) : null;
  const method =
    pickup || context.shippingMethods.length === 0
      ? null
      : context.shippingMethods.length > 1 && rng() < EXPRESS_SHARE
        ? pick(rng, context.shippingMethods.slice(1))
        : context.shippingMethods[0];
  const [codStart, codEnd] = CASH_ON_DELIVERY_SHARE;
  const paymentMethod: PaymentMethod = rng() < codStart + (codEnd - codStart) * input.progress ? 'cash_on_delivery' : 'card';

  const chosen: StoreProduct[] = [];
  const lineCount = LINE_COUNTS.draw(rng);
  for (let attempt = 0; chosen.length < lineCount && attempt < lineCount * 4; attempt++) {
    const product = input.products.draw(rng);
    if (!chosen.includes(product)) chosen.push(product);
  }
  const priced = chosen.map((product) => {
    const variant = product.variants[variantPosition(rng, product.variants.length)];
    const quantity = variant.price >= EXPENSIVE ? (rng() < 0.97 ? 1 : 2) : QUANTITIES.draw(rng);
    return { product, variantId: variant.id, unitPrice: variant.price, quantity };
  });
  const lineTotals = priced.map((line) => line.unitPrice * line.quantity);
  const goods = lineTotals.reduce((sum, amount) => sum + amount, 0);
  const totals = totalsOf(lineTotals, method ? shippingPrice(method, goods) : 0, context.tax);

  // The whole life of the order; whatever would happen after the anchor has not happened yet.
  const promiseWindow = pickup ? pickup.preparationHours * HOUR : (method?.maxDays ?? 5) * DAY;
  const promisedBy = placedAt + promiseWindow;
  const late = rng() < LATE_BASE + LATE_IN_RUSH * input.day.rush;
  let shippedAt: number | null = null;
  let readyAt: number | null = null;
  let deliveredAt: number;
  if (pickup) {
    readyAt = late ? promisedBy + between(rng, 0.3 * HOUR, 20 * HOUR) : placedAt + promiseWindow * between(rng, 0.3, 0.97);
    deliveredAt = readyAt + HOUR + rng() ** 2 * 72 * HOUR;
  } else {
    shippedAt = placedAt + Math.min(between(rng, 3 * HOUR, 30 * HOUR), promiseWindow * 0.4);
    if (late) deliveredAt = promisedBy + HOUR + rng() ** 2 * 4 * DAY;
    else {
      const earliest = Math.max(shippedAt + HOUR, placedAt + (method?.minDays ?? 0) * DAY * 0.8);
      const latest = promisedBy - 10 * 60 * SECOND;
      deliveredAt = earliest < latest ? earliest + (latest - earliest) * rng() ** 0.8 : shippedAt + (promisedBy - shippedAt) * 0.5;
    }
  }
  const firstStep = readyAt ?? shippedAt!;
  const cancelledAt = rng() < CANCELLED ? placedAt + (firstStep - placedAt) * between(rng, 0.05, 0.9) : null;
  const cardPaidAt = placedAt + between(rng, 5 * SECOND, 90 * SECOND);
  const fashionShare = priced.filter((line) => line.product.department === 'fashion').length / priced.length;
  const returnAt = rng() < RETURN_BASE + RETURN_PER_FASHION_SHARE * fashionShare ? deliveredAt + between(rng, 2 * DAY, 20 * DAY) : null;

  const id = randomUUID();
  const returned = priced.map(() => 0);
  let status: OrderStatus = 'open';
  let fulfilmentStatus: FulfilmentStatus = 'unfulfilled';
  let paymentStatus: OrderPaymentStatus = paymentMethod === 'card' ? 'paid' : 'pending';
  let paidAt: number | null = paymentMethod === 'card' ? cardPaidAt : null;
  let refundedAt: number | null = null;
  let happenedCancel: number | null = null;

  if (cancelledAt !== null && cancelledAt <= anchor) {
    status = 'cancelled';
    fulfilmentStatus = 'cancelled';
    happenedCancel = cancelledAt;
    shippedAt = null;
    readyAt = null;
    deliveredAt = Infinity;
    if (paymentMethod === 'card') {
      paymentStatus = 'refunded';
      refundedAt = cancelledAt;
    } else paymentStatus = 'voided';
  } else if (cancelledAt === null && deliveredAt <= anchor) {
    status = 'completed';
    fulfilmentStatus = 'delivered';
    paymentStatus = 'paid';
    if (paymentMethod === 'cash_on_delivery') paidAt = deliveredAt;
    if (returnAt !== null && returnAt <= anchor) {
      const full = rng() < 0.3;
      const one = Math.floor(rng() * priced.length);
      priced.forEach((line, i) => {
        if (full) returned[i] = line.quantity;
        else if (i === one) returned[i] = line.quantity === 1 || rng() < 0.6 ? line.quantity : 1 + Math.floor(rng() * (line.quantity - 1));
      });
      const everything = returned.every((quantity, i) => quantity === priced[i].quantity);
      refundedAt = returnAt;
      if (everything) {
        fulfilmentStatus = 'returned';
        paymentStatus = 'refunded';
      } else paymentStatus = 'partially_refunded';
    }
  } else {
    // Not delivered yet (or to be cancelled later): where is it now?
    if (shippedAt !== null && shippedAt <= anchor) fulfilmentStatus = 'shipped';
    if (readyAt !== null && readyAt <= anchor) fulfilmentStatus = 'ready_for_pickup';
  }

  const refundedTotal =
    refundedAt === null
      ? 0
      : recordRefund(batch, context, { id, priced, lineTotals, totals, returned, refundedAt, cancelled: status === 'cancelled' });
  const delivered = status === 'completed' ? deliveredAt : null;
  batch.orders.push({
    id,
    sessionId: input.sessionId,
    shopperId: input.shopperId,
    email: input.email,
    locale: person.locale,
    status,
    paymentMethod,
    paymentStatus,
    fulfilmentType: pickup ? 'pickup' : 'delivery',
    fulfilmentStatus,
    shippingMethodCode: method?.code ?? null,
    shippingAddress: pickup ? null : shippingAddressJson(address),
    pickupLocationId: pickup?.id ?? null,
    itemCount: priced.reduce((sum, line) => sum + line.quantity, 0),
    subtotal: totals.subtotal,
    shippingTotal: totals.shipping,
    taxTotal: totals.tax,
    total: totals.total,
    refundedTotal,
    placedAt: seconds(placedAt),
    promisedAfterSeconds: seconds(promisedBy) - seconds(placedAt),
    paidAt: secondsOrNull(paidAt, anchor),
    shippedAt: secondsOrNull(shippedAt, anchor),
    readyAt: secondsOrNull(readyAt, anchor),
    deliveredAt: delivered === null ? null : seconds(delivered),
    cancelledAt: secondsOrNull(happenedCancel, anchor),
    refundedAt: secondsOrNull(refundedAt, anchor),
  });
  priced.forEach((line, i) =>
    batch.lines.push({
      orderId: id,
      variantId: line.variantId,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      lineTotal: lineTotals[i],
      taxAmount: totals.lineTaxes[i],
      returnedQuantity: returned[i],
      position: i,
    }),
  );

  const provider = paymentMethod === 'card' ? 'demo_card' : 'cash_on_delivery';
  const reference =
    paymentMethod === 'card'
      ? `demo_${Math.floor(rng() * 2 ** 48)
          .toString(16)
          .padStart(12, '0')}`
      : null;
  const captured = paidAt !== null && paidAt <= anchor;
  const paymentStatusRow = captured ? 'captured' : status === 'cancelled' ? 'voided' : 'pending';
  const placed = seconds(placedAt);
  batch.payments.push({
    orderId: id,
    provider,
    method: paymentMethod,
    status: paymentStatusRow,
    amount: totals.total,
    reference,
    createdAt: placed,
    updatedAt: captured ? seconds(paidAt!) : happenedCancel !== null ? seconds(happenedCancel) : placed,
  });
  if (refundedTotal > 0) {
    const at = seconds(refundedAt!);
    batch.payments.push({
      orderId: id,
      provider,
      method: paymentMethod,
      status: 'refunded',
      amount: refundedTotal,
      reference,
      createdAt: at,
      updatedAt: at,
    });
  }
  return { id, productIds: priced.map((line) => line.product.id), paymentMethod, total: totals.total };
}

/** The first variants of a product sell more (the default size or colour). */
function variantPosition(rng: Random, count: number): number {
  if (count === 1) return 0;
  let target = rng() * VARIANT_POSITION_WEIGHTS.slice(0, count).reduce((sum, weight) => sum + weight, 0);
  for (let i = 0; i < count - 1; i++) {
    target -= VARIANT_POSITION_WEIGHTS[i] ?? VARIANT_POSITION_WEIGHTS[VARIANT_POSITION_WEIGHTS.length - 1];
    if (target < 0) return i;
  }
  return count - 1;
}

/** Shoppers who come back, kept for a while: regenerating a person is the costliest part of an order. */
class PersonCache {
  private readonly cache = new Map<number, DemoPerson>();

  constructor(private readonly people: DemoPeople) {}

  get(index: number): DemoPerson {
    let person = this.cache.get(index);
    if (!person) {
      person = this.people.person('shopper', index);
      if (this.cache.size >= PERSON_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(index, person);
    }
    return person;
  }
}

const addressSnapshots = new WeakMap<DemoAddress, string>();

/** The address as the order keeps it (JSON): a copy, so later edits of the address book do not rewrite history. */
function shippingAddressJson(address: DemoAddress): string {
  let snapshot = addressSnapshots.get(address);
  if (snapshot === undefined) {
    snapshot = JSON.stringify(snapshotOf(address));
    addressSnapshots.set(address, snapshot);
  }
  return snapshot;
}

function snapshotOf(address: DemoAddress) {
  return {
    fullName: address.fullName,
    phone: address.phone,
    line1: address.line1,
    line2: address.line2,
    district: address.district,
    city: address.city,
    region: address.region,
    postalCode: address.postalCode,
    country: address.country,
  };
}

function guestEmail(person: DemoPerson): string {
  return `${person.emailLocal}@${person.emailDomain}`;
}

/** Sorted instants of a day's orders, by the day's hour-of-day curve, before the anchor. */
function timesOfDay(rng: Random, day: DemoDay, count: number, anchor: number): number[] {
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const hour = day.hours.draw(rng);
    times[i] = Math.min(anchor - SECOND, day.start + hour * HOUR + Math.floor(rng() * 3600) * SECOND);
  }
  return Array.from(times.sort());
}

function emptyBatch(): ActivityBatch {
  return {
    shoppers: [],
    addresses: [],
    orders: [],
    lines: [],
    payments: [],
    refunds: [],
    refundLines: [],
    sessions: [],
    events: [],
    searches: [],
  };
}

/** How likely each product is to be in a basket on a day: Zipf-like popularity, seasons, launched products only. */
class ProductDemand {
  private readonly popularity: Float64Array;
  private week = -1;
  private readonly tables = new Map<string, WeightedTable<StoreProduct>>();

  constructor(
    private readonly products: StoreProduct[],
    rng: Random,
  ) {
    const ranks = products.map((_, i) => i);
    for (let i = ranks.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [ranks[i], ranks[j]] = [ranks[j], ranks[i]];
    }
    this.popularity = Float64Array.from(ranks, (rank) => 1 / (rank + POPULARITY_OFFSET) ** POPULARITY_EXPONENT);
  }

  /** Rebuilt weekly (launches) and when the seasons change. */
  tableFor(day: DemoDay, dayIndex: number): WeightedTable<StoreProduct> {
    const week = Math.floor(dayIndex / 7);
    if (week !== this.week) {
      this.week = week;
      this.tables.clear();
    }
    const key = day.seasons.join(',');
    let table = this.tables.get(key);
    if (!table) {
      const launched = this.products.some((product) => product.launchedAt <= day.start);
      const weights = this.products.map((product, i) =>
        launched && product.launchedAt > day.start ? 0 : this.popularity[i] * seasonalDemand(product, day.seasons),
      );
      table = new WeightedTable(this.products, weights);
      this.tables.set(key, table);
    }
    return table;
  }
}

function seasonalDemand(product: StoreProduct, seasons: Season[]): number {
  let factor = 1;
  for (const season of seasons) {
    const demand = SEASONAL_DEMAND[season];
    if (!demand) continue;
    if (product.department !== null) factor *= demand[product.department] ?? 1;
    if (product.category !== null && product.category !== product.department) factor *= demand[product.category] ?? 1;
  }
  return factor;
}

/**
 * The refund record of a cancelled card order (every unit and the shipping) or of a return (the
 * returned units, each at what was paid for it, and the shipping when everything came back).
 * Returns its amount: the order's refunded total.
 */
function recordRefund(
  batch: ActivityBatch,
  context: StoreContext,
  order: {
    id: string;
    priced: { quantity: number; unitPrice: number }[];
    lineTotals: number[];
    totals: { total: number; lineTaxes: number[] };
    returned: number[];
    refundedAt: number;
    cancelled: boolean;
  },
): number {
  const { pricesIncludeTax } = context.tax;
  const everything = order.cancelled || order.returned.every((quantity, i) => quantity === order.priced[i].quantity);
  const refundId = randomUUID();
  let linesAmount = 0;
  order.priced.forEach((line, i) => {
    const quantity = order.cancelled ? line.quantity : order.returned[i];
    if (quantity === 0) return;
    const amount = everything
      ? withTax(order.lineTotals[i], order.totals.lineTaxes[i], pricesIncludeTax)
      : withTax(quantity * line.unitPrice, taxOf(quantity * line.unitPrice, context.tax), pricesIncludeTax);
    linesAmount += amount;
    batch.refundLines.push({ refundId, orderId: order.id, position: i, quantity, amount });
  });
  const amount = everything ? order.totals.total : linesAmount;
  batch.refunds.push({
    id: refundId,
    orderId: order.id,
    reason: order.cancelled ? 'cancellation' : 'return',
    amount,
    shippingAmount: amount - linesAmount,
    restocked: order.cancelled,
    createdAt: seconds(order.refundedAt),
  });
  return amount;
}
