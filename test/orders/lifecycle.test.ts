import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PAYMENT_PROVIDER, type PaymentProvider } from '../../src/storefront/payments/payment-provider.js';
import { OrderLifecycle, type OrderState } from '../../src/storefront/orders/order-lifecycle.service.js';
import { Payments } from '../../src/storefront/payments/payments.service.js';
import { buildOnce } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { variants, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ok } from '../support/responses.js';
import type { StorefrontClient } from '../support/storefront-client.js';
import { ISO_UTC } from '../support/formats.js';

interface Placed {
  shopper: StorefrontClient;
  order: Record<string, any>;
  variantIds: string[];
}

describe('order lifecycle after placement', () => {
  const t = useTestApp();
  let a: TestStore;
  let b: TestStore;
  let lifecycle: OrderLifecycle;
  let payments: Payments;
  let provider: PaymentProvider;

  /** Places an order through the HTTP API: one line per quantity, each of a fresh variant at `price`. */
  async function place(
    store: TestStore,
    options: { card?: boolean; pickup?: boolean; quantities?: number[]; price?: number } = {},
  ): Promise<Placed> {
    const quantities = options.quantities ?? [2];
    const shopper = await t.shopper(store);
    const chosen = await variants(t.db, store.storeId, quantities.length, 20, options.price ?? 1000);
    for (const [index, variant] of chosen.entries()) ok(await shopper.add(variant.id, quantities[index]));
    if (options.pickup) {
      const [location] = await t.db.rows(`select id from pickup_locations where store_id = $1`, [store.storeId]);
      ok(await shopper.call('POST', '/v1/checkout/fulfilment', { type: 'pickup', pickupLocationId: location.id }));
    } else {
      ok(await shopper.deliver());
    }
    const body = options.card
      ? { paymentMethod: 'card', card: { token: 'tok_visa' }, email: 'card@example.com' }
      : { paymentMethod: 'cash_on_delivery', email: 'cod@example.com' };
    const order = ok(await shopper.place(body), 201);
    return { shopper, order, variantIds: chosen.map((variant) => variant.id) };
  }

  /** Everything a transition may write: the order row, its lines, its payment and its variants' stock. */
  async function snapshot(placed: Placed) {
    return t.db.rows(
      `select (select row_to_json(o)::text from orders o where o.id = $1) as order_row,
              (select json_agg(row_to_json(ol) order by ol.position)::text from order_lines ol where ol.order_id = $1) as line_rows,
              (select json_agg(row_to_json(p))::text from payments p where p.order_id = $1) as payment_rows,
              (select json_agg(row_to_json(r))::text from refunds r where r.order_id = $1) as refund_rows,
              (select json_agg(stock order by id)::text from product_variants where id = any($2)) as stock`,
      [placed.order.id, placed.variantIds],
    );
  }

  const stockOf = async (variantIds: string[]) =>
    (await t.db.rows(`select stock from product_variants where id = any($1) order by array_position($1, id)`, [variantIds])).map(
      (row) => row.stock as number,
    );

  const orderRow = async (orderId: string) => (await t.db.rows(`select * from orders where id = $1`, [orderId]))[0];
  const paymentRow = async (orderId: string) => (await t.db.rows(`select * from payments where order_id = $1`, [orderId]))[0];
  /** The order's refund records, oldest first, each with its lines as [order line id, quantity, amount]. */
  const refundsOf = async (orderId: string) =>
    t.db.rows(
      `select r.reason, r.amount, r.shipping_amount, r.currency, r.restocked, iso_utc(r.created_at) as created_at,
              coalesce((select json_agg(json_build_array(rl.order_line_id, rl.quantity, rl.amount) order by ol.position)
                        from refund_lines rl join order_lines ol on ol.id = rl.order_line_id where rl.refund_id = r.id), '[]') as lines
       from refunds r where r.order_id = $1 order by r.created_at, r.id`,
      [orderId],
    );

  async function expectRefused(action: Promise<unknown>, code: string, current?: Record<string, unknown>) {
    const error = await action.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error, 'the transition should have been refused').toMatchObject({ code });
    if (current) expect((error as { options: { details: { current: unknown } } }).options.details.current).toMatchObject(current);
  }

  /** A refused transition leaves every row as it was. */
  async function expectRefusedWithoutWrites(
    placed: Placed,
    action: () => Promise<unknown>,
    code: string,
    current?: Record<string, unknown>,
  ) {
    const before = await snapshot(placed);
    await expectRefused(action(), code, current);
    expect(await snapshot(placed)).toEqual(before);
  }

  beforeAll(async () => {
    [a, b] = await Promise.all([t.store({ seedCatalogue: true, productCount: 80 }), t.store({ seedCatalogue: true, productCount: 20 })]);
    lifecycle = t.app.get(OrderLifecycle);
    payments = t.app.get(Payments);
    provider = t.app.get<PaymentProvider>(PAYMENT_PROVIDER);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('ships and delivers a cash order: timestamps set, cash collected at delivery, the shopper sees each state', async () => {
    const placed = await place(a);
    const { id } = placed.order;
    expect(placed.order).toMatchObject({ status: 'open', paymentStatus: 'pending', fulfilmentStatus: 'unfulfilled' });

    const shipped = await lifecycle.ship(a.storeId, id);
    expect(shipped).toMatchObject({ id, status: 'open', paymentStatus: 'pending', fulfilmentStatus: 'shipped', paidAt: null });
    expect(shipped.shippedAt).toMatch(ISO_UTC);
    expect(ok(await placed.shopper.call('GET', `/v1/orders/${id}`))).toMatchObject({
      fulfilmentStatus: 'shipped',
      shippedAt: shipped.shippedAt,
      fulfilment: { status: 'shipped' },
    });

    await expectRefusedWithoutWrites(placed, () => lifecycle.ship(a.storeId, id), 'ORDER_STATE_CONFLICT', { fulfilmentStatus: 'shipped' });
    await expectRefusedWithoutWrites(placed, () => lifecycle.cancel(a.storeId, id), 'ORDER_STATE_CONFLICT', {
      fulfilmentStatus: 'shipped',
    });
    await expectRefusedWithoutWrites(placed, () => lifecycle.readyForPickup(a.storeId, id), 'ORDER_STATE_CONFLICT');
    const [line] = placed.order.lines;
    await expectRefusedWithoutWrites(
      placed,
      () => lifecycle.refund(a.storeId, id, { lines: [{ lineId: line.id, quantity: 1 }], restock: true }),
      'ORDER_STATE_CONFLICT',
    );

    const delivered = await lifecycle.deliver(a.storeId, id);
    expect(delivered).toMatchObject({ status: 'completed', paymentStatus: 'paid', fulfilmentStatus: 'delivered', refundedTotal: 0 });
    expect(delivered.deliveredAt).toMatch(ISO_UTC);
    expect(delivered.paidAt).toBe(delivered.deliveredAt);
    expect(delivered.shippedAt).toBe(shipped.shippedAt);
    expect(Date.parse(delivered.placedAt)).toBeLessThanOrEqual(Date.parse(delivered.shippedAt!));
    expect(Date.parse(delivered.shippedAt!)).toBeLessThanOrEqual(Date.parse(delivered.deliveredAt!));
    expect(await paymentRow(id)).toMatchObject({ status: 'captured', amount: placed.order.total });
    const row = await orderRow(id);
    expect(row.paid_at).toEqual(row.delivered_at);
    expect(row.cancelled_at).toBeNull();

    const seen = ok(await placed.shopper.call('GET', `/v1/orders/${id}`));
    expect(seen).toMatchObject({
      status: 'completed',
      paymentStatus: 'paid',
      fulfilmentStatus: 'delivered',
      paidAt: delivered.paidAt,
      deliveredAt: delivered.deliveredAt,
      payment: { status: 'paid' },
    });
    await expectRefusedWithoutWrites(placed, () => lifecycle.deliver(a.storeId, id), 'ORDER_STATE_CONFLICT', { status: 'completed' });
    await expectRefusedWithoutWrites(placed, () => lifecycle.cancel(a.storeId, id), 'ORDER_STATE_CONFLICT', { status: 'completed' });
  });

  it('makes a card pickup order ready and hands it over; a pickup order is never shipped', async () => {
    const placed = await place(a, { card: true, pickup: true });
    const { id } = placed.order;
    expect(placed.order).toMatchObject({ paymentStatus: 'paid', paidAt: expect.stringMatching(ISO_UTC) });
    await expectRefusedWithoutWrites(placed, () => lifecycle.ship(a.storeId, id), 'ORDER_STATE_CONFLICT', { fulfilmentType: 'pickup' });
    await expectRefusedWithoutWrites(placed, () => lifecycle.deliver(a.storeId, id), 'ORDER_STATE_CONFLICT', {
      fulfilmentStatus: 'unfulfilled',
    });

    const ready = await lifecycle.readyForPickup(a.storeId, id);
    expect(ready).toMatchObject({ status: 'open', fulfilmentStatus: 'ready_for_pickup', paidAt: placed.order.paidAt, shippedAt: null });
    expect(ready.readyAt).toMatch(ISO_UTC);
    await expectRefusedWithoutWrites(placed, () => lifecycle.readyForPickup(a.storeId, id), 'ORDER_STATE_CONFLICT');
    await expectRefusedWithoutWrites(placed, () => lifecycle.cancel(a.storeId, id), 'ORDER_STATE_CONFLICT');

    const delivered = await lifecycle.deliver(a.storeId, id);
    expect(delivered).toMatchObject({
      status: 'completed',
      paymentStatus: 'paid',
      fulfilmentStatus: 'delivered',
      paidAt: placed.order.paidAt,
      readyAt: ready.readyAt,
    });
    expect(ok(await placed.shopper.call('GET', `/v1/orders/${id}`))).toMatchObject({
      readyAt: ready.readyAt,
      fulfilmentStatus: 'delivered',
    });
  });

  it('captures a card whose capture failed after placement before shipping it; a failed capture changes nothing', async () => {
    const capture = vi.spyOn(provider, 'capture').mockRejectedValueOnce(new Error('gateway timeout'));
    const placed = await place(a, { card: true });
    const { id } = placed.order;
    expect(placed.order).toMatchObject({ paymentStatus: 'authorized', paidAt: null });
    const { provider_reference: reference } = await paymentRow(id);

    capture.mockRejectedValueOnce(new Error('gateway timeout'));
    await expectRefusedWithoutWrites(placed, () => lifecycle.ship(a.storeId, id), 'PAYMENT_PROVIDER_FAILED');

    const shipped = await lifecycle.ship(a.storeId, id);
    expect(capture).toHaveBeenLastCalledWith(reference, placed.order.total);
    expect(shipped).toMatchObject({ paymentStatus: 'paid', fulfilmentStatus: 'shipped' });
    expect(shipped.paidAt).toBe(shipped.shippedAt);
    expect(await paymentRow(id)).toMatchObject({ status: 'captured' });
  });

  it('retries stalled captures in the background: once per order however many runs race, never too early', async () => {
    const capture = vi.spyOn(provider, 'capture');
    // Only orders placed over a day ago: other suites' fresh orders in this database stay out of it.
    const overOneDay = { graceSeconds: 86_400 };
    capture.mockRejectedValueOnce(new Error('gateway timeout'));
    const stalled = await place(a, { card: true });
    capture.mockRejectedValueOnce(new Error('gateway timeout'));
    const recent = await place(a, { card: true });
    expect([stalled.order.paymentStatus, recent.order.paymentStatus]).toEqual(['authorized', 'authorized']);
    // The placement's own capture has had its chance on one of them only (placed two days ago).
    await t.db.query(`update orders set placed_at = placed_at - interval '2 days' where id = $1`, [stalled.order.id]);
    capture.mockClear();

    const runs = await Promise.all([
      payments.captureStalled(overOneDay),
      payments.captureStalled(overOneDay),
      payments.captureStalled(overOneDay),
    ]);
    expect(runs.reduce((sum, run) => sum + run.captured, 0)).toBe(1);
    expect(capture).toHaveBeenCalledTimes(1);
    expect(capture).toHaveBeenCalledWith((await paymentRow(stalled.order.id)).provider_reference, stalled.order.total);
    expect(await orderRow(stalled.order.id)).toMatchObject({ payment_status: 'paid' });
    expect((await orderRow(stalled.order.id)).paid_at).not.toBeNull();
    expect(await paymentRow(stalled.order.id)).toMatchObject({ status: 'captured' });
    expect(await orderRow(recent.order.id)).toMatchObject({ payment_status: 'authorized', paid_at: null });

    // A provider still failing leaves the order authorised, for the next run.
    await t.db.query(`update orders set placed_at = placed_at - interval '2 days' where id = $1`, [recent.order.id]);
    capture.mockRejectedValueOnce(new Error('gateway timeout'));
    expect(await payments.captureStalled(overOneDay)).toEqual({ captured: 0, failed: 1 });
    expect(await orderRow(recent.order.id)).toMatchObject({ payment_status: 'authorized' });
    expect(await payments.captureStalled(overOneDay)).toEqual({ captured: 1, failed: 0 });
  });

  it('cancels an unshipped order: stock back, cash voided; a second cancel is refused', async () => {
    const placed = await place(a, { quantities: [3, 1] });
    const { id } = placed.order;
    expect(await stockOf(placed.variantIds)).toEqual([17, 19]);

    const cancelled = await lifecycle.cancel(a.storeId, id);
    expect(cancelled).toMatchObject({ status: 'cancelled', fulfilmentStatus: 'cancelled', paymentStatus: 'voided', refundedTotal: 0 });
    expect(cancelled.cancelledAt).toMatch(ISO_UTC);
    expect(cancelled.refundedAt).toBeNull();
    expect(await stockOf(placed.variantIds)).toEqual([20, 20]);
    expect(await paymentRow(id)).toMatchObject({ status: 'voided' });
    expect(ok(await placed.shopper.call('GET', `/v1/orders/${id}`))).toMatchObject({
      status: 'cancelled',
      cancelledAt: cancelled.cancelledAt,
      fulfilment: { status: 'cancelled' },
    });

    for (const transition of [lifecycle.cancel, lifecycle.ship, lifecycle.deliver]) {
      await expectRefusedWithoutWrites(placed, () => transition.call(lifecycle, a.storeId, id), 'ORDER_STATE_CONFLICT', {
        status: 'cancelled',
      });
    }
  });

  it('cancelling voids an authorised card and refunds a captured one in full', async () => {
    const voided = vi.spyOn(provider, 'void');
    const refunded = vi.spyOn(provider, 'refund');
    vi.spyOn(provider, 'capture').mockRejectedValueOnce(new Error('gateway timeout'));
    const authorized = await place(a, { card: true });
    const captured = await place(a, { card: true });
    expect([authorized.order.paymentStatus, captured.order.paymentStatus]).toEqual(['authorized', 'paid']);

    const first = await lifecycle.cancel(a.storeId, authorized.order.id);
    expect(voided).toHaveBeenCalledWith((await paymentRow(authorized.order.id)).provider_reference);
    expect(first).toMatchObject({ status: 'cancelled', paymentStatus: 'voided', refundedTotal: 0, refundedAt: null });
    expect(await paymentRow(authorized.order.id)).toMatchObject({ status: 'voided' });

    const second = await lifecycle.cancel(a.storeId, captured.order.id);
    expect(refunded).toHaveBeenCalledWith((await paymentRow(captured.order.id)).provider_reference, captured.order.total);
    expect(second).toMatchObject({ status: 'cancelled', paymentStatus: 'refunded', refundedTotal: captured.order.total });
    expect(second.refundedAt).toBe(second.cancelledAt);
    expect(await paymentRow(captured.order.id)).toMatchObject({ status: 'refunded' });
    expect(await stockOf([...authorized.variantIds, ...captured.variantIds])).toEqual([20, 20]);
    // The refund is a record of its own: the whole order, its units and its shipping, at the cancellation.
    expect(await refundsOf(authorized.order.id)).toEqual([]);
    const [line] = captured.order.lines;
    expect(await refundsOf(captured.order.id)).toEqual([
      {
        reason: 'cancellation',
        amount: captured.order.total,
        shipping_amount: captured.order.shipping,
        currency: 'SAR',
        restocked: true,
        created_at: second.cancelledAt,
        lines: [[line.id, line.quantity, captured.order.total - captured.order.shipping]],
      },
    ]);
  });

  it('of two concurrent cancels one succeeds and the other is refused; stock comes back once', async () => {
    const placed = await place(a, { quantities: [4] });
    const results = await Promise.allSettled([lifecycle.cancel(a.storeId, placed.order.id), lifecycle.cancel(a.storeId, placed.order.id)]);
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refusal = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(refusal.reason).toMatchObject({ code: 'ORDER_STATE_CONFLICT', options: { details: { current: { status: 'cancelled' } } } });
    expect(await stockOf(placed.variantIds)).toEqual([20]);
  });

  it('refunds returns partially then fully, restocking when asked; never twice the same units', async () => {
    const refund = vi.spyOn(provider, 'refund');
    const placed = await place(a, { card: true, quantities: [3, 1], price: 1500 });
    const { id, lines, total, shipping } = placed.order;
    expect(shipping).toBe(2500);
    expect(total).toBe(3 * 1500 + 1500 + 2500);
    await lifecycle.ship(a.storeId, id);
    await lifecycle.deliver(a.storeId, id);
    const reference = (await paymentRow(id)).provider_reference;

    const partial = await lifecycle.refund(a.storeId, id, { lines: [{ lineId: lines[0].id, quantity: 1 }], restock: true });
    expect(refund).toHaveBeenLastCalledWith(reference, 1500);
    expect(partial).toMatchObject({
      status: 'completed',
      paymentStatus: 'partially_refunded',
      fulfilmentStatus: 'delivered',
      refundedTotal: 1500,
    });
    expect(partial.refundedAt).toMatch(ISO_UTC);
    expect(partial.lines.map((line) => line.returnedQuantity)).toEqual([1, 0]);
    expect(await stockOf(placed.variantIds)).toEqual([18, 19]);

    await expectRefusedWithoutWrites(
      placed,
      () => lifecycle.refund(a.storeId, id, { lines: [{ lineId: lines[0].id, quantity: 3 }], restock: true }),
      'ORDER_STATE_CONFLICT',
    );
    await expectRefusedWithoutWrites(
      placed,
      () => lifecycle.refund(a.storeId, id, { lines: [{ lineId: randomUUID(), quantity: 1 }], restock: false }),
      'VALIDATION_FAILED',
    );
    await expectRefused(
      lifecycle.refund(a.storeId, id, {
        lines: [
          { lineId: lines[1].id, quantity: 1 },
          { lineId: lines[1].id, quantity: 1 },
        ],
        restock: false,
      }),
      'VALIDATION_FAILED',
    );

    // The rest, without restocking (damaged goods), with the shipping charge.
    const full = await lifecycle.refund(a.storeId, id, {
      lines: [
        { lineId: lines[0].id, quantity: 2 },
        { lineId: lines[1].id, quantity: 1 },
      ],
      restock: false,
      includeShipping: true,
    });
    expect(refund).toHaveBeenLastCalledWith(reference, 2 * 1500 + 1500 + 2500);
    expect(full).toMatchObject({ status: 'completed', paymentStatus: 'refunded', fulfilmentStatus: 'returned', refundedTotal: total });
    expect(Date.parse(full.refundedAt!)).toBeGreaterThanOrEqual(Date.parse(partial.refundedAt!));
    expect(full.lines.map((line) => line.returnedQuantity)).toEqual([3, 1]);
    expect(await stockOf(placed.variantIds)).toEqual([18, 19]);
    expect(await paymentRow(id)).toMatchObject({ status: 'refunded' });
    // Each refund kept as it happened, with its own time, units and amounts: together the refunded total.
    expect(await refundsOf(id)).toEqual([
      {
        reason: 'return',
        amount: 1500,
        shipping_amount: 0,
        currency: 'SAR',
        restocked: true,
        created_at: partial.refundedAt,
        lines: [[lines[0].id, 1, 1500]],
      },
      {
        reason: 'return',
        amount: 2 * 1500 + 1500 + 2500,
        shipping_amount: 2500,
        currency: 'SAR',
        restocked: false,
        created_at: full.refundedAt,
        lines: [
          [lines[0].id, 2, 3000],
          [lines[1].id, 1, 1500],
        ],
      },
    ]);
    expect(ok(await placed.shopper.call('GET', `/v1/orders/${id}`))).toMatchObject({
      paymentStatus: 'refunded',
      fulfilmentStatus: 'returned',
      refunded: total,
      refundedAt: full.refundedAt,
      lines: [{ returnedQuantity: 3 }, { returnedQuantity: 1 }],
      refunds: [
        {
          reason: 'return',
          amount: 1500,
          shipping: 0,
          createdAt: partial.refundedAt,
          lines: [{ lineId: lines[0].id, quantity: 1, amount: 1500 }],
        },
        {
          reason: 'return',
          amount: 7000,
          shipping: 2500,
          createdAt: full.refundedAt,
          lines: [
            { lineId: lines[0].id, quantity: 2, amount: 3000 },
            { lineId: lines[1].id, quantity: 1, amount: 1500 },
          ],
        },
      ],
    });
    await expectRefusedWithoutWrites(
      placed,
      () => lifecycle.refund(a.storeId, id, { lines: [{ lineId: lines[1].id, quantity: 1 }], restock: false, includeShipping: true }),
      'ORDER_STATE_CONFLICT',
      { fulfilmentStatus: 'returned', paymentStatus: 'refunded' },
    );
  });

  it('records a cash refund without the card provider, and refunds shipping only once', async () => {
    const refund = vi.spyOn(provider, 'refund');
    const placed = await place(a, { quantities: [2], price: 2000 });
    const { id, lines, total } = placed.order;
    await lifecycle.ship(a.storeId, id);
    await lifecycle.deliver(a.storeId, id);
    const first = await lifecycle.refund(a.storeId, id, {
      lines: [{ lineId: lines[0].id, quantity: 1 }],
      restock: false,
      includeShipping: true,
    });
    expect(first).toMatchObject({ paymentStatus: 'partially_refunded', refundedTotal: 2000 + 2500 });
    await expectRefusedWithoutWrites(
      placed,
      () => lifecycle.refund(a.storeId, id, { lines: [{ lineId: lines[0].id, quantity: 1 }], restock: false, includeShipping: true }),
      'ORDER_STATE_CONFLICT',
    );
    const last = await lifecycle.refund(a.storeId, id, { lines: [{ lineId: lines[0].id, quantity: 1 }], restock: false });
    expect(last).toMatchObject({ paymentStatus: 'refunded', fulfilmentStatus: 'returned', refundedTotal: total });
    expect(refund).not.toHaveBeenCalled();
    expect(await paymentRow(id)).toMatchObject({ method: 'cash_on_delivery', status: 'refunded' });
  });

  it('refunds what was paid, tax included, when the store’s prices exclude tax: everything returned is the total', async () => {
    const store = await t.store({ seedCatalogue: true, productCount: 20 });
    await t.db.query(`update stores set prices_include_tax = false where id = $1`, [store.storeId]);
    const placed = await place(store, { quantities: [3, 1], price: 999 });
    const { id, lines, total } = placed.order;
    expect(placed.order.taxIncluded).toBe(false);
    await lifecycle.ship(store.storeId, id);
    await lifecycle.deliver(store.storeId, id);
    const amounts = [];
    for (const lineId of [lines[0].id, lines[0].id, lines[0].id, lines[1].id]) {
      const before = (await orderRow(id)).refunded_total;
      const after = await lifecycle.refund(store.storeId, id, { lines: [{ lineId, quantity: 1 }], restock: false });
      amounts.push(after.refundedTotal - before);
    }
    // 999 plus its share of the line's tax (3 × 999 × 15% = 449.55 → 450, shared 150 each); 999 × 15% = 149.85 → 150.
    expect(amounts).toEqual([1149, 1149, 1149, 1149]);
    await expectRefused(
      lifecycle.refund(store.storeId, id, { lines: [{ lineId: lines[0].id, quantity: 1 }], restock: false }),
      'ORDER_STATE_CONFLICT',
      { fulfilmentStatus: 'returned', paymentStatus: 'partially_refunded' },
    );
    const [row] = await t.db.rows(`select o.total, o.refunded_total, o.shipping_total from orders o where id = $1`, [id]);
    expect(row.total - row.refunded_total).toBe(total - 4 * 1149);
    expect(row.total - row.refunded_total).toBe(2500 + 375); // shipping with its tax is all that is left
    const records = await refundsOf(id);
    expect(records.map((record) => record.amount)).toEqual(amounts);
    expect(records.flatMap((record) => record.lines.map((line: unknown[]) => line[2]))).toEqual(amounts);
  });

  it('racing refunds never refund a unit twice nor pass the order total', async () => {
    const refund = vi.spyOn(provider, 'refund');
    const placed = await place(a, { card: true, quantities: [5], price: 1200 });
    const { id, lines, total } = placed.order;
    await lifecycle.ship(a.storeId, id);
    await lifecycle.deliver(a.storeId, id);

    const request = { lines: [{ lineId: lines[0].id, quantity: 2 }], restock: true };
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => lifecycle.refund(a.storeId, id, request)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(2);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'ORDER_STATE_CONFLICT' });
    }
    expect(await orderRow(id)).toMatchObject({
      refunded_total: 4 * 1200,
      payment_status: 'partially_refunded',
      fulfilment_status: 'delivered',
    });
    expect((await t.db.rows(`select returned_quantity from order_lines where order_id = $1`, [id]))[0].returned_quantity).toBe(4);
    expect(await stockOf(placed.variantIds)).toEqual([15 + 4]);

    // The last unit with the shipping charge: only one of these can pass, and the total is reached exactly.
    const rest = { lines: [{ lineId: lines[0].id, quantity: 1 }], restock: false, includeShipping: true };
    const final = await Promise.allSettled(Array.from({ length: 4 }, () => lifecycle.refund(a.storeId, id, rest)));
    expect(final.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(total).toBe(5 * 1200 + 2500);
    expect(await orderRow(id)).toMatchObject({ refunded_total: total, payment_status: 'refunded', fulfilment_status: 'returned' });
    expect(refund.mock.calls.map((call) => call[1])).toEqual([2400, 2400, 1200 + 2500]);
    const records = await refundsOf(id);
    expect(records.map((record) => [record.amount, record.shipping_amount, record.lines])).toEqual([
      [2400, 0, [[lines[0].id, 2, 2400]]],
      [2400, 0, [[lines[0].id, 2, 2400]]],
      [3700, 2500, [[lines[0].id, 1, 1200]]],
    ]);
  });

  it('another store’s order, an unknown or malformed id is not found', async () => {
    const placed = await place(a);
    await expectRefusedWithoutWrites(placed, () => lifecycle.cancel(b.storeId, placed.order.id), 'NOT_FOUND');
    await expectRefusedWithoutWrites(placed, () => lifecycle.ship(b.storeId, placed.order.id), 'NOT_FOUND');
    await expectRefused(lifecycle.ship(a.storeId, randomUUID()), 'NOT_FOUND');
    await expectRefused(lifecycle.ship(a.storeId, 'not-a-uuid'), 'NOT_FOUND');
    expect((await lifecycle.list(b.storeId, 100)).map((order) => order.id)).not.toContain(placed.order.id);
  });

  describe('command line', () => {
    beforeAll(async () => {
      await buildOnce();
    }, 120_000);
    const cli = (...args: string[]) => runCli(args);

    it('moves orders through their lifecycle, prints them as JSON and refuses illegal transitions', async () => {
      const [shipping, cancelling] = await Promise.all([place(a, { quantities: [2] }), place(a, { quantities: [1] })]);
      await lifecycle.ship(a.storeId, shipping.order.id);
      await lifecycle.deliver(a.storeId, shipping.order.id);
      const line = shipping.order.lines[0];

      const [refunded, cancelled, refused, listed] = await Promise.all([
        cli('order', 'refund', '--store', a.storeId, '--order', shipping.order.id, '--lines', `${line.id}:1`, '--restock', 'true'),
        cli('order', 'cancel', '--store', a.storeId, '--order', cancelling.order.id),
        cli('order', 'ship', '--store', b.storeId, '--order', cancelling.order.id),
        cli('order', 'list', '--store', a.storeId, '--limit', '2'),
      ]);
      expect(refunded.code, refunded.stdout).toBe(0);
      expect(refunded.json.order).toMatchObject({
        id: shipping.order.id,
        number: shipping.order.number,
        status: 'completed',
        paymentStatus: 'partially_refunded',
        fulfilmentStatus: 'delivered',
        refundedTotal: 1000,
        refundedAt: expect.stringMatching(ISO_UTC),
        deliveredAt: expect.stringMatching(ISO_UTC),
        lines: [{ id: line.id, returnedQuantity: 1 }],
      });
      expect(cancelled.code, cancelled.stdout).toBe(0);
      expect(cancelled.json).toEqual({
        order: expect.objectContaining({ status: 'cancelled', cancelledAt: expect.stringMatching(ISO_UTC) }),
      });
      expect(refused).toMatchObject({ code: 1, json: { error: { code: 'ORDER_NOT_FOUND' } } });
      expect(listed.code, listed.stdout).toBe(0);
      expect(listed.json.orders.map((order: OrderState) => order.id).sort()).toEqual([cancelling.order.id, shipping.order.id].sort());

      const again = await cli('order', 'cancel', '--store', a.storeId, '--order', cancelling.order.id);
      expect(again).toMatchObject({
        code: 1,
        json: { error: { code: 'ORDER_STATE_CONFLICT', message: expect.stringContaining('cancelled') } },
      });
      const usage = await cli('order', 'refund', '--store', a.storeId, '--order', shipping.order.id, '--lines', 'nonsense');
      expect(usage).toMatchObject({ code: 2, json: { error: { code: 'USAGE' } } });
    }, 90_000); // command-line runs, each a process that loads the whole service
  });
});
