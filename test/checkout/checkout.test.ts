import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/common/scopes.js';
import { mulDivHalfUp, taxOf, totalsOf } from '../../src/storefront/pricing/pricing.js';
import { accessToken, variants, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok, parse } from '../support/responses.js';
import { ADDRESS } from '../support/storefront-client.js';
import { eventually } from '../support/waiting.js';
import { ISO_UTC } from '../support/formats.js';

const COD = { paymentMethod: 'cash_on_delivery', email: 'guest@example.com' };

describe('tax rounding (half up on minor units)', () => {
  it('rounds halves up and everything else to the nearest unit', () => {
    expect(mulDivHalfUp(10, 1500, 10_000)).toBe(2); // 1.5
    expect(mulDivHalfUp(3, 1500, 10_000)).toBe(0); // 0.45
    expect(mulDivHalfUp(7, 1500, 10_000)).toBe(1); // 1.05
    expect(mulDivHalfUp(2 ** 31, 999 * 1500, 10_000)).toBe(321_800_424_653); // 321800424652.8: the product passes 2^53 before dividing
  });

  it('takes the included part, or adds on top', () => {
    expect(taxOf(999, { taxRateBps: 1500, pricesIncludeTax: true })).toBe(130); // 130.30
    expect(taxOf(1000, { taxRateBps: 1500, pricesIncludeTax: true })).toBe(130); // 130.43
    expect(taxOf(1004, { taxRateBps: 1500, pricesIncludeTax: true })).toBe(131); // 130.96
    expect(taxOf(999, { taxRateBps: 1500, pricesIncludeTax: false })).toBe(150); // 149.85
    expect(taxOf(990, { taxRateBps: 1500, pricesIncludeTax: false })).toBe(149); // 148.5
    expect(taxOf(999, { taxRateBps: 0, pricesIncludeTax: false })).toBe(0);
    expect(totalsOf([999, 10], 2500, { taxRateBps: 1500, pricesIncludeTax: false })).toEqual({
      subtotal: 1009,
      shipping: 2500,
      lineTaxes: [150, 2],
      shippingTax: 375,
      tax: 527,
      total: 4036,
    });
    expect(totalsOf([999, 10], 2500, { taxRateBps: 1500, pricesIncludeTax: true })).toMatchObject({
      lineTaxes: [130, 1],
      shippingTax: 326,
      tax: 457,
      total: 3509,
    });
  });
});

describe('checkout (contract section 6)', () => {
  const t = useTestApp();
  let store: TestStore;
  let other: TestStore;

  beforeAll(async () => {
    [store, other] = await Promise.all([
      t.store({ seedCatalogue: true, productCount: 120 }),
      t.store({ seedCatalogue: true, productCount: 20 }),
    ]);
  });

  it('every endpoint refuses a token lacking its scope', async () => {
    const endpoints: [string, 'GET' | 'POST' | 'PATCH' | 'DELETE', string][] = [
      ['cart:read', 'GET', '/v1/cart'],
      ['cart:write', 'POST', '/v1/cart/items'],
      ['cart:write', 'PATCH', `/v1/cart/items/${randomUUID()}`],
      ['cart:write', 'DELETE', `/v1/cart/items/${randomUUID()}`],
      ['checkout:write', 'POST', '/v1/checkout/quote'],
      ['checkout:write', 'POST', '/v1/checkout/fulfilment'],
      ['checkout:write', 'POST', '/v1/checkout/orders'],
      ['orders:read', 'GET', '/v1/orders'],
      ['orders:read', 'GET', `/v1/orders/${randomUUID()}`],
    ];
    for (const [scope, method, url] of endpoints) {
      const token = await accessToken(
        t.app,
        store.key,
        SCOPES.filter((candidate) => candidate !== scope),
      );
      const response = await t.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        ...(method === 'GET' ? {} : { payload: '{}' }),
      });
      expect(expectProblem(response, 403, 'INSUFFICIENT_SCOPE').requiredScope, `${method} ${url}`).toBe(scope);
    }
  });

  it('quotes the cart with delivery and pickup options, free delivery over the threshold', async () => {
    const shopper = await t.shopper(store);
    expectProblem(await shopper.quote(), 409, 'CART_EMPTY');
    const [cheap] = await variants(t.db, store.storeId, 1, 10, 1000);
    ok(await shopper.add(cheap.id, 2));
    const quote = ok(await shopper.quote());
    const [pickup] = await t.db.rows(`select id from pickup_locations where store_id = $1`, [store.storeId]);
    expect(quote).toMatchObject({
      itemCount: 2,
      subtotal: 2000,
      shipping: 0,
      tax: 261, // 2000 × 15/115 = 260.87, included
      total: 2000,
      currency: 'SAR',
      taxIncluded: true,
      taxRateBps: 1500,
      fulfilment: null,
      hasProblems: false,
      options: {
        delivery: [
          { code: 'standard', name: { en: 'Standard delivery', ar: 'التوصيل العادي' }, price: 2500 },
          { code: 'express', name: { en: 'Express delivery', ar: 'التوصيل السريع' }, price: 4500 },
        ],
        pickup: [{ id: pickup.id, code: 'riyadh-olaya', name: { en: 'Olaya store', ar: 'فرع العليا' }, city: 'Riyadh' }],
      },
    });
    expect(quote.lines).toHaveLength(1);
    expect(quote.options.delivery[0].estimatedDelivery).toEqual({
      from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      to: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect(quote.options.pickup[0].readyBy).toMatch(ISO_UTC);

    const delivered = ok(await shopper.deliver('standard'));
    expect(delivered.fulfilment).toMatchObject({
      type: 'delivery',
      shippingMethod: { code: 'standard', price: 2500 },
      address: { ...ADDRESS, line2: '', region: '', postalCode: '' },
    });
    expect(delivered).toMatchObject({ shipping: 2500, tax: 261 + 326, total: 4500 });

    // 30000 reaches the standard method's free_over.
    await t.db.query('update product_variants set price = 15000 where id = $1', [cheap.id]);
    expect(ok(await shopper.quote())).toMatchObject({ subtotal: 30000, shipping: 0, total: 30000 });

    const picked = ok(await shopper.call('POST', '/v1/checkout/fulfilment', { type: 'pickup', pickupLocationId: pickup.id }));
    expect(picked.fulfilment).toMatchObject({ type: 'pickup', pickupLocation: { id: pickup.id, code: 'riyadh-olaya' } });
    expect(picked.shipping).toBe(0);
  });

  it('refuses unknown or misplaced fulfilment choices with a clear code', async () => {
    const shopper = await t.shopper(store);
    const [variant] = await variants(t.db, store.storeId, 1, 10);
    expectProblem(await shopper.deliver(), 409, 'CART_EMPTY');
    ok(await shopper.add(variant.id));
    expectProblem(await shopper.deliver('teleport'), 422, 'SHIPPING_METHOD_UNKNOWN');
    const [otherPickup] = await t.db.rows(`select id from pickup_locations where store_id = $1`, [other.storeId]);
    expectProblem(
      await shopper.call('POST', '/v1/checkout/fulfilment', { type: 'pickup', pickupLocationId: otherPickup.id }),
      422,
      'PICKUP_LOCATION_UNKNOWN',
    );
    expectProblem(
      await shopper.call('POST', '/v1/checkout/fulfilment', { type: 'delivery', shippingMethod: 'standard', addressId: randomUUID() }),
      403,
      'SIGN_IN_REQUIRED',
    );
    for (const body of [
      { type: 'delivery', shippingMethod: 'standard' },
      { type: 'delivery', address: ADDRESS },
      { type: 'delivery', shippingMethod: 'standard', address: { ...ADDRESS, country: 'Saudi' } },
      { type: 'delivery', shippingMethod: 'standard', address: { ...ADDRESS, extra: 1 } },
      { type: 'delivery', shippingMethod: 'standard', address: ADDRESS, pickupLocationId: otherPickup.id },
      { type: 'pickup' },
      { type: 'pickup', pickupLocationId: otherPickup.id, shippingMethod: 'standard' },
      { type: 'drone' },
    ]) {
      expectProblem(await shopper.call('POST', '/v1/checkout/fulfilment', body), 400, 'VALIDATION_FAILED');
    }
  });

  it('uses a saved address of the signed-in shopper as a snapshot', async () => {
    const shopper = await t.shopper(store);
    const [owner] = await t.db.rows(
      `insert into shoppers (store_id, email, email_normalized) values ($1, 'addr@example.com', 'addr@example.com') returning id`,
      [store.storeId],
    );
    const [address] = await t.db.rows(
      `insert into addresses (store_id, shopper_id, full_name, phone, line1, city, country) values ($1, $2, 'Omar', '+966500000001', 'Tahlia St 1', 'Jeddah', 'SA') returning id`,
      [store.storeId, owner.id],
    );
    await t.db.query('update sessions set shopper_id = $1 where id = $2', [owner.id, shopper.sessionId]);
    const [variant] = await variants(t.db, store.storeId, 1, 10);
    ok(await shopper.add(variant.id));
    const quote = ok(
      await shopper.call('POST', '/v1/checkout/fulfilment', { type: 'delivery', shippingMethod: 'express', addressId: address.id }),
    );
    expect(quote.fulfilment.address).toEqual({
      fullName: 'Omar',
      phone: '+966500000001',
      line1: 'Tahlia St 1',
      line2: '',
      district: '',
      city: 'Jeddah',
      region: '',
      postalCode: '',
      country: 'SA',
    });
    await t.db.query(`update addresses set city = 'Mecca' where id = $1`, [address.id]);
    expect(ok(await shopper.quote()).fulfilment.address.city).toBe('Jeddah');
    const stranger = await t.shopper(store);
    const [strangerId] = await t.db.rows(
      `insert into shoppers (store_id, email, email_normalized) values ($1, 's@example.com', 's@example.com') returning id`,
      [store.storeId],
    );
    await t.db.query('update sessions set shopper_id = $1 where id = $2', [strangerId.id, stranger.sessionId]);
    ok(await stranger.add(variant.id));
    expectProblem(
      await stranger.call('POST', '/v1/checkout/fulfilment', { type: 'delivery', shippingMethod: 'express', addressId: address.id }),
      422,
      'ADDRESS_UNKNOWN',
    );
  });

  it('computes tax with tax-exclusive prices too', async () => {
    const taxed = await t.store({ seedCatalogue: true, productCount: 10 });
    await t.db.query('update stores set prices_include_tax = false, tax_rate_bps = 1500 where id = $1', [taxed.storeId]);
    const shopper = await t.shopper(taxed);
    const [first, second] = await variants(t.db, taxed.storeId, 2, 10, 999);
    await t.db.query('update product_variants set price = 10 where id = $1', [second.id]);
    ok(await shopper.add(first.id));
    ok(await shopper.add(second.id));
    ok(await shopper.deliver('standard'));
    const quote = ok(await shopper.quote());
    // lines 999 → 149.85 → 150, 10 → 1.5 → 2; shipping 2500 → 375
    expect(quote).toMatchObject({ subtotal: 1009, shipping: 2500, tax: 527, total: 4036, taxIncluded: false });
    const order = ok(await shopper.place(COD), 201);
    expect(order).toMatchObject({ subtotal: 1009, shipping: 2500, tax: 527, total: 4036, taxIncluded: false });
    expect(order.lines.map((line: any) => line.tax).sort()).toEqual([150, 2]);
  });

  describe('placing an order', () => {
    it('needs an Idempotency-Key, an email for guests, items and a fulfilment choice', async () => {
      const shopper = await t.shopper(store);
      expectProblem(await shopper.place(COD, null), 400, 'IDEMPOTENCY_KEY_REQUIRED');
      expectProblem(await shopper.place(COD, 'has space'), 400, 'IDEMPOTENCY_KEY_INVALID');
      expectProblem(await shopper.place(COD, 'x'.repeat(256)), 400, 'IDEMPOTENCY_KEY_INVALID');
      expectProblem(await shopper.place(COD, 'مفتاح-1'), 400, 'IDEMPOTENCY_KEY_INVALID');
      expectProblem(await shopper.place(COD), 409, 'CART_EMPTY');
      const [variant] = await variants(t.db, store.storeId, 1, 10);
      ok(await shopper.add(variant.id));
      expectProblem(await shopper.place(COD), 409, 'FULFILMENT_REQUIRED');
      ok(await shopper.deliver());
      expect(expectProblem(await shopper.place({ paymentMethod: 'cash_on_delivery' }), 400, 'VALIDATION_FAILED').errors[0].field).toBe(
        'email',
      );
      expectProblem(await shopper.place({ paymentMethod: 'card', email: 'a@example.com' }), 400, 'VALIDATION_FAILED');
      expectProblem(await shopper.place({ ...COD, card: { token: 'tok_visa' } }), 400, 'VALIDATION_FAILED');
      expectProblem(await shopper.place({ paymentMethod: 'bitcoin', email: 'a@example.com' }), 400, 'VALIDATION_FAILED');
      for (const test of ['yes', 1, null]) {
        expect(expectProblem(await shopper.place({ ...COD, test }), 400, 'VALIDATION_FAILED').errors[0].field).toBe('test');
      }
      expect(await t.db.rows("select 1 from idempotency_claims where scope = 'checkout:' || $1", [shopper.sessionId])).toEqual([]);
    });

    it('places a cash-on-delivery order: stock, snapshots, states, timestamps and the cart', async () => {
      const shopper = await t.shopper(store);
      const [first, second] = await variants(t.db, store.storeId, 2, 10);
      ok(await shopper.add(first.id, 3));
      ok(await shopper.add(second.id, 1));
      const quote = ok(await shopper.deliver('standard'));
      const before = Date.now();
      const response = await shopper.place(COD, 'order-1');
      const order = ok(response, 201);
      expect(response.headers['idempotent-replayed']).toBeUndefined();
      expect(order).toMatchObject({
        id: expect.any(String),
        number: expect.stringMatching(/^\d+$/),
        status: 'open',
        paymentMethod: 'cash_on_delivery',
        paymentStatus: 'pending',
        fulfilmentType: 'delivery',
        fulfilmentStatus: 'unfulfilled',
        email: 'guest@example.com',
        itemCount: 4,
        subtotal: quote.subtotal,
        shipping: quote.shipping,
        tax: quote.tax,
        total: quote.total,
        currency: 'SAR',
        paidAt: null,
        shippedAt: null,
        test: false,
        payment: { method: 'cash_on_delivery', status: 'pending', amount: quote.total, currency: 'SAR' },
        fulfilment: {
          type: 'delivery',
          status: 'unfulfilled',
          shippingMethod: { code: 'standard', name: { en: 'Standard delivery' } },
          address: { city: 'Riyadh' },
          pickupLocation: null,
        },
      });
      expect(order.placedAt).toMatch(ISO_UTC);
      // standard promises max_days = 5
      const promised = Date.parse(order.promisedBy) - Date.parse(order.placedAt);
      expect(promised).toBe(5 * 86_400_000);
      expect(Date.parse(order.placedAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(order.lines.map((line: any) => [line.variantId, line.quantity, line.unitPrice, line.lineTotal])).toEqual([
        [first.id, 3, first.price, first.price * 3],
        [second.id, 1, second.price, second.price],
      ]);
      const stock = await t.db.rows('select id, stock from product_variants where id = any($1) order by id', [[first.id, second.id]]);
      expect(Object.fromEntries(stock.map((row) => [row.id, row.stock]))).toEqual({ [first.id]: 7, [second.id]: 9 });
      const [line] = await t.db.rows(
        `select ol.category_id, ol.brand_id, ol.sku, ol.product_name_en, p.category_id as cat, p.brand_id as brand, pv.sku as variant_sku
         from order_lines ol join product_variants pv on pv.id = ol.variant_id join products p on p.id = pv.product_id
         where ol.order_id = $1 and ol.variant_id = $2`,
        [order.id, first.id],
      );
      expect([line.category_id, line.brand_id, line.sku]).toEqual([line.cat, line.brand, line.variant_sku]);
      const [cart] = await t.db.rows(`select status, email from carts where session_id = $1`, [shopper.sessionId]);
      expect(cart).toEqual({ status: 'converted', email: 'guest@example.com' });
      expect(ok(await shopper.cart())).toMatchObject({ id: null, items: [] });

      // The confirmation goes out after commit (outbox without SMTP).
      const outbox = await eventually(
        () =>
          t.db.rows(`select template from notification_outbox where store_id = $1 and recipient = 'guest@example.com'`, [store.storeId]),
        (rows) => rows.some((row) => row.template === 'order_confirmation'),
      );
      expect(outbox.map((row) => row.template)).toContain('order_confirmation');
    });

    it("writes a guest's order in the first of English or Arabic that Accept-Language names, by quality", async () => {
      const placeWith = async (acceptLanguage: string | undefined) => {
        const shopper = await t.shopper(store);
        const [variant] = await variants(t.db, store.storeId, 1, 10);
        ok(await shopper.add(variant.id));
        ok(await shopper.deliver());
        const headers: Record<string, string> = {
          'idempotency-key': randomUUID(),
          ...(acceptLanguage ? { 'accept-language': acceptLanguage } : {}),
        };
        return ok(await shopper.call('POST', '/v1/checkout/orders', COD, headers), 201).locale;
      };
      expect(await placeWith('en-GB,en;q=0.9')).toBe('en');
      expect(await placeWith('fr-FR, en;q=0.8, ar;q=0.5')).toBe('en');
      expect(await placeWith('ar;q=0.2, en')).toBe('en');
      expect(await placeWith('en;q=0.3, ar-SA')).toBe('ar');
      expect(await placeWith('fr')).toBe('ar');
      expect(await placeWith(undefined)).toBe('ar');
    });

    it('answers a retry with the same order and refuses the key with another body', async () => {
      const shopper = await t.shopper(store);
      const [variant] = await variants(t.db, store.storeId, 1, 10);
      ok(await shopper.add(variant.id, 2));
      ok(await shopper.deliver());
      const first = ok(await shopper.place(COD, 'retry-key'), 201);
      const retry = await shopper.place(COD, 'retry-key');
      expect(retry.statusCode).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.json()).toEqual(first);
      expectProblem(await shopper.place({ ...COD, email: 'other@example.com' }, 'retry-key'), 422, 'IDEMPOTENCY_KEY_REUSED');
      // A new key on the converted cart is a new (empty) order attempt.
      expectProblem(await shopper.place(COD, 'another-key'), 409, 'CART_EMPTY');
      const [{ stock }] = await t.db.rows('select stock from product_variants where id = $1', [variant.id]);
      expect(stock).toBe(8);
      // Keys belong to their session.
      const stranger = await t.shopper(store);
      expectProblem(await stranger.place(COD, 'retry-key'), 409, 'CART_EMPTY');
    });

    it('places a test order for a storefront’s QA run: recorded and answered as one, its flag part of the request', async () => {
      const shopper = await t.shopper(store);
      const [variant] = await variants(t.db, store.storeId, 1, 10);
      ok(await shopper.add(variant.id));
      ok(await shopper.deliver());
      const order = ok(await shopper.place({ ...COD, test: true }, 'qa-run'), 201);
      expect(order).toMatchObject({ status: 'open', test: true });
      expect(await t.db.rows('select test from orders where id = $1', [order.id])).toEqual([{ test: true }]);
      expect(ok(await shopper.call('GET', `/v1/orders/${order.id}`)).test).toBe(true);
      const retry = await shopper.place({ ...COD, test: true }, 'qa-run');
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.json()).toEqual(order);
      expectProblem(await shopper.place(COD, 'qa-run'), 422, 'IDEMPOTENCY_KEY_REUSED');
      // `test: false` is the default, and means what leaving it out means.
      const other = await t.shopper(store);
      const [another] = await variants(t.db, store.storeId, 1, 10);
      ok(await other.add(another.id));
      ok(await other.deliver());
      const ordinary = ok(await other.place(COD, 'ordinary'), 201);
      expect(ordinary.test).toBe(false);
      expect(ok(await other.place({ ...COD, test: false }, 'ordinary'), 201)).toEqual(ordinary);
    });

    it('pays by card: authorised before, captured after; a decline writes nothing', async () => {
      const shopper = await t.shopper(store);
      const [variant] = await variants(t.db, store.storeId, 1, 10);
      ok(await shopper.add(variant.id, 2));
      const [pickup] = await t.db.rows(`select id from pickup_locations where store_id = $1`, [store.storeId]);
      ok(await shopper.call('POST', '/v1/checkout/fulfilment', { type: 'pickup', pickupLocationId: pickup.id }));
      for (const token of ['tok_chargeDeclined', 'tok_insufficientFunds', 'tok_unknown']) {
        expectProblem(await shopper.place({ paymentMethod: 'card', card: { token }, email: 'card@example.com' }), 402, 'PAYMENT_DECLINED');
      }
      expect(await t.db.rows("select 1 from idempotency_claims where scope = 'checkout:' || $1", [shopper.sessionId])).toEqual([]);

      const order = ok(await shopper.place({ paymentMethod: 'card', card: { token: 'tok_visa' }, email: 'card@example.com' }), 201);
      expect(order).toMatchObject({
        paymentMethod: 'card',
        paymentStatus: 'paid',
        payment: { status: 'paid', provider: 'test' },
        fulfilmentType: 'pickup',
      });
      expect(order.paidAt).toMatch(ISO_UTC);
      expect(Date.parse(order.promisedBy) - Date.parse(order.placedAt)).toBe(2 * 3_600_000);
      const [payment] = await t.db.rows('select status, provider_reference from payments where order_id = $1', [order.id]);
      expect(payment.status).toBe('captured');
      expect(payment.provider_reference).toMatch(/^test_auth_/);
    });

    it('refuses a cart whose stock ran out, naming the lines, and changes nothing', async () => {
      const shopper = await t.shopper(store);
      const [plenty, scarce] = await variants(t.db, store.storeId, 2, 10);
      ok(await shopper.add(plenty.id, 2));
      ok(await shopper.add(scarce.id, 3));
      ok(await shopper.deliver());
      await t.db.query('update product_variants set stock = 1 where id = $1', [scarce.id]);
      const refused = expectProblem(await shopper.place(COD), 409, 'INSUFFICIENT_STOCK');
      expect(refused.lines).toEqual([{ variantId: scarce.id, requested: 3, available: 1 }]);
      expect(await t.db.rows("select 1 from idempotency_claims where scope = 'checkout:' || $1", [shopper.sessionId])).toEqual([]);
    });

    it('sells the last K units to exactly K of N concurrent checkouts, from N sessions', async () => {
      const N = 20;
      const K = 5;
      const [variant] = await variants(t.db, store.storeId, 1, N);
      const shoppers = await Promise.all(Array.from({ length: N }, () => t.shopper(store)));
      for (const shopper of shoppers) {
        ok(await shopper.add(variant.id, 1));
        ok(await shopper.deliver());
      }
      await t.db.query('update product_variants set stock = $2 where id = $1', [variant.id, K]);
      const responses = await Promise.all(
        shoppers.map((shopper) => shopper.callOverHttp('POST', '/v1/checkout/orders', COD, { 'idempotency-key': randomUUID() })),
      );
      const statuses = responses.map((response) => response.statusCode);
      expect(statuses.filter((status) => status === 201)).toHaveLength(K);
      expect(statuses.filter((status) => status === 409)).toHaveLength(N - K);
      for (const refused of responses.filter((response) => response.statusCode === 409)) {
        expect(expectProblem(refused, 409, 'INSUFFICIENT_STOCK').lines).toEqual([{ variantId: variant.id, requested: 1, available: 0 }]);
      }
      expect((await t.db.rows('select stock from product_variants where id = $1', [variant.id]))[0].stock).toBe(0);
      expect((await t.db.rows('select count(*)::int as n from order_lines where variant_id = $1', [variant.id]))[0].n).toBe(K);
    });

    it('places one order for ten concurrent identical requests with one key', async () => {
      for (const body of [COD, { paymentMethod: 'card', card: { token: 'tok_visa' }, email: 'same@example.com' }]) {
        const shopper = await t.shopper(store);
        const [variant] = await variants(t.db, store.storeId, 1, 10);
        ok(await shopper.add(variant.id, 2));
        ok(await shopper.deliver());
        const key = randomUUID();
        const responses = await Promise.all(
          Array.from({ length: 10 }, () => shopper.callOverHttp('POST', '/v1/checkout/orders', body, { 'idempotency-key': key })),
        );
        expect(responses.map((response) => response.statusCode)).toEqual(Array(10).fill(201));
        expect(new Set(responses.map((response) => parse(response).id)).size).toBe(1);
        expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
        expect((await t.db.rows('select count(*)::int as n from orders where session_id = $1', [shopper.sessionId]))[0].n).toBe(1);
        expect((await t.db.rows('select stock from product_variants where id = $1', [variant.id]))[0].stock).toBe(8);
      }
    });
  });
});
