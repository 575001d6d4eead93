import { randomUUID } from 'node:crypto';
import type { TestDatabase } from '../support/database.js';

/**
 * A small fixed history of one store for the Insights figures test, written straight into the tables
 * the way the storefront writes them (order-writer.ts, order-lifecycle.service.ts, payments.service.ts,
 * search-recorder.ts), in the store's time zone Asia/Riyadh (UTC+3). Times below are LOCAL times.
 *
 * Main range 2026-09-25 … 2026-10-14 (20 days); the previous period 2026-09-05 … 2026-09-24.
 */

export const TIMEZONE = 'Asia/Riyadh';
export const RANGE = { from: '2026-09-25', to: '2026-10-14' };
export const PREVIOUS = { from: '2026-09-05', to: '2026-09-24' };

/** A local wall-clock time of the store ('YYYY-MM-DD HH:MM[:SS]') as an instant (Riyadh has no DST: always +03:00). */
export function local(text: string): Date {
  const [day, time] = text.split(' ');
  const withSeconds = time.length === 5 ? `${time}:00` : time;
  return new Date(`${day}T${withSeconds}+03:00`);
}

// --- catalogue ---------------------------------------------------------------------------------

export const CATEGORIES = { apparel: 'Apparel', footwear: 'Footwear' } as const;
export const BRANDS = { acme: 'Acme', nomad: 'Nomad' } as const;

interface ProductSpec {
  name: string;
  category: keyof typeof CATEGORIES | null;
  brand: keyof typeof BRANDS | null;
  status?: 'active' | 'draft';
  createdAt?: string;
  /** variant key → shelf price (tax included, as the store's prices are) and stock now */
  variants: Record<string, { price: number; stock: number }>;
}

export const PRODUCTS: Record<string, ProductSpec> = {
  shirt: {
    name: 'Linen shirt',
    category: 'apparel',
    brand: 'acme',
    variants: { shirtS: { price: 11500, stock: 10 }, shirtM: { price: 11500, stock: 4 } },
  },
  shoe: { name: 'Running shoe', category: 'footwear', brand: 'acme', variants: { shoe: { price: 23000, stock: 5 } } },
  cap: { name: 'Cap', category: null, brand: null, variants: { cap: { price: 5750, stock: 20 } } },
  // sold only in the previous period: not selling in the main range
  scarf: { name: 'Scarf', category: 'apparel', brand: 'nomad', variants: { scarf: { price: 11500, stock: 7 } } },
  // never sold
  umbrella: {
    name: 'Umbrella',
    category: null,
    brand: 'nomad',
    createdAt: '2026-06-01 10:00',
    variants: { umbrella: { price: 9200, stock: 3 } },
  },
  // a price whose tax does not divide evenly
  socks: { name: 'Socks', category: 'apparel', brand: 'acme', variants: { socks: { price: 1999, stock: 50 } } },
  // sold only on 2026-10-15 at 00:30 local (2026-10-14 in UTC): not selling in the main range
  gloves: { name: 'Gloves', category: 'apparel', brand: 'nomad', variants: { gloves: { price: 4600, stock: 6 } } },
  // sold only on 2026-09-25 at 00:30 local (2026-09-24 in UTC): selling in the main range
  belt: { name: 'Belt', category: null, brand: 'nomad', variants: { belt: { price: 5750, stock: 8 } } },
  tote: { name: 'Tote bag', category: 'apparel', brand: 'nomad', variants: { tote: { price: 5750, stock: 12 } } },
  // with stock but not active, and active without stock: never "not selling"
  hat: { name: 'Hat', category: 'apparel', brand: null, status: 'draft', variants: { hat: { price: 3000, stock: 9 } } },
  keychain: { name: 'Keychain', category: null, brand: null, variants: { keychain: { price: 1000, stock: 0 } } },
};
const PRODUCTS_CREATED = '2026-05-01 09:00';

// --- customers ---------------------------------------------------------------------------------

interface CustomerSpec {
  email: string;
  locale: 'en' | 'ar';
  /** a registered shopper (else a guest) */
  name?: [string, string];
}

export const CUSTOMERS: Record<string, CustomerSpec> = {
  alice: { email: 'alice@example.com', locale: 'en', name: ['Alice', 'Adams'] },
  bob: { email: 'bob@example.com', locale: 'ar', name: ['Bob', 'Bakr'] },
  carol: { email: 'carol@example.com', locale: 'ar' },
  dave: { email: 'dave@example.com', locale: 'en', name: ['Dave', 'Dorsey'] },
  erin: { email: 'erin@example.com', locale: 'en' },
  frank: { email: 'frank@example.com', locale: 'ar' },
  henry: { email: 'henry@example.com', locale: 'en', name: ['Henry', 'Hamid'] },
  ivy: { email: 'ivy@example.com', locale: 'en' },
  // checked out as a guest first (that order adopted when he registered), then signed in and in English
  jack: { email: 'jack@example.com', locale: 'ar', name: ['Jack', 'Jaber'] },
  kate: { email: 'kate@example.com', locale: 'ar', name: ['Kate', 'Khalid'] },
};

// --- orders ------------------------------------------------------------------------------------

export interface OrderSpec {
  customer: keyof typeof CUSTOMERS;
  /** The address as typed on this order, when not the customer's usual spelling. */
  email?: string;
  /** Placed as a guest although the customer has an account now (the order was adopted when they signed in). */
  guest?: boolean;
  locale?: 'en' | 'ar';
  placed: string;
  session?: string;
  payment: 'card' | 'cash_on_delivery';
  fulfilment: 'standard' | 'express' | 'pickup';
  pricesIncludeTax: boolean;
  taxRateBps: number;
  /** variant key, quantity, and the unit price when not the shelf price (tax-exclusive orders) */
  lines: [variant: string, quantity: number, unitPrice?: number][];
  paid?: string;
  shipped?: string;
  ready?: string;
  delivered?: string;
  cancelled?: string;
  /** returns: units of lines (by position), and the shipping charge */
  refunds?: { at: string; lines: [position: number, quantity: number][]; shipping?: boolean }[];
}

export const ORDERS: Record<string, OrderSpec> = {
  // before both ranges: alice's first order
  O0: {
    customer: 'alice',
    placed: '2026-08-20 12:00',
    payment: 'card',
    fulfilment: 'standard',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [['shirtS', 1]],
    paid: '2026-08-20 12:01',
    shipped: '2026-08-21 10:00',
    delivered: '2026-08-22 10:00',
  },
  // previous period
  O12: {
    customer: 'kate',
    placed: '2026-09-06 08:00',
    payment: 'cash_on_delivery',
    fulfilment: 'pickup',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [['shirtS', 1]],
    ready: '2026-09-06 09:00',
    delivered: '2026-09-06 12:00',
    paid: '2026-09-06 12:00',
    // returned in the main range: a return of an order of the previous period
    refunds: [{ at: '2026-10-04 10:00', lines: [[0, 1]] }],
  },
  O1: {
    customer: 'alice',
    placed: '2026-09-10 14:00',
    session: 'S8',
    payment: 'card',
    fulfilment: 'standard',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [['scarf', 1]],
    paid: '2026-09-10 14:01',
    shipped: '2026-09-11 10:00',
    delivered: '2026-09-12 15:00',
  },
  // the last minute of the previous period
  O11: {
    customer: 'jack',
    guest: true,
    placed: '2026-09-24 23:59',
    payment: 'cash_on_delivery',
    fulfilment: 'standard',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [['shoe', 1]],
    shipped: '2026-09-25 11:00',
    delivered: '2026-09-26 12:00',
    paid: '2026-09-26 12:00',
  },
  // main range: 00:30 local on its first day is 21:30 UTC on the day before; delivered late; one unit of two returned later
  O2: {
    customer: 'alice',
    placed: '2026-09-25 00:30',
    session: 'S1',
    payment: 'card',
    fulfilment: 'express',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [
      ['shirtS', 2],
      ['belt', 1],
    ],
    paid: '2026-09-25 00:31',
    shipped: '2026-09-25 12:00',
    delivered: '2026-09-26 10:00',
    refunds: [{ at: '2026-10-03 11:00', lines: [[0, 1]] }],
  },
  // a guest; a line returned in two refunds
  O4: {
    customer: 'carol',
    placed: '2026-09-28 10:00',
    session: 'S2',
    payment: 'cash_on_delivery',
    fulfilment: 'standard',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [
      ['shirtM', 2],
      ['shoe', 1],
    ],
    shipped: '2026-09-29 09:00',
    delivered: '2026-09-30 18:00',
    paid: '2026-09-30 18:00',
    refunds: [
      { at: '2026-10-02 12:00', lines: [[0, 1]] },
      { at: '2026-10-05 16:00', lines: [[0, 1]] },
    ],
  },
  // paid by card, then cancelled: a 'cancellation' refund
  O8: {
    customer: 'henry',
    placed: '2026-10-01 10:00',
    payment: 'card',
    fulfilment: 'standard',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [['shirtM', 1]],
    paid: '2026-10-01 10:01',
    cancelled: '2026-10-02 09:00',
  },
  // tax-exclusive prices; returned in full with the shipping charge
  O5: {
    customer: 'dave',
    placed: '2026-10-06 15:00',
    session: 'S6',
    payment: 'card',
    fulfilment: 'standard',
    pricesIncludeTax: false,
    taxRateBps: 1500,
    lines: [['shoe', 1, 20000]],
    paid: '2026-10-06 15:01',
    shipped: '2026-10-07 10:00',
    delivered: '2026-10-08 12:00',
    refunds: [{ at: '2026-10-10 13:00', lines: [[0, 1]], shipping: true }],
  },
  // tax-exclusive at another rate (5%), pickup made ready after its promise
  O6: {
    customer: 'erin',
    placed: '2026-10-08 09:00',
    payment: 'cash_on_delivery',
    fulfilment: 'pickup',
    pricesIncludeTax: false,
    taxRateBps: 500,
    lines: [['cap', 2, 5000]],
    ready: '2026-10-08 14:00',
    delivered: '2026-10-09 10:00',
    paid: '2026-10-09 10:00',
  },
  // still open past its promise
  O7: {
    customer: 'frank',
    placed: '2026-10-09 20:00',
    payment: 'cash_on_delivery',
    fulfilment: 'express',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [['shirtS', 1]],
  },
  // alice again, her address typed in another case; a line (with uneven tax) returned in two refunds
  O10: {
    customer: 'alice',
    email: 'Alice@Example.com',
    placed: '2026-10-11 11:00',
    payment: 'card',
    fulfilment: 'pickup',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [['socks', 3]],
    paid: '2026-10-11 11:01',
    ready: '2026-10-11 12:00',
    delivered: '2026-10-11 17:00',
    refunds: [
      { at: '2026-10-12 10:00', lines: [[0, 1]] },
      { at: '2026-10-13 10:00', lines: [[0, 2]] },
    ],
  },
  // jack, now registered and shopping in English: his first order as a registered shopper and in English, not his first order
  O15: {
    customer: 'jack',
    locale: 'en',
    placed: '2026-10-07 12:00',
    payment: 'card',
    fulfilment: 'pickup',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [['cap', 1]],
    paid: '2026-10-07 12:01',
    ready: '2026-10-07 13:00',
    delivered: '2026-10-07 16:00',
  },
  // unpaid cash on delivery, cancelled: voided
  O9: {
    customer: 'ivy',
    placed: '2026-10-12 18:00',
    payment: 'cash_on_delivery',
    fulfilment: 'pickup',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [['cap', 2]],
    cancelled: '2026-10-12 19:00',
  },
  // carol's second order: two lines of one category and two brands; open, promised after the range
  O14: {
    customer: 'carol',
    placed: '2026-10-13 10:00',
    payment: 'card',
    fulfilment: 'standard',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [
      ['tote', 1],
      ['socks', 2],
    ],
    paid: '2026-10-13 10:01',
  },
  // the last minute of the main range
  O3: {
    customer: 'bob',
    placed: '2026-10-14 23:59',
    session: 'S9',
    payment: 'cash_on_delivery',
    fulfilment: 'standard',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [
      ['shoe', 1],
      ['socks', 3],
    ],
  },
  // after the range: 00:30 local on 2026-10-15 is 21:30 UTC on 2026-10-14
  O13: {
    customer: 'bob',
    placed: '2026-10-15 00:30',
    payment: 'cash_on_delivery',
    fulfilment: 'pickup',
    pricesIncludeTax: true,
    taxRateBps: 1500,
    lines: [['gloves', 1]],
  },
};

/** Card payments declined at checkout: a payments row with no order. */
export const DECLINED = [
  { at: '2026-09-15 12:00', amount: 5000 },
  { at: '2026-10-07 11:05', amount: 9000 },
];

// --- sessions, searches, events ----------------------------------------------------------------

type EventKind = 'product_viewed' | 'cart_line_added' | 'checkout_quoted' | 'order_placed';

interface SessionSpec {
  started: string;
  customer?: keyof typeof CUSTOMERS;
  searches?: [at: string, query: string, results: number][];
  events: [at: string, kind: EventKind][];
}

export const SESSIONS: Record<string, SessionSpec> = {
  // starts in the previous period, orders (O2) in the main range; its search is followed by an add within 30 minutes, not by the order (38 minutes)
  S1: {
    started: '2026-09-24 23:50',
    customer: 'alice',
    searches: [['2026-09-24 23:52', 'Linen shirt', 5]],
    events: [
      ['2026-09-24 23:55', 'product_viewed'],
      ['2026-09-25 00:10', 'cart_line_added'],
      ['2026-09-25 00:20', 'checkout_quoted'],
      ['2026-09-25 00:30', 'order_placed'],
    ],
  },
  // O4: a search with no results and one with results, both followed by an add and an order
  S2: {
    started: '2026-09-28 09:30',
    searches: [
      ['2026-09-28 09:35', 'shirtt', 0],
      ['2026-09-28 09:36', 'Shirt', 3],
    ],
    events: [
      ['2026-09-28 09:40', 'product_viewed'],
      ['2026-09-28 09:45', 'cart_line_added'],
      ['2026-09-28 09:55', 'checkout_quoted'],
      ['2026-09-28 10:00', 'order_placed'],
    ],
  },
  // the add-to-cart 31 minutes after the search: not a follow-up
  S3: {
    started: '2026-10-05 14:00',
    searches: [['2026-10-05 14:01', 'Umbrella', 1]],
    events: [
      ['2026-10-05 14:03', 'product_viewed'],
      ['2026-10-05 14:32', 'cart_line_added'],
    ],
  },
  S4: {
    started: '2026-10-06 20:00',
    searches: [['2026-10-06 20:01', 'قميص', 3]],
    events: [['2026-10-06 20:02', 'product_viewed']],
  },
  // a bounce with a search that found nothing
  S5: { started: '2026-10-07 11:00', searches: [['2026-10-07 11:01', 'gift card', 0]], events: [] },
  // O5, no search
  S6: {
    started: '2026-10-06 14:40',
    customer: 'dave',
    events: [
      ['2026-10-06 14:45', 'product_viewed'],
      ['2026-10-06 14:50', 'cart_line_added'],
      ['2026-10-06 14:55', 'checkout_quoted'],
      ['2026-10-06 15:00', 'order_placed'],
    ],
  },
  // reached checkout, no order
  S7: {
    started: '2026-10-09 08:00',
    searches: [['2026-10-09 08:05', 'shirt', 3]],
    events: [
      ['2026-10-09 08:07', 'product_viewed'],
      ['2026-10-09 08:10', 'cart_line_added'],
      ['2026-10-09 08:15', 'checkout_quoted'],
    ],
  },
  // previous period: O1
  S8: {
    started: '2026-09-10 13:30',
    customer: 'alice',
    searches: [['2026-09-10 13:35', 'scarf', 1]],
    events: [
      ['2026-09-10 13:37', 'product_viewed'],
      ['2026-09-10 13:40', 'cart_line_added'],
      ['2026-09-10 13:50', 'checkout_quoted'],
      ['2026-09-10 14:00', 'order_placed'],
    ],
  },
  // the main range's last minutes: O3
  S9: {
    started: '2026-10-14 23:40',
    customer: 'bob',
    searches: [['2026-10-14 23:45', 'shoe', 2]],
    events: [
      ['2026-10-14 23:47', 'product_viewed'],
      ['2026-10-14 23:50', 'cart_line_added'],
      ['2026-10-14 23:55', 'checkout_quoted'],
      ['2026-10-14 23:59', 'order_placed'],
    ],
  },
  // after the range: 00:10 local on 2026-10-15 is 2026-10-14 in UTC
  S10: {
    started: '2026-10-15 00:10',
    searches: [['2026-10-15 00:12', 'shirt', 3]],
    events: [['2026-10-15 00:15', 'product_viewed']],
  },
};

// --- money as checkout computes it (pricing.ts) -------------------------------------------------

/** a × b / c rounded half up. */
export function share(a: number, b: number, c: number): number {
  if (c === 0) return 0;
  return Number((2n * BigInt(a) * BigInt(b) + BigInt(c)) / (2n * BigInt(c)));
}

function taxOf(amount: number, rateBps: number, included: boolean): number {
  if (rateBps === 0 || amount === 0) return 0;
  return included ? share(amount, rateBps, 10_000 + rateBps) : share(amount, rateBps, 10_000);
}

const SHIPPING = {
  standard: { price: 2500, freeOver: 30000 as number | null, promiseSeconds: 5 * 86_400 },
  express: { price: 4500, freeOver: null as number | null, promiseSeconds: 86_400 },
  pickup: { price: 0, freeOver: null as number | null, promiseSeconds: 2 * 3_600 },
};

// --- writing it ---------------------------------------------------------------------------------

export interface Seeded {
  storeId: string;
  orders: Record<string, { id: string; lineIds: string[] }>;
  products: Record<string, string>;
  variants: Record<string, string>;
  categories: Record<string, string>;
  brands: Record<string, string>;
  sessions: Record<string, string>;
}

const seconds = (date: Date) => date.getTime() / 1000;

/** Writes the whole history into the (empty) store. */
export async function seedHistory(db: TestDatabase, storeId: string, apiKeyId: string): Promise<Seeded> {
  const seeded: Seeded = { storeId, orders: {}, products: {}, variants: {}, categories: {}, brands: {}, sessions: {} };
  const q = (text: string, values: unknown[] = []) => db.rows(text, values);
  const tag = randomUUID().slice(0, 8);

  await q(`update stores set plan = 'pro', timezone = $2, tax_rate_bps = 1500, prices_include_tax = true, currency = 'SAR' where id = $1`, [
    storeId,
    TIMEZONE,
  ]);

  for (const [key, name] of Object.entries(CATEGORIES)) {
    const id = randomUUID();
    await q(`insert into categories (id, store_id, path, slug, name_en, name_ar) values ($1, $2, array[$1]::uuid[], $3, $4, $5)`, [
      id,
      storeId,
      `${key}-${tag}`,
      name,
      `${name} (ar)`,
    ]);
    seeded.categories[key] = id;
  }
  for (const [key, name] of Object.entries(BRANDS)) {
    const id = randomUUID();
    await q(`insert into brands (id, store_id, slug, name_en, name_ar) values ($1, $2, $3, $4, $5)`, [
      id,
      storeId,
      `${key}-${tag}`,
      name,
      `${name} (ar)`,
    ]);
    seeded.brands[key] = id;
  }
  for (const [key, product] of Object.entries(PRODUCTS)) {
    const id = randomUUID();
    const created = local(product.createdAt ?? PRODUCTS_CREATED);
    await q(
      `insert into products (id, store_id, category_id, brand_id, slug, name_en, name_ar, status, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
      [
        id,
        storeId,
        product.category ? seeded.categories[product.category] : null,
        product.brand ? seeded.brands[product.brand] : null,
        `${key}-${tag}`,
        product.name,
        `${product.name} (ar)`,
        product.status ?? 'active',
        created,
      ],
    );
    seeded.products[key] = id;
    let position = 0;
    for (const [variantKey, variant] of Object.entries(product.variants)) {
      const variantId = randomUUID();
      await q(
        `insert into product_variants (id, store_id, product_id, sku, options, price, currency, stock, position, created_at)
         values ($1, $2, $3, $4, $5::jsonb, $6, 'SAR', $7, $8, $9)`,
        [
          variantId,
          storeId,
          id,
          `${variantKey.toUpperCase()}-${tag}`,
          JSON.stringify({ size: variantKey }),
          variant.price,
          variant.stock,
          position++,
          created,
        ],
      );
      seeded.variants[variantKey] = variantId;
    }
  }

  const shoppers: Record<string, string> = {};
  for (const [key, customer] of Object.entries(CUSTOMERS)) {
    if (!customer.name) continue;
    const id = randomUUID();
    await q(
      `insert into shoppers (id, store_id, email, email_normalized, first_name, last_name, locale, created_at, updated_at)
       values ($1, $2, $3, $3, $4, $5, $6, $7, $7)`,
      [id, storeId, customer.email, customer.name[0], customer.name[1], customer.locale, local('2026-05-01 09:00')],
    );
    shoppers[key] = id;
  }

  for (const [key, session] of Object.entries(SESSIONS)) {
    const id = randomUUID();
    await q(
      `insert into sessions (id, store_id, api_key_id, scopes, transport, created_at, shopper_id, shopper_attached_at)
       values ($1, $2, $3, $4, 'bearer', $5, $6, $7)`,
      [
        id,
        storeId,
        apiKeyId,
        ['catalogue:read', 'cart:write', 'checkout:write'],
        local(session.started),
        session.customer ? (shoppers[session.customer] ?? null) : null,
        session.customer && shoppers[session.customer] ? local(session.started) : null,
      ],
    );
    seeded.sessions[key] = id;
  }

  const [pickupLocation] = await q(`select id from pickup_locations where store_id = $1`, [storeId]);

  // Orders in the order they were placed, as checkout numbers them.
  const byPlacement = Object.entries(ORDERS).sort(([, a], [, b]) => local(a.placed).getTime() - local(b.placed).getTime());
  for (const [key, spec] of byPlacement) {
    const customer = CUSTOMERS[spec.customer];
    const shopperId = shoppers[spec.customer] ?? null;
    const lines = spec.lines.map(([variant, quantity, unitPrice], position) => {
      const product = Object.values(PRODUCTS).find((p) => variant in p.variants)!;
      const unit = unitPrice ?? product.variants[variant].price;
      const lineTotal = unit * quantity;
      return { variant, quantity, unit, lineTotal, tax: taxOf(lineTotal, spec.taxRateBps, spec.pricesIncludeTax), position };
    });
    const subtotal = lines.reduce((sum, line) => sum + line.lineTotal, 0);
    const method = SHIPPING[spec.fulfilment];
    const shipping = method.freeOver !== null && subtotal >= method.freeOver ? 0 : method.price;
    const shippingTax = taxOf(shipping, spec.taxRateBps, spec.pricesIncludeTax);
    const taxTotal = lines.reduce((sum, line) => sum + line.tax, shippingTax);
    const total = spec.pricesIncludeTax ? subtotal + shipping : subtotal + shipping + taxTotal;
    const paidForLine = (line: (typeof lines)[number]) => (spec.pricesIncludeTax ? line.lineTotal : line.lineTotal + line.tax);
    const shippingPaid = spec.pricesIncludeTax ? shipping : shipping + shippingTax;

    // Refunds as the lifecycle computes them: each unit at what was paid for it, cumulatively rounded per line.
    const returned = lines.map(() => 0);
    const refunds = (spec.refunds ?? []).map((refund) => {
      const refundLines = refund.lines.map(([position, quantity]) => {
        const line = lines[position];
        const amount =
          share(paidForLine(line), returned[position] + quantity, line.quantity) -
          share(paidForLine(line), returned[position], line.quantity);
        returned[position] += quantity;
        return { position, quantity, amount };
      });
      const shippingAmount = refund.shipping ? shippingPaid : 0;
      return {
        at: refund.at,
        lines: refundLines,
        shippingAmount,
        amount: refundLines.reduce((sum, l) => sum + l.amount, 0) + shippingAmount,
      };
    });
    const cancelledPaid = spec.cancelled !== undefined && spec.paid !== undefined;
    const refundedTotal = cancelledPaid ? total : refunds.reduce((sum, refund) => sum + refund.amount, 0);
    const lastRefund = cancelledPaid ? spec.cancelled : spec.refunds?.at(-1)?.at;
    const allReturned = returned.every((units, i) => units === lines[i].quantity);

    const status = spec.cancelled ? 'cancelled' : spec.delivered ? 'completed' : 'open';
    const paymentStatus = spec.cancelled
      ? spec.paid
        ? 'refunded'
        : 'voided'
      : refundedTotal >= total && refundedTotal > 0
        ? 'refunded'
        : refundedTotal > 0
          ? 'partially_refunded'
          : spec.paid
            ? 'paid'
            : 'pending';
    const fulfilmentStatus = spec.cancelled
      ? 'cancelled'
      : spec.delivered
        ? allReturned && refunds.length > 0
          ? 'returned'
          : 'delivered'
        : spec.shipped
          ? 'shipped'
          : spec.ready
            ? 'ready_for_pickup'
            : 'unfulfilled';
    const placed = local(spec.placed);
    const id = randomUUID();
    const stamp = (text: string | undefined) => (text === undefined ? null : local(text));
    await q(
      `insert into orders (id, store_id, session_id, shopper_id, email, locale, currency, status, payment_method, payment_status,
                           fulfilment_type, fulfilment_status, shipping_method_code, shipping_address, pickup_location_id, item_count,
                           subtotal, shipping_total, tax_total, discount_total, total, refunded_total, prices_include_tax, tax_rate_bps,
                           placed_as_guest, promised_by, placed_at, paid_at, shipped_at, ready_at, delivered_at, cancelled_at, refunded_at)
       values ($1, $2, $3, $4, $5, $6, 'SAR', $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15, $16, $17, $18, 0, $19, $20, $21, $22,
               $23, to_timestamp($24), to_timestamp($25), $26, $27, $28, $29, $30, $31)`,
      [
        id,
        storeId,
        spec.session ? seeded.sessions[spec.session] : null,
        shopperId,
        spec.email ?? customer.email,
        spec.locale ?? customer.locale,
        status,
        spec.payment,
        paymentStatus,
        spec.fulfilment === 'pickup' ? 'pickup' : 'delivery',
        fulfilmentStatus,
        spec.fulfilment === 'pickup' ? null : spec.fulfilment,
        spec.fulfilment === 'pickup'
          ? null
          : JSON.stringify({ fullName: customer.email, line1: 'Olaya St', city: 'Riyadh', country: 'SA' }),
        spec.fulfilment === 'pickup' ? pickupLocation.id : null,
        lines.reduce((sum, line) => sum + line.quantity, 0),
        subtotal,
        shipping,
        taxTotal,
        total,
        refundedTotal,
        spec.pricesIncludeTax,
        spec.taxRateBps,
        spec.guest ?? shopperId === null,
        seconds(placed) + method.promiseSeconds,
        seconds(placed),
        stamp(spec.paid),
        stamp(spec.shipped),
        stamp(spec.ready),
        stamp(spec.delivered),
        stamp(spec.cancelled),
        stamp(lastRefund),
      ],
    );
    const lineIds: string[] = [];
    for (const line of lines) {
      const [row] = await q(
        `insert into order_lines (store_id, order_id, product_id, variant_id, category_id, brand_id, sku, product_name_en, product_name_ar,
                                  options, quantity, unit_price, line_total, tax_amount, returned_quantity, position)
         select $1, $2, p.id, v.id, p.category_id, p.brand_id, v.sku, p.name_en, p.name_ar, v.options, $4, $5, $6, $7, $8, $9
         from product_variants v join products p on p.id = v.product_id where v.id = $3
         returning id`,
        [
          storeId,
          id,
          seeded.variants[line.variant],
          line.quantity,
          line.unit,
          line.lineTotal,
          line.tax,
          returned[line.position],
          line.position,
        ],
      );
      lineIds.push(row.id);
    }
    seeded.orders[key] = { id, lineIds };

    // The order's payment row, in its state now.
    const paymentRowStatus = spec.cancelled
      ? spec.paid
        ? 'refunded'
        : 'voided'
      : paymentStatus === 'refunded'
        ? 'refunded'
        : spec.paid
          ? 'captured'
          : spec.payment === 'card'
            ? 'authorized'
            : 'pending';
    await q(
      `insert into payments (store_id, order_id, provider, method, status, amount, currency, provider_reference, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, 'SAR', $7, $8, $9)`,
      [
        storeId,
        id,
        spec.payment === 'card' ? 'test' : 'cash_on_delivery',
        spec.payment,
        paymentRowStatus,
        total,
        spec.payment === 'card' ? `ref_${key}_${tag}` : null,
        placed,
        stamp(lastRefund ?? spec.cancelled ?? spec.paid) ?? placed,
      ],
    );

    if (cancelledPaid) {
      // a paid order cancelled: refunded in full (lines at what was paid, and the shipping charge)
      const [refund] = await q(
        `insert into refunds (store_id, order_id, reason, amount, shipping_amount, currency, restocked, created_at)
         values ($1, $2, 'cancellation', $3, $4, 'SAR', true, $5) returning id`,
        [storeId, id, total, shippingPaid, local(spec.cancelled!)],
      );
      for (const line of lines) {
        await q(`insert into refund_lines (refund_id, order_line_id, quantity, amount) values ($1, $2, $3, $4)`, [
          refund.id,
          lineIds[line.position],
          line.quantity,
          paidForLine(line),
        ]);
      }
    }
    for (const refund of refunds) {
      const [row] = await q(
        `insert into refunds (store_id, order_id, reason, amount, shipping_amount, currency, restocked, created_at)
         values ($1, $2, 'return', $3, $4, 'SAR', true, $5) returning id`,
        [storeId, id, refund.amount, refund.shippingAmount, local(refund.at)],
      );
      for (const line of refund.lines) {
        await q(`insert into refund_lines (refund_id, order_line_id, quantity, amount) values ($1, $2, $3, $4)`, [
          row.id,
          lineIds[line.position],
          line.quantity,
          line.amount,
        ]);
      }
    }
  }

  for (const declined of DECLINED) {
    await q(
      `insert into payments (store_id, order_id, provider, method, status, amount, currency, provider_reference, created_at, updated_at)
       values ($1, null, 'test', 'card', 'declined', $2, 'SAR', null, $3, $3)`,
      [storeId, declined.amount, local(declined.at)],
    );
  }

  // Searches as the recorder writes them (normalised in SQL), then each session's events.
  for (const [key, session] of Object.entries(SESSIONS)) {
    for (const [at, query, results] of session.searches ?? []) {
      await q(
        `insert into searches (store_id, session_id, shopper_id, query, normalized_query, locale, result_count, created_at)
         select $1, s.id, s.shopper_id, $3::text, left(normalize_search_text($3::text), 200), $4, $5, $6 from sessions s where s.id = $2`,
        [storeId, seeded.sessions[key], query, /[\u0600-\u06FF]/.test(query) ? 'ar' : 'en', results, local(at)],
      );
    }
  }
  const orderOfSession = new Map(Object.entries(ORDERS).flatMap(([key, spec]) => (spec.session ? [[spec.session, key]] : [])));
  for (const [key, session] of Object.entries(SESSIONS)) {
    const events: [string, string, string | null, string | null][] = [[session.started, 'session_started', null, null]];
    for (const [at, kind] of session.events) {
      const orderKey = kind === 'order_placed' ? orderOfSession.get(key) : undefined;
      events.push([
        at,
        kind,
        kind === 'product_viewed' || kind === 'cart_line_added' ? seeded.products.shirt : null,
        orderKey ? seeded.orders[orderKey].id : null,
      ]);
    }
    for (const [at, kind, productId, orderId] of events) {
      await q(
        `insert into storefront_events (store_id, session_id, kind, product_id, order_id, occurred_at) values ($1, $2, $3, $4, $5, $6)`,
        [storeId, seeded.sessions[key], kind, productId, orderId, local(at)],
      );
    }
  }
  return seeded;
}

// --- reading it back ----------------------------------------------------------------------------

export interface LineRecord {
  id: string;
  orderId: string;
  productId: string | null;
  variantId: string | null;
  categoryId: string | null;
  brandId: string | null;
  quantity: number;
  lineTotal: number;
  taxAmount: number;
  position: number;
}

export interface OrderRecord {
  id: string;
  number: string;
  email: string;
  locale: string;
  status: string;
  fulfilmentStatus: string;
  paymentMethod: string;
  fulfilmentType: string;
  shippingMethodCode: string | null;
  pricesIncludeTax: boolean;
  taxRateBps: number;
  placedAsGuest: boolean;
  subtotal: number;
  shippingTotal: number;
  taxTotal: number;
  discountTotal: number;
  total: number;
  placedAt: Date;
  promisedBy: Date;
  paidAt: Date | null;
  shippedAt: Date | null;
  readyAt: Date | null;
  deliveredAt: Date | null;
  cancelledAt: Date | null;
  lines: LineRecord[];
}

export interface RefundRecord {
  id: string;
  orderId: string;
  reason: 'return' | 'cancellation';
  amount: number;
  shippingAmount: number;
  createdAt: Date;
  lines: { orderLineId: string; quantity: number; amount: number }[];
}

export interface Records {
  timezone: string;
  orders: OrderRecord[];
  refunds: RefundRecord[];
  declined: { method: string; amount: number; createdAt: Date }[];
  searches: { id: string; sessionId: string | null; query: string; resultCount: number; createdAt: Date }[];
  events: { sessionId: string; kind: string; occurredAt: Date }[];
  sessionsCreated: Map<string, Date>;
  products: { id: string; name: string; status: string; createdAt: Date; stock: number }[];
  /** insights_customers numbers by email: how the customer dimension names a customer */
  customerIds: Map<string, string>;
}

/** Every raw record of the store, as the service wrote it (and the customer numbers the rollups gave out). */
export async function readRecords(db: TestDatabase, storeId: string): Promise<Records> {
  const [store] = await db.rows(`select timezone from stores where id = $1`, [storeId]);
  const lines = await db.rows(
    `select l.id, l.order_id, l.product_id, l.variant_id, l.category_id, l.brand_id, l.quantity, l.line_total, l.tax_amount, l.position
     from order_lines l where l.store_id = $1 order by l.order_id, l.position`,
    [storeId],
  );
  const orders = await db.rows(`select o.*, o.number::text as number_text from orders o where o.store_id = $1 order by o.placed_at, o.id`, [
    storeId,
  ]);
  const refunds = await db.rows(`select * from refunds where store_id = $1 order by created_at, id`, [storeId]);
  const refundLines = await db.rows(`select rl.* from refund_lines rl join refunds r on r.id = rl.refund_id where r.store_id = $1`, [
    storeId,
  ]);
  const declined = await db.rows(`select method, amount, created_at from payments where store_id = $1 and status = 'declined'`, [storeId]);
  const searches = await db.rows(`select id, session_id, normalized_query, result_count, created_at from searches where store_id = $1`, [
    storeId,
  ]);
  const events = await db.rows(`select session_id, kind, occurred_at from storefront_events where store_id = $1`, [storeId]);
  const sessions = await db.rows(`select id, created_at from sessions where store_id = $1`, [storeId]);
  const products = await db.rows(
    `select p.id, p.name_en, p.status, p.created_at, (select coalesce(sum(v.stock), 0)::int from product_variants v where v.product_id = p.id) as stock
     from products p where p.store_id = $1`,
    [storeId],
  );
  const customers = await db.rows(`select id::text as id, email from insights_customers where store_id = $1`, [storeId]);

  const linesOf = (orderId: string): LineRecord[] =>
    lines
      .filter((l) => l.order_id === orderId)
      .map((l) => ({
        id: l.id,
        orderId: l.order_id,
        productId: l.product_id,
        variantId: l.variant_id,
        categoryId: l.category_id,
        brandId: l.brand_id,
        quantity: l.quantity,
        lineTotal: l.line_total,
        taxAmount: l.tax_amount,
        position: l.position,
      }));
  return {
    timezone: store.timezone,
    orders: orders.map((o) => ({
      id: o.id,
      number: o.number_text,
      email: o.email,
      locale: o.locale,
      status: o.status,
      fulfilmentStatus: o.fulfilment_status,
      paymentMethod: o.payment_method,
      fulfilmentType: o.fulfilment_type,
      shippingMethodCode: o.shipping_method_code,
      pricesIncludeTax: o.prices_include_tax,
      taxRateBps: o.tax_rate_bps,
      placedAsGuest: o.placed_as_guest,
      subtotal: o.subtotal,
      shippingTotal: o.shipping_total,
      taxTotal: o.tax_total,
      discountTotal: o.discount_total,
      total: o.total,
      placedAt: o.placed_at,
      promisedBy: o.promised_by,
      paidAt: o.paid_at,
      shippedAt: o.shipped_at,
      readyAt: o.ready_at,
      deliveredAt: o.delivered_at,
      cancelledAt: o.cancelled_at,
      lines: linesOf(o.id),
    })),
    refunds: refunds.map((r) => ({
      id: r.id,
      orderId: r.order_id,
      reason: r.reason,
      amount: r.amount,
      shippingAmount: r.shipping_amount,
      createdAt: r.created_at,
      lines: refundLines
        .filter((rl) => rl.refund_id === r.id)
        .map((rl) => ({ orderLineId: rl.order_line_id, quantity: rl.quantity, amount: rl.amount })),
    })),
    declined: declined.map((p) => ({ method: p.method, amount: p.amount, createdAt: p.created_at })),
    searches: searches.map((s) => ({
      id: s.id,
      sessionId: s.session_id,
      query: s.normalized_query,
      resultCount: s.result_count,
      createdAt: s.created_at,
    })),
    events: events.map((e) => ({ sessionId: e.session_id, kind: e.kind, occurredAt: e.occurred_at })),
    sessionsCreated: new Map(sessions.map((s) => [s.id, s.created_at])),
    products: products.map((p) => ({ id: p.id, name: p.name_en, status: p.status, createdAt: p.created_at, stock: p.stock })),
    customerIds: new Map(customers.map((c) => [c.email, c.id])),
  };
}
