import { randomUUID } from 'node:crypto';
import { emptyBatch, type ActivityBatch } from './activity-batch.js';
import { DAY, demoTimeline, HOUR, SECOND, seconds, type DemoDay } from './calendar.js';
import { placeOrder } from './orders.js';
import { DemoPeople, type DemoPerson } from './people.js';
import { ProductDemand } from './product-demand.js';
import { apportion, between, DynamicWeights, randomStream, type Random } from './random.js';
import { conversionFactors, historySessionId, writeDaySessions, type SessionOrder } from './sessions.js';
import type { StoreContext } from './store-context.js';

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
const SEARCHES_BY_SHOPPERS = 0.4;
const ARABIC_SHARE = 0.62;
const PERSON_CACHE_SIZE = 20_000;

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
