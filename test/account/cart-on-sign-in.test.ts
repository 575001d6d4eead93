import { beforeAll, describe, expect, it } from 'vitest';
import { type TestStore } from '../support/fixtures.js';
import { expectProblem } from '../support/problem.js';
import { useTestApp } from '../support/harness.js';
import type { StorefrontClient } from '../support/storefront-client.js';
import { latestCode, signedUp, uniqueEmail } from './helpers.js';

interface Line {
  variant_id: string;
  quantity: number;
}

describe('the anonymous cart survives sign-in', () => {
  const t = useTestApp();
  let store: TestStore;
  let variants: string[];

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 5 });
    const { rows } = await t.db.query<{ id: string }>('select id from product_variants where store_id = $1 order by sku limit 3', [
      store.storeId,
    ]);
    variants = rows.map((row) => row.id);
  });

  /** An anonymous cart for the session, as the cart endpoints would leave it. */
  async function anonymousCart(s: StorefrontClient, lines: Line[]): Promise<string> {
    const { rows } = await t.db.query<{ id: string }>(
      `insert into carts (store_id, session_id, currency) values ($1, $2, 'SAR') returning id`,
      [store.storeId, s.sessionId],
    );
    for (const line of lines) {
      await t.db.query('insert into cart_items (store_id, cart_id, variant_id, quantity) values ($1, $2, $3, $4)', [
        store.storeId,
        rows[0].id,
        line.variant_id,
        line.quantity,
      ]);
    }
    return rows[0].id;
  }

  async function shopperLines(shopperId: string): Promise<Line[]> {
    const { rows } = await t.db.query<Line>(
      `select i.variant_id, i.quantity from carts c join cart_items i on i.cart_id = c.id
       where c.shopper_id = $1 and c.status = 'active' order by i.variant_id`,
      [shopperId],
    );
    return rows;
  }

  const sorted = (lines: Line[]) => [...lines].sort((a, b) => a.variant_id.localeCompare(b.variant_id));

  it('registering (code verified) takes the anonymous cart along', async () => {
    const s = await t.shopper(store);
    const lines = [
      { variant_id: variants[0], quantity: 2 },
      { variant_id: variants[1], quantity: 1 },
    ];
    const cartId = await anonymousCart(s, lines);
    const email = uniqueEmail();
    expect((await s.call('POST', '/v1/account/register', { email, password: 'correct horse battery' })).statusCode).toBe(202);
    const verified = await s.call('POST', '/v1/account/one-time-codes/verify', {
      email,
      code: await latestCode(t.db, store.storeId, email),
    });
    expect(verified.statusCode).toBe(200);
    const shopperId = verified.json().id;
    expect(await shopperLines(shopperId)).toEqual(sorted(lines));
    const { rows } = await t.db.query('select shopper_id, session_id, status from carts where id = $1', [cartId]);
    expect(rows[0]).toEqual({ shopper_id: shopperId, session_id: s.sessionId, status: 'active' });
  });

  it('password sign-in merges into the shopper’s existing cart: the anonymous quantity wins for a shared variant', async () => {
    const shopper = await signedUp(t, store);
    const { rows } = await t.db.query<{ id: string }>(
      `insert into carts (store_id, session_id, shopper_id, currency) values ($1, $2, $3, 'SAR') returning id`,
      [store.storeId, shopper.sessionId, shopper.shopperId],
    );
    await t.db.query('insert into cart_items (store_id, cart_id, variant_id, quantity) values ($1, $2, $3, 5), ($1, $2, $4, 1)', [
      store.storeId,
      rows[0].id,
      variants[0],
      variants[1],
    ]);
    expect((await shopper.call('POST', '/v1/account/sign-out')).statusCode).toBe(204);
    // Signed out: the shopper's cart stays the shopper's.
    expect(await shopperLines(shopper.shopperId)).toHaveLength(2);

    const elsewhere = await t.shopper(store);
    const anonymousId = await anonymousCart(elsewhere, [
      { variant_id: variants[0], quantity: 2 },
      { variant_id: variants[2], quantity: 3 },
    ]);
    const signedIn = await elsewhere.call('POST', '/v1/account/sign-in', {
      email: shopper.email,
      password: shopper.password,
    });
    expect(signedIn.statusCode).toBe(200);
    expect(await shopperLines(shopper.shopperId)).toEqual(
      sorted([
        { variant_id: variants[0], quantity: 2 },
        { variant_id: variants[1], quantity: 1 },
        { variant_id: variants[2], quantity: 3 },
      ]),
    );
    const merged = await t.db.query('select status from carts where id = $1', [anonymousId]);
    expect(merged.rows[0].status).toBe('merged');
  });

  it('a refused sign-in leaves the anonymous cart alone', async () => {
    const first = await signedUp(t, store);
    const s = await t.shopper(store);
    const cartId = await anonymousCart(s, [{ variant_id: variants[0], quantity: 1 }]);
    expectProblem(
      await s.call('POST', '/v1/account/sign-in', { email: first.email, password: 'wrong password' }),
      401,
      'INVALID_CREDENTIALS',
    );
    const { rows } = await t.db.query('select shopper_id, status from carts where id = $1', [cartId]);
    expect(rows[0]).toEqual({ shopper_id: null, status: 'active' });
  });
});
