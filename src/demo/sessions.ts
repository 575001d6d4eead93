import { randomUUID } from 'node:crypto';
import type { HistorySession } from '../auth/session-writer.js';
import type { Locale } from '../common/locale.js';
import type { NewStorefrontEvent } from '../storefront/events/storefront-event-recorder.js';
import type { NewPayment } from '../storefront/payments/payments.service.js';
import type { PaymentMethod } from '../storefront/payments/payment-methods.js';
import { DAY, HOUR, SECOND, seconds, type DemoDay } from './calendar.js';
import { between, WeightedTable, type Random } from './random.js';

/** About 3 % of sessions order on an ordinary day. `demo seed --sessions-per-order` lowers it for huge seeds. */
export const DEFAULT_SESSIONS_PER_ORDER = 33;
export const MAX_SESSIONS_PER_ORDER = 100;
/** Sales bring buyers: at the peak of a rush, sessions convert this much better. */
const CONVERSION_IN_RUSH = 0.3;
const DAILY_CONVERSION_NOISE = 0.15;
/** Sessions that reach checkout for each order (about 60 % of them order), and carts for each checkout. */
const CHECKOUTS_PER_ORDER: [min: number, max: number] = [1.5, 1.9];
const CARTS_PER_CHECKOUT: [min: number, max: number] = [1.8, 2.3];
const VIEWING_SHARE: [min: number, max: number] = [0.55, 0.65];
/** How far a session that searched went, by depth (see Depth): searchers buy more than others. */
const SEARCHER_DEPTHS = [0.3, 0.48, 0.1, 0.04, 0.08];
const SEARCHES_PER_SEARCHING_SESSION = WeightedTable.of([
  [1, 0.55],
  [2, 0.25],
  [3, 0.12],
  [4, 0.08],
]);
const CART_LINES = WeightedTable.of([
  [1, 0.55],
  [2, 0.27],
  [3, 0.12],
  [4, 0.06],
]);
/** Products looked at without being put in the cart: by a session that only browses, and before a cart. */
const VIEWS_WITHOUT_CART = WeightedTable.of([
  [1, 0.45],
  [2, 0.25],
  [3, 0.15],
  [4, 0.1],
  [5, 0.05],
]);
const VIEWS_BEFORE_CART = WeightedTable.of([
  [0, 0.35],
  [1, 0.3],
  [2, 0.18],
  [3, 0.12],
  [4, 0.05],
]);
const SECOND_QUOTE = 0.25;
/** Card orders whose first card was declined before another paid (failed payments of the payments report). */
const DECLINED_BEFORE_PAYING = 0.04;

/** How far a session went: 0 started only, 1 viewed a product, 2 added to cart, 3 reached checkout (a quote), 4 ordered. */
type Depth = 0 | 1 | 2 | 3 | 4;

/** A storefront event of the history; the seeder adds the store. Times are epoch seconds. */
export type SessionEvent = Omit<NewStorefrontEvent, 'storeId'>;

/** A search of the history, in its session, at `createdAt` (epoch seconds). */
export interface SearchRow {
  sessionId: string;
  shopperId: string | null;
  query: string;
  locale: Locale;
  resultCount: number;
  createdAt: number;
}

/** An order of the day as its session needs it. Times are epoch ms. */
export interface SessionOrder {
  id: string;
  sessionId: string;
  placedAt: number;
  shopperId: string | null;
  /** When the buyer's account was created (it may be during this session); null for a guest. */
  shopperSince: number | null;
  locale: Locale;
  productIds: string[];
  paymentMethod: PaymentMethod;
  total: number;
}

/** What a day's sessions are written into. */
export interface SessionRows {
  sessions: HistorySession[];
  events: SessionEvent[];
  searches: SearchRow[];
  payments: NewPayment[];
}

export interface DaySessions {
  day: DemoDay;
  /** Nothing happens at or after it (epoch ms). */
  anchor: number;
  /** Sessions started that day: at least the day's orders. */
  sessions: number;
  /** The orders a session is expected to bring that day: sets how many reach the cart and checkout. */
  conversion: number;
  /** The day's orders, each placed in a session of its own. */
  orders: SessionOrder[];
  searches: number;
  /** What sells that day: what is looked at and put in carts too. */
  products: WeightedTable<{ id: string }>;
  /** Who searches in a session that does not order: a shopper signed in, or a guest (null). */
  visitor: () => { shopperId: string | null; locale: Locale };
  query: (locale: Locale) => { query: string; resultCount: number };
}

/**
 * Per-day conversion factors around 1 (weighted by the days' order volume): rush days convert better,
 * and every day varies a little. A day needs sessions in proportion to its orders over its factor.
 */
export function conversionFactors(rng: Random, days: DemoDay[]): number[] {
  const raw = days.map((day) => (1 + CONVERSION_IN_RUSH * day.rush) * between(rng, 1 - DAILY_CONVERSION_NOISE, 1 + DAILY_CONVERSION_NOISE));
  const volume = days.reduce((sum, day) => sum + day.weight, 0);
  const sessions = days.reduce((sum, day, i) => sum + day.weight / raw[i], 0);
  // Scaled so that orders / sessions over the whole history is exactly 1 / sessions-per-order.
  return raw.map((factor) => (factor * sessions) / volume);
}

interface Step {
  kind: SessionEvent['kind'] | 'search' | 'declined';
  productId?: string;
  /** Milliseconds since the step before. */
  gap: number;
}

/**
 * The sessions of one day and what happened in them, with the funnel's drop-off: every session starts,
 * most view a product, fewer add to a cart, fewer reach checkout, and the day's orders are placed in
 * sessions that took every step before (the order's products viewed and put in the cart, a quote).
 * The day's searches belong to sessions too, and sessions that searched convert better. A session's
 * steps are minutes apart and stay within its day; those that order end at the order.
 */
export function writeDaySessions(rng: Random, day: DaySessions, into: SessionRows): void {
  const total = Math.max(day.sessions, day.orders.length);
  const ordered = day.orders.length;
  const clamp = (value: number, min: number) => Math.min(total, Math.max(min, Math.round(value)));
  const checkout = clamp(total * day.conversion * between(rng, ...CHECKOUTS_PER_ORDER), ordered);
  const carted = clamp(checkout * between(rng, ...CARTS_PER_CHECKOUT), checkout);
  const viewed = clamp(total * between(rng, ...VIEWING_SHARE), carted);
  // Sessions [0, ordered) order, [ordered, checkout) stop at checkout, and so on down to those that only started.
  const depthOf = (session: number): Depth =>
    session < ordered ? 4 : session < checkout ? 3 : session < carted ? 2 : session < viewed ? 1 : 0;
  const searchesOf = searchingSessions(rng, day.searches, [ordered, checkout, carted, viewed, total]);

  for (let session = 0; session < total; session++) {
    const depth = depthOf(session);
    writeSession(rng, day, into, depth, depth === 4 ? day.orders[session] : null, searchesOf.get(session) ?? 0);
  }
}

/**
 * Which sessions search, and how often: the day's searches spread over sessions of every depth, by
 * SEARCHER_DEPTHS. `ends` are the first session past each depth, deepest first.
 */
function searchingSessions(
  rng: Random,
  searches: number,
  ends: [ordered: number, checkout: number, carted: number, viewed: number, total: number],
): Map<number, number> {
  const [ordered, checkout, carted, viewed, total] = ends;
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
  // By depth: those that only started, viewed, carted, reached checkout, ordered.
  const free = [range(viewed, total), range(carted, viewed), range(checkout, carted), range(ordered, checkout), range(0, ordered)];
  const depths = free.map((_, depth) => depth);
  const searching = new Map<number, number>();
  for (let left = searches; left > 0;) {
    const count = Math.min(left, SEARCHES_PER_SEARCHING_SESSION.draw(rng));
    left -= count;
    const weights = free.map((sessions, depth) => (sessions.length > 0 ? SEARCHER_DEPTHS[depth] : 0));
    if (weights.every((weight) => weight === 0)) {
      // More searching sessions than sessions (a tiny --sessions-per-order): some search more often.
      const session = Math.floor(rng() * total);
      searching.set(session, (searching.get(session) ?? 0) + count);
      continue;
    }
    const sessions = free[new WeightedTable(depths, weights).draw(rng)];
    const at = Math.floor(rng() * sessions.length);
    searching.set(sessions[at], count);
    sessions[at] = sessions[sessions.length - 1];
    sessions.pop();
  }
  return searching;
}

function writeSession(rng: Random, day: DaySessions, into: SessionRows, depth: Depth, order: SessionOrder | null, searches: number): void {
  const steps = plannedSteps(rng, day, depth, order, searches);
  const times = placeInDay(rng, day, steps, order);
  const sessionId = order?.sessionId ?? historySessionId(times[0]);
  const startedAt = times[0];
  const endedAt = times[times.length - 1];

  let shopperId: string | null = null;
  let locale: Locale = 'ar';
  let attachedAt: number | null = null;
  if (order) {
    shopperId = order.shopperId;
    locale = order.locale;
    // A buyer who signs up at checkout is signed in from then on.
    if (shopperId !== null) attachedAt = Math.max(startedAt, order.shopperSince ?? startedAt);
  } else if (searches > 0) {
    ({ shopperId, locale } = day.visitor());
    if (shopperId !== null) attachedAt = startedAt;
  }
  // Sessions that nothing of the past names (no search, no order) exist only in their events.
  if (order || searches > 0) {
    into.sessions.push({
      id: sessionId,
      shopperId,
      shopperAttachedAt: attachedAt === null ? null : seconds(attachedAt),
      startedAt: seconds(startedAt),
      endedAt: seconds(endedAt),
    });
  }

  steps.forEach((step, i) => {
    const at = seconds(times[i]);
    if (step.kind === 'search') {
      const { query, resultCount } = day.query(locale);
      const signedIn = attachedAt !== null && times[i] >= attachedAt;
      into.searches.push({ sessionId, shopperId: signedIn ? shopperId : null, query, locale, resultCount, createdAt: at });
    } else if (step.kind === 'declined') {
      into.payments.push({
        orderId: null,
        provider: 'demo_card',
        method: 'card',
        status: 'declined',
        amount: order!.total,
        reference: null,
        createdAt: at,
        updatedAt: at,
      });
    } else {
      into.events.push({
        sessionId,
        kind: step.kind,
        productId: step.productId ?? null,
        orderId: step.kind === 'order_placed' ? order!.id : null,
        occurredAt: at,
      });
    }
  });
}

/** The session's steps in order, each with its gap to the one before. */
function plannedSteps(rng: Random, day: DaySessions, depth: Depth, order: SessionOrder | null, searches: number): Step[] {
  const gap = (minSeconds: number, maxSeconds: number) => Math.round(between(rng, minSeconds, maxSeconds)) * SECOND;
  const steps: Step[] = [{ kind: 'session_started', gap: 0 }];
  if (searches > 0) steps.push({ kind: 'search', gap: gap(5, 60) });

  const carted = order ? order.productIds : depth >= 2 ? distinctProducts(rng, day, CART_LINES.draw(rng), []) : [];
  const looked = depth >= 1 ? distinctProducts(rng, day, (depth >= 2 ? VIEWS_BEFORE_CART : VIEWS_WITHOUT_CART).draw(rng), carted) : [];
  const browsing: Step[] = looked.map((productId) => ({ kind: 'product_viewed', productId, gap: gap(20, 240) }));
  // Further searches come between the products looked at, before anything is put in the cart.
  for (let more = 1; more < searches; more++) {
    browsing.splice(Math.floor(rng() * (browsing.length + 1)), 0, { kind: 'search', gap: gap(20, 120) });
  }
  steps.push(...browsing);
  for (const productId of carted) {
    steps.push({ kind: 'product_viewed', productId, gap: gap(20, 180) });
    steps.push({ kind: 'cart_line_added', productId, gap: gap(15, 120) });
  }

  if (depth >= 3) {
    steps.push({ kind: 'checkout_quoted', gap: gap(40, 300) });
    if (rng() < SECOND_QUOTE) steps.push({ kind: 'checkout_quoted', gap: gap(30, 180) });
  }
  if (order) {
    if (order.paymentMethod === 'card' && rng() < DECLINED_BEFORE_PAYING) steps.push({ kind: 'declined', gap: gap(40, 150) });
    steps.push({ kind: 'order_placed', gap: gap(30, 180) });
  }
  return steps;
}

/** `count` products of the day's demand, none of `besides` and none twice (fewer when the catalogue is small). */
function distinctProducts(rng: Random, day: DaySessions, count: number, besides: readonly string[]): string[] {
  const chosen: string[] = [];
  for (let attempt = 0; chosen.length < count && attempt < count * 4; attempt++) {
    const { id } = day.products.draw(rng);
    if (!chosen.includes(id) && !besides.includes(id)) chosen.push(id);
  }
  return chosen;
}

/**
 * Each step's time (epoch ms): a session that orders ends at its order; any other starts by the day's
 * hour-of-day curve. Either way it stays within its day and before the anchor, its gaps shrunk if need be.
 */
function placeInDay(rng: Random, day: DaySessions, steps: Step[], order: SessionOrder | null): number[] {
  const offsets = new Float64Array(steps.length);
  for (let i = 1; i < steps.length; i++) offsets[i] = offsets[i - 1] + steps[i].gap;
  const length = offsets[steps.length - 1];
  const dayStart = day.day.start;
  if (order) {
    const scale = length > order.placedAt - dayStart ? (order.placedAt - dayStart) / length : 1;
    return Array.from(offsets, (offset) => order.placedAt - (length - offset) * scale);
  }
  const latest = Math.min(dayStart + DAY, day.anchor) - SECOND;
  let start = Math.min(latest, dayStart + day.day.hours.draw(rng) * HOUR + Math.floor(rng() * 3600) * SECOND);
  if (start + length > latest) start = Math.max(dayStart, latest - length);
  const scale = start + length > latest ? (latest - start) / length : 1;
  return Array.from(offsets, (offset) => start + offset * scale);
}

/**
 * A session id that sorts by time (UUID version 7, RFC 9562: the epoch ms first, then random bits). The
 * history is written day by day, so the indexes on session ids grow at one end instead of taking each
 * of the hundreds of thousands of new ids at a random place, which takes a third off writing the events.
 */
export function historySessionId(atMs: number): string {
  const time = Math.floor(atMs).toString(16).padStart(12, '0');
  // A version 4 id keeps its random bits and variant: xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx.
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}
