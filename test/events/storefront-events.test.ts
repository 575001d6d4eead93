import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { StorefrontEventRecorder } from '../../src/storefront/events/storefront-event-recorder.js';
import { createStore, mint, variants, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import type { StorefrontClient } from '../support/storefront-client.js';
import { startTestApp } from '../support/test-app.js';

interface EventRow {
  kind: string;
  product_id: string | null;
  order_id: string | null;
  occurred_at: Date;
}

const COD = { paymentMethod: 'cash_on_delivery', email: 'guest@example.com' };
const PICKUP = async (shopper: StorefrontClient, pickupLocationId: string) =>
  ok(await shopper.call('POST', '/v1/checkout/fulfilment', { type: 'pickup', pickupLocationId }));

describe('storefront events: each funnel step recorded once per real action (contract section 8)', () => {
  const t = useTestApp();
  let store: TestStore;
  let pickupLocationId: string;

  /** The session's events, in the order they were written, once every recorded event is written. */
  const eventsOf = async (sessionId: string) => {
    await t.app.get(StorefrontEventRecorder).drain();
    return t.db.rows<EventRow>(
      'select kind, product_id, order_id, occurred_at from storefront_events where session_id = $1 and store_id = $2 order by occurred_at, id',
      [sessionId, store.storeId],
    );
  };
  const kinds = async (sessionId: string) => (await eventsOf(sessionId)).map((event) => event.kind);

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 20 });
    [{ id: pickupLocationId }] = await t.db.rows<{ id: string }>('select id from pickup_locations where store_id = $1', [store.storeId]);
  });

  it('session_started once per mint, at the session’s creation time', async () => {
    const minted = ok(await mint(t.app, store.key), 201);
    expect((await eventsOf(minted.sessionId)).map((event) => [event.kind, event.product_id, event.order_id])).toEqual([
      ['session_started', null, null],
    ]);
    // To the microsecond, as PostgreSQL keeps both.
    const [started] = await t.db.rows<{ same: boolean }>(
      `select e.occurred_at = s.created_at as same from storefront_events e join sessions s on s.id = e.session_id where e.session_id = $1`,
      [minted.sessionId],
    );
    expect(started.same).toBe(true);

    // A refresh continues the session: nothing new starts.
    const refreshed = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/refresh',
      headers: { 'x-api-key': store.key, 'content-type': 'application/json' },
      payload: { refreshToken: minted.refreshToken },
    });
    ok(refreshed);
    expect(await kinds(minted.sessionId)).toEqual(['session_started']);
  });

  it('product_viewed once per session and product, whether read by id or slug, with 200 or 304; not for a product not found', async () => {
    const [product] = await t.db.rows<{ id: string; slug: string }>(
      `select id, slug from products where store_id = $1 and status = 'active' order by slug limit 1`,
      [store.storeId],
    );
    const shopper = await t.shopper(store);
    const first = await shopper.call('GET', `/v1/catalogue/products/${product.slug}`);
    expect(first.statusCode).toBe(200);
    const notModified = await shopper.call('GET', `/v1/catalogue/products/${product.slug}`, undefined, {
      'if-none-match': String(first.headers.etag),
    });
    expect(notModified.statusCode).toBe(304);
    ok(await shopper.call('GET', `/v1/catalogue/products/${product.id}`));
    expectProblem(await shopper.call('GET', '/v1/catalogue/products/no-such-product'), 404, 'NOT_FOUND');

    const events = await eventsOf(shopper.sessionId);
    expect(events.map((event) => [event.kind, event.product_id])).toEqual([
      ['session_started', null],
      ['product_viewed', product.id],
    ]);

    // Another session reading the same product is another view.
    const other = await t.shopper(store);
    ok(await other.call('GET', `/v1/catalogue/products/${product.slug}`));
    expect((await eventsOf(other.sessionId)).map((event) => [event.kind, event.product_id])).toEqual([
      ['session_started', null],
      ['product_viewed', product.id],
    ]);
  });

  it('cart_line_added on every successful add, with the variant’s product; none for a refused add', async () => {
    const shopper = await t.shopper(store);
    const [first, second] = await variants(t.db, store.storeId, 2, 5);
    ok(await shopper.add(first.id, 1));
    ok(await shopper.add(first.id, 1));
    ok(await shopper.add(second.id, 2));
    expectProblem(await shopper.add(first.id, 10), 409, 'INSUFFICIENT_STOCK');
    expectProblem(await shopper.add(randomUUID(), 1), 409, 'VARIANT_UNAVAILABLE');

    const events = await eventsOf(shopper.sessionId);
    expect(events.map((event) => [event.kind, event.product_id])).toEqual([
      ['session_started', null],
      ['cart_line_added', first.product_id],
      ['cart_line_added', first.product_id],
      ['cart_line_added', second.product_id],
    ]);
  });

  it('checkout_quoted on every successful quote, none for an empty cart', async () => {
    const shopper = await t.shopper(store);
    expectProblem(await shopper.quote(), 409, 'CART_EMPTY');
    const [variant] = await variants(t.db, store.storeId, 1, 5);
    ok(await shopper.add(variant.id, 1));
    ok(await shopper.quote());
    ok(await shopper.quote());
    // Choosing the fulfilment answers a quote too, but is not a quote request.
    await PICKUP(shopper, pickupLocationId);
    expect(await kinds(shopper.sessionId)).toEqual(['session_started', 'cart_line_added', 'checkout_quoted', 'checkout_quoted']);
  });

  it('order_placed once per order placed, with its id; a replay of the same key records nothing more', async () => {
    const shopper = await t.shopper(store);
    const [variant] = await variants(t.db, store.storeId, 1, 5);
    ok(await shopper.add(variant.id, 1));
    ok(await shopper.quote());
    await PICKUP(shopper, pickupLocationId);
    const key = randomUUID();
    const order = ok(await shopper.place(COD, key), 201);
    const replay = await shopper.place(COD, key);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().id).toBe(order.id);
    // The cart is converted: a second attempt with another key places nothing.
    expectProblem(await shopper.place(COD, randomUUID()), 409, 'CART_EMPTY');

    const events = await eventsOf(shopper.sessionId);
    expect(events.map((event) => [event.kind, event.product_id, event.order_id])).toEqual([
      ['session_started', null, null],
      ['cart_line_added', variant.product_id, null],
      ['checkout_quoted', null, null],
      ['order_placed', null, order.id],
    ]);
    // In the order things happened, and the order's event not before it was placed.
    const times = events.map((event) => event.occurred_at.getTime());
    expect(times).toEqual([...times].sort((x, y) => x - y));
    const [placed] = await t.db.rows<{ placed_at: Date }>('select placed_at from orders where id = $1', [order.id]);
    expect(events[3].occurred_at.getTime()).toBeGreaterThanOrEqual(placed.placed_at.getTime());
  });

  it('a declined card places no order and records no order_placed', async () => {
    const shopper = await t.shopper(store);
    const [variant] = await variants(t.db, store.storeId, 1, 5);
    ok(await shopper.add(variant.id, 1));
    await PICKUP(shopper, pickupLocationId);
    expectProblem(
      await shopper.place({ paymentMethod: 'card', card: { token: 'tok_chargeDeclined' }, email: 'card@example.com' }),
      402,
      'PAYMENT_DECLINED',
    );
    expect(await kinds(shopper.sessionId)).toEqual(['session_started', 'cart_line_added']);
  });

  it('requests that arrive together share a batch (one INSERT), and every event is written', async () => {
    const [product] = await t.db.rows<{ id: string }>(`select id from products where store_id = $1 and status = 'active' limit 1`, [
      store.storeId,
    ]);
    const shoppers = await Promise.all(Array.from({ length: 30 }, () => t.shopper(store)));
    const recorder = t.app.get(StorefrontEventRecorder);
    await recorder.drain();
    const insert = vi.spyOn(recorder as unknown as { insert: (batch: unknown[]) => Promise<void> }, 'insert');
    try {
      await Promise.all(shoppers.map((shopper) => shopper.call('GET', `/v1/catalogue/products/${product.id}`)));
      await recorder.drain();
      const batches = insert.mock.calls.map(([batch]) => batch.length);
      expect(batches.reduce((sum, size) => sum + size, 0)).toBe(30);
      expect(batches.length).toBeLessThan(30);
    } finally {
      insert.mockRestore();
    }
    const [counted] = await t.db.rows<{ views: number }>(
      `select count(*)::int as views from storefront_events where kind = 'product_viewed' and product_id = $1 and session_id = any($2::uuid[])`,
      [product.id, shoppers.map((shopper) => shopper.sessionId)],
    );
    expect(counted.views).toBe(30);
  });

  it('events recorded over several turns of the event loop gather into one INSERT, written within the window without a drain', async () => {
    const recorder = t.app.get(StorefrontEventRecorder);
    await recorder.drain();
    const insert = vi.spyOn(recorder as unknown as { insert: (batch: unknown[]) => Promise<void> }, 'insert');
    const sessionIds = Array.from({ length: 5 }, () => randomUUID());
    try {
      for (const sessionId of sessionIds) {
        recorder.record({ storeId: store.storeId, sessionId, kind: 'session_started' });
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(insert).not.toHaveBeenCalled();
      await vi.waitFor(() => expect(insert).toHaveBeenCalled(), { timeout: 2000, interval: 20 });
      expect(insert.mock.calls.map(([batch]) => batch.length)).toEqual([5]);
    } finally {
      insert.mockRestore();
    }
    await vi.waitFor(
      async () => {
        const rows = await t.db.rows('select 1 from storefront_events where session_id = any($1::uuid[])', [sessionIds]);
        expect(rows).toHaveLength(5);
      },
      { timeout: 2000, interval: 20 },
    );
  });

  it('writes what was recorded before the app stops: the recorder is drained on shutdown', async () => {
    const instance = await startTestApp();
    let sessionIds: string[];
    try {
      const other = await createStore(instance.app);
      // No drain: close() must write these.
      sessionIds = (await Promise.all(Array.from({ length: 5 }, () => mint(instance.app, other.key)))).map(
        (response) => ok(response, 201).sessionId as string,
      );
    } finally {
      await instance.close();
    }
    const [counted] = await t.db.rows<{ started: number }>(
      `select count(*)::int as started from storefront_events where kind = 'session_started' and session_id = any($1::uuid[])`,
      [sessionIds],
    );
    expect(counted.started).toBe(5);
  });
});

describe('storefront events: a failed write is logged, never shown to the shopper', () => {
  const lines: string[] = [];
  // Its own database: the table is broken for a while, which no other suite may see.
  const t = useTestApp({ LOG_LEVEL: 'warn' }, { ownDatabase: true, logTo: { write: (line) => void lines.push(line) } });
  let store: TestStore;

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 10 });
  });

  it('answers every step as usual while the events cannot be written, and records again once they can', async () => {
    await t.db.query('alter table storefront_events add constraint refuse_every_event check (false) not valid');
    let failing: StorefrontClient;
    try {
      failing = await t.shopper(store);
      const [variant] = await variants(t.db, store.storeId, 1, 5);
      ok(await failing.call('GET', `/v1/catalogue/products/${variant.product_id}`));
      ok(await failing.add(variant.id, 1));
      ok(await failing.quote());
      await t.app.get(StorefrontEventRecorder).drain();
    } finally {
      await t.db.query('alter table storefront_events drop constraint refuse_every_event');
    }
    const warnings = lines.filter((line) => line.includes('storefront events not recorded'));
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.join('\n')).toContain('refuse_every_event');
    expect(await t.db.rows('select 1 from storefront_events where session_id = $1', [failing.sessionId])).toEqual([]);

    const working = await t.shopper(store);
    await t.app.get(StorefrontEventRecorder).drain();
    expect(await t.db.rows('select kind from storefront_events where session_id = $1', [working.sessionId])).toEqual([
      { kind: 'session_started' },
    ]);
  });
});
