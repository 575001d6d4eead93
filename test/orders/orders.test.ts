import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { signIn, variants, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import type { StorefrontClient } from '../support/storefront-client.js';

const COD = { paymentMethod: 'cash_on_delivery', email: 'guest@example.com' };

describe('orders (contract section 6)', () => {
  const t = useTestApp();
  let a: TestStore;
  let b: TestStore;

  /** Places an order of one unit of a fresh variant on the shopper's session. */
  async function order(shopper: StorefrontClient, store: TestStore, body: Record<string, unknown> = COD) {
    const [variant] = await variants(t.db, store.storeId, 1, 10);
    ok(await shopper.add(variant.id, 1));
    ok(await shopper.deliver());
    return ok(await shopper.place(body), 201);
  }

  beforeAll(async () => {
    [a, b] = await Promise.all([t.store({ seedCatalogue: true }), t.store({ seedCatalogue: true, productCount: 20 })]);
  });

  it('lists a guest’s orders newest first, page by page, and shows each in full', async () => {
    const guest = await t.shopper(a);
    expect(ok(await guest.call('GET', '/v1/orders'))).toEqual({ items: [], nextCursor: null });
    const placed = [];
    for (let index = 0; index < 3; index++) placed.push(await order(guest, a));
    // Two orders at the same instant: the id breaks the tie.
    await t.db.query(`update orders set placed_at = '2025-01-01T10:00:00Z' where id = any($1)`, [[placed[0].id, placed[1].id]]);
    const expected = [placed[2].id, ...[placed[0].id, placed[1].id].sort().reverse()];

    const first = ok(await guest.call('GET', '/v1/orders?limit=2'));
    expect(first.items.map((item: any) => item.id)).toEqual(expected.slice(0, 2));
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = ok(await guest.call('GET', `/v1/orders?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`));
    expect(second).toEqual({ items: [expect.objectContaining({ id: expected[2] })], nextCursor: null });
    expect(first.items[0]).toEqual({
      id: placed[2].id,
      number: placed[2].number,
      status: 'open',
      paymentMethod: 'cash_on_delivery',
      paymentStatus: 'pending',
      fulfilmentType: 'delivery',
      fulfilmentStatus: 'unfulfilled',
      itemCount: 1,
      total: placed[2].total,
      currency: 'SAR',
      placedAt: placed[2].placedAt,
      promisedBy: placed[2].promisedBy,
    });
    expectProblem(await guest.call('GET', '/v1/orders?cursor=garbage'), 400, 'VALIDATION_FAILED');
    expectProblem(await guest.call('GET', '/v1/orders?limit=101'), 400, 'VALIDATION_FAILED');

    const detail = ok(await guest.call('GET', `/v1/orders/${placed[2].id}`));
    expect(detail).toEqual(placed[2]);
    expect(Object.keys(detail).sort()).toEqual(
      [
        'cancelledAt',
        'currency',
        'deliveredAt',
        'discount',
        'email',
        'fulfilment',
        'fulfilmentStatus',
        'fulfilmentType',
        'id',
        'itemCount',
        'lines',
        'locale',
        'number',
        'paidAt',
        'payment',
        'paymentMethod',
        'paymentStatus',
        'placedAt',
        'promisedBy',
        'readyAt',
        'refunded',
        'refundedAt',
        'refunds',
        'shippedAt',
        'shipping',
        'status',
        'subtotal',
        'tax',
        'taxIncluded',
        'test',
        'total',
      ].sort(),
    );
  });

  it('another session’s or store’s order is not found', async () => {
    const owner = await t.shopper(a);
    const placed = await order(owner, a);
    const sameStore = await t.shopper(a);
    const otherStore = await t.shopper(b);
    for (const stranger of [sameStore, otherStore]) {
      expectProblem(await stranger.call('GET', `/v1/orders/${placed.id}`), 404, 'NOT_FOUND');
      expect(ok(await stranger.call('GET', '/v1/orders')).items).toEqual([]);
    }
    expectProblem(await owner.call('GET', '/v1/orders/not-a-uuid'), 404, 'NOT_FOUND');
    expectProblem(await owner.call('GET', `/v1/orders/${randomUUID()}`), 404, 'NOT_FOUND');
    // Store B's cart lines are out of reach too.
    const [variantB] = await variants(t.db, b.storeId, 1, 10);
    const cartB = ok(await otherStore.add(variantB.id));
    expectProblem(await owner.call('PATCH', `/v1/cart/items/${cartB.items[0].id}`, { quantity: 2 }), 404, 'NOT_FOUND');
    expectProblem(await owner.call('DELETE', `/v1/cart/items/${cartB.items[0].id}`), 404, 'NOT_FOUND');
  });

  it('a guest who signs in finds the cart and the guest orders under the shopper', async () => {
    const [{ id: shopperId }] = await t.db.rows(
      `insert into shoppers (store_id, email, email_normalized, locale) values ($1, 'Layla@Example.com', 'layla@example.com', 'en') returning id`,
      [a.storeId],
    );
    const guest = await t.shopper(a);
    const guestOrder = await order(guest, a);
    const [pending] = await variants(t.db, a.storeId, 1, 10);
    const cart = ok(await guest.add(pending.id, 2));

    // An order placed earlier by the shopper on another device.
    const device = await t.shopper(a);
    await signIn(t.app, a, device.sessionId, shopperId);
    const shopperOrder = await order(device, a, { paymentMethod: 'cash_on_delivery' });
    expect(shopperOrder).toMatchObject({ email: 'Layla@Example.com', locale: 'en' });

    await signIn(t.app, a, guest.sessionId, shopperId);
    const seen = ok(await guest.call('GET', '/v1/orders'));
    expect(seen.items.map((item: any) => item.id).sort()).toEqual([guestOrder.id, shopperOrder.id].sort());
    expect(ok(await guest.call('GET', `/v1/orders/${guestOrder.id}`)).id).toBe(guestOrder.id);
    expect(ok(await device.call('GET', `/v1/orders/${guestOrder.id}`)).id).toBe(guestOrder.id);
    expect(ok(await guest.cart())).toMatchObject({ id: cart.id, items: [{ variantId: pending.id, quantity: 2 }] });
    expect(ok(await device.cart()).id).toBe(cart.id);

    // Signed out, the session sees only its own guest orders again: none left.
    await t.db.query('update sessions set shopper_id = null where id = $1', [guest.sessionId]);
    expect(ok(await guest.call('GET', '/v1/orders')).items).toEqual([]);
  });
});
