import { beforeAll, describe, expect, it } from 'vitest';
import { signIn, variants, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';

describe('cart (contract section 6)', () => {
  const t = useTestApp();
  let a: TestStore;
  let b: TestStore;

  beforeAll(async () => {
    [a, b] = await Promise.all([t.store({ seedCatalogue: true, productCount: 120 }), t.store({ seedCatalogue: true, productCount: 20 })]);
  });

  it('answers an empty cart without creating one', async () => {
    const shopper = await t.shopper(a);
    const cart = ok(await shopper.cart());
    expect(cart).toEqual({ id: null, currency: 'SAR', items: [], itemCount: 0, subtotal: 0, hasProblems: false });
    const { rows } = await t.db.query('select count(*)::int as n from carts where session_id = $1', [shopper.sessionId]);
    expect(rows[0].n).toBe(0);
  });

  it('adds lines with server-side prices, increases an existing line and answers the whole cart', async () => {
    const shopper = await t.shopper(a);
    const [first, second] = await variants(t.db, a.storeId, 2, 20);
    let cart = ok(await shopper.add(first.id, 2));
    cart = ok(await shopper.add(second.id));
    cart = ok(await shopper.add(first.id, 3));
    expect(cart.items).toHaveLength(2);
    const line = cart.items.find((item: any) => item.variantId === first.id);
    const { rows } = await t.db.query(
      `select p.id, p.slug, p.name_en, p.name_ar, pv.sku, pv.options from product_variants pv join products p on p.id = pv.product_id where pv.id = $1`,
      [first.id],
    );
    expect(line).toEqual({
      id: expect.any(String),
      variantId: first.id,
      product: { id: rows[0].id, slug: rows[0].slug, name: { en: rows[0].name_en, ar: rows[0].name_ar } },
      sku: rows[0].sku,
      name: { en: rows[0].name_en, ar: rows[0].name_ar },
      options: rows[0].options,
      quantity: 5,
      unitPrice: first.price,
      lineTotal: first.price * 5,
      currency: 'SAR',
      available: 20,
      purchasable: true,
      problems: [],
    });
    expect(cart.itemCount).toBe(6);
    expect(cart.subtotal).toBe(first.price * 5 + second.price);

    // A price change shows on the next read: totals are never stored.
    await t.db.query('update product_variants set price = price + 100 where id = $1', [first.id]);
    const reread = ok(await shopper.cart());
    expect(reread.id).toBe(cart.id);
    expect(reread.subtotal).toBe((first.price + 100) * 5 + second.price);
  });

  it('sets and removes lines; another session’s line is not found', async () => {
    const shopper = await t.shopper(a);
    const other = await t.shopper(a);
    const [variant] = await variants(t.db, a.storeId, 1, 10);
    const cart = ok(await shopper.add(variant.id, 1));
    const itemId = cart.items[0].id;
    expect(ok(await shopper.call('PATCH', `/v1/cart/items/${itemId}`, { quantity: 7 })).items[0].quantity).toBe(7);
    expectProblem(await other.call('PATCH', `/v1/cart/items/${itemId}`, { quantity: 1 }), 404, 'NOT_FOUND');
    expectProblem(await other.call('DELETE', `/v1/cart/items/${itemId}`), 404, 'NOT_FOUND');
    expectProblem(await shopper.call('DELETE', '/v1/cart/items/not-a-uuid'), 404, 'NOT_FOUND');
    const emptied = ok(await shopper.call('DELETE', `/v1/cart/items/${itemId}`));
    expect(emptied).toMatchObject({ id: cart.id, items: [], itemCount: 0, subtotal: 0 });
    expectProblem(await shopper.call('DELETE', `/v1/cart/items/${itemId}`), 404, 'NOT_FOUND');
  });

  it('checks stock on every change and names the line', async () => {
    const shopper = await t.shopper(a);
    const [variant] = await variants(t.db, a.storeId, 1, 4);
    const refused = expectProblem(await shopper.add(variant.id, 5), 409, 'INSUFFICIENT_STOCK');
    expect(refused.lines).toEqual([{ variantId: variant.id, requested: 5, available: 4 }]);
    const cart = ok(await shopper.add(variant.id, 3));
    expect(expectProblem(await shopper.add(variant.id, 2), 409, 'INSUFFICIENT_STOCK').lines).toEqual([
      { variantId: variant.id, requested: 5, available: 4 },
    ]);
    const itemId = cart.items[0].id;
    expectProblem(await shopper.call('PATCH', `/v1/cart/items/${itemId}`, { quantity: 9 }), 409, 'INSUFFICIENT_STOCK');

    // Stock sold elsewhere shows as a problem of the line.
    await t.db.query('update product_variants set stock = 1 where id = $1', [variant.id]);
    const reread = ok(await shopper.cart());
    expect(reread.items[0]).toMatchObject({
      quantity: 3,
      available: 1,
      purchasable: true,
      problems: [{ code: 'INSUFFICIENT_STOCK', available: 1 }],
    });
    expect(reread.hasProblems).toBe(true);
  });

  it('refuses variants that are not for sale here, and shows lines that stopped being for sale', async () => {
    const shopper = await t.shopper(a);
    const [otherStores] = await variants(t.db, b.storeId, 1, 10);
    const refused = expectProblem(await shopper.add(otherStores.id), 409, 'VARIANT_UNAVAILABLE');
    expect(refused.variantId).toBe(otherStores.id);
    expectProblem(await shopper.add('00000000-0000-4000-8000-000000000000'), 409, 'VARIANT_UNAVAILABLE');

    const [variant, drafted] = await variants(t.db, a.storeId, 2, 10);
    ok(await shopper.add(variant.id));
    const cart = ok(await shopper.add(drafted.id));
    await t.db.query(`update products set status = 'draft' where id = $1`, [drafted.product_id]);
    expectProblem(await shopper.add(drafted.id), 409, 'VARIANT_UNAVAILABLE');
    const line = cart.items.find((item: any) => item.variantId === drafted.id);
    expectProblem(await shopper.call('PATCH', `/v1/cart/items/${line.id}`, { quantity: 2 }), 409, 'VARIANT_UNAVAILABLE');
    const reread = ok(await shopper.cart());
    expect(reread.items.find((item: any) => item.variantId === drafted.id)).toMatchObject({
      purchasable: false,
      problems: [{ code: 'VARIANT_UNAVAILABLE' }],
    });
    // A line that is not for sale can still be removed.
    ok(await shopper.call('DELETE', `/v1/cart/items/${line.id}`));
    await t.db.query(`update products set status = 'active' where id = $1`, [drafted.product_id]);
  });

  it('validates quantities and fields', async () => {
    const shopper = await t.shopper(a);
    const [variant] = await variants(t.db, a.storeId, 1, 2000);
    for (const body of [
      { variantId: variant.id, quantity: 0 },
      { variantId: variant.id, quantity: 1000 },
      { variantId: variant.id, quantity: 1.5 },
      { variantId: 'x' },
      { variantId: variant.id, price: 1 },
    ]) {
      expectProblem(await shopper.call('POST', '/v1/cart/items', body), 400, 'VALIDATION_FAILED');
    }
    const tooMany = expectProblem(
      await shopper.call('POST', '/v1/cart/items', { variantId: variant.id, quantity: 1000 }),
      400,
      'VALIDATION_FAILED',
    );
    expect(tooMany.errors).toEqual([expect.objectContaining({ field: 'quantity', code: 'max', message_en: 'Must be at most 999.' })]);
    const absent = expectProblem(
      await shopper.call('POST', '/v1/cart/items', { variantId: variant.id, quantity: null }),
      400,
      'VALIDATION_FAILED',
    );
    expect(absent.errors).toEqual([expect.objectContaining({ field: 'quantity', code: 'isDefined' })]);
  });

  it('answers CART_LIMIT_REACHED when an add would take a line past 999 units', async () => {
    const shopper = await t.shopper(a);
    const [variant] = await variants(t.db, a.storeId, 1, 2000);
    ok(await shopper.add(variant.id, 999));
    const refused = expectProblem(await shopper.add(variant.id, 1), 409, 'CART_LIMIT_REACHED');
    expect(refused).toMatchObject({ variantId: variant.id, quantityInCart: 999, maxQuantityPerLine: 999, maxLines: 100 });
    expect(ok(await shopper.cart()).itemCount).toBe(999);
  });

  it('holds at most 100 lines', async () => {
    const shopper = await t.shopper(a);
    const many = await variants(t.db, a.storeId, 101, 5);
    // 100 lines written directly, the 101st through the API.
    ok(await shopper.add(many[0].id));
    const cart = ok(await shopper.cart());
    await t.db.query(`insert into cart_items (store_id, cart_id, variant_id, quantity) select $1, $2, unnest($3::uuid[]), 1`, [
      a.storeId,
      cart.id,
      many.slice(1, 100).map((variant) => variant.id),
    ]);
    const refused = expectProblem(await shopper.add(many[100].id), 409, 'CART_LIMIT_REACHED');
    expect(refused.maxLines).toBe(100);
    // An existing line can still grow.
    expect(ok(await shopper.add(many[0].id)).itemCount).toBe(101);
  });

  it('two concurrent first adds share one cart', async () => {
    const shopper = await t.shopper(a);
    const pair = await variants(t.db, a.storeId, 2, 10);
    const responses = await Promise.all(pair.map((variant) => shopper.callOverHttp('POST', '/v1/cart/items', { variantId: variant.id })));
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200]);
    const cart = ok(await shopper.cart());
    expect(cart.items).toHaveLength(2);
    const { rows } = await t.db.query('select count(*)::int as n from carts where session_id = $1', [shopper.sessionId]);
    expect(rows[0].n).toBe(1);
  });

  it('follows the shopper: an anonymous cart merges into the shopper’s cart at sign-in', async () => {
    const { rows } = await t.db.query(
      `insert into shoppers (store_id, email, email_normalized) values ($1, 'cart@example.com', 'cart@example.com') returning id`,
      [a.storeId],
    );
    const shopperId = rows[0].id;
    const earlier = await t.shopper(a);
    const [kept, both, fresh] = await variants(t.db, a.storeId, 3, 20);
    ok(await earlier.add(kept.id, 1));
    ok(await earlier.add(both.id, 1));
    await signIn(t.app, a, earlier.sessionId, shopperId);
    expect(ok(await earlier.cart()).items.map((item: any) => [item.variantId, item.quantity])).toEqual([
      [kept.id, 1],
      [both.id, 1],
    ]);

    const later = await t.shopper(a);
    ok(await later.add(both.id, 4));
    ok(await later.add(fresh.id, 2));
    await signIn(t.app, a, later.sessionId, shopperId);
    const merged = ok(await later.cart());
    expect(Object.fromEntries(merged.items.map((item: any) => [item.variantId, item.quantity]))).toEqual({
      [kept.id]: 1,
      [both.id]: 4,
      [fresh.id]: 2,
    });
    expect(ok(await earlier.cart()).id).toBe(merged.id);
  });
});
