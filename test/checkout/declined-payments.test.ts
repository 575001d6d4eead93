import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { variants, type TestStore } from '../support/fixtures.js';
import { useTestApp, type Harness } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import type { StorefrontClient } from '../support/storefront-client.js';

/** A session with one line in its cart and pickup chosen: ready to pay. */
async function readyToPay(t: Harness, store: TestStore): Promise<{ shopper: StorefrontClient; total: number }> {
  const shopper = await t.shopper(store);
  const [variant] = await variants(t.db, store.storeId, 1, 5);
  ok(await shopper.add(variant.id, 2));
  const [pickup] = await t.db.rows<{ id: string }>('select id from pickup_locations where store_id = $1', [store.storeId]);
  const quote = ok(await shopper.call('POST', '/v1/checkout/fulfilment', { type: 'pickup', pickupLocationId: pickup.id }));
  return { shopper, total: quote.total };
}

const card = (token: string) => ({ paymentMethod: 'card', card: { token }, email: 'card@example.com' });

describe('declined card payments are recorded (Insights: failed payments)', () => {
  const t = useTestApp();
  let store: TestStore;

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 10 });
  });

  it('writes a declined payment of no order for each decline; the shopper still gets 402 and nothing else is written', async () => {
    const { shopper, total } = await readyToPay(t, store);
    const key = randomUUID();
    for (const token of ['tok_chargeDeclined', 'tok_insufficientFunds']) {
      const refused = expectProblem(await shopper.place(card(token), key), 402, 'PAYMENT_DECLINED');
      expect(refused.reason).toBe(token === 'tok_chargeDeclined' ? 'card_declined' : 'insufficient_funds');
    }
    const declined = await t.db.rows(
      `select order_id, provider, method, status, amount, currency, provider_reference from payments where store_id = $1 order by created_at`,
      [store.storeId],
    );
    const row = {
      order_id: null,
      provider: 'test',
      method: 'card',
      status: 'declined',
      amount: total,
      currency: 'SAR',
      provider_reference: null,
    };
    expect(declined).toEqual([row, row]);
    expect(await t.db.rows('select 1 from orders where store_id = $1', [store.storeId])).toEqual([]);
    expect(await t.db.rows("select 1 from idempotency_claims where scope = 'checkout:' || $1", [shopper.sessionId])).toEqual([]);

    // The same key then pays with a good card: one order, its own payment, and the declines stay as they were.
    const order = ok(await shopper.place(card('tok_visa'), key), 201);
    const payments = await t.db.rows<{ order_id: string | null; status: string }>(
      'select order_id, status from payments where store_id = $1 order by created_at',
      [store.storeId],
    );
    expect(payments).toEqual([
      { order_id: null, status: 'declined' },
      { order_id: null, status: 'declined' },
      { order_id: order.id, status: 'captured' },
    ]);
  });

  it('an approved card or cash on delivery records no declined payment', async () => {
    const other = await t.store({ seedCatalogue: true, productCount: 10 });
    for (const body of [card('tok_mada'), { paymentMethod: 'cash_on_delivery', email: 'cash@example.com' }]) {
      const { shopper } = await readyToPay(t, other);
      ok(await shopper.place(body), 201);
    }
    expect(await t.db.rows("select 1 from payments where store_id = $1 and status = 'declined'", [other.storeId])).toEqual([]);
  });
});

describe('a decline that cannot be recorded', () => {
  const lines: string[] = [];
  // Its own database: the payments table refuses declined rows for a while, which no other suite may see.
  const t = useTestApp({ LOG_LEVEL: 'error' }, { ownDatabase: true, logTo: { write: (line) => void lines.push(line) } });

  it('is logged, and the shopper gets the same 402', async () => {
    const store = await t.store({ seedCatalogue: true, productCount: 10 });
    const { shopper } = await readyToPay(t, store);
    await t.db.query("alter table payments add constraint refuse_declined check (status <> 'declined') not valid");
    try {
      expectProblem(await shopper.place(card('tok_chargeDeclined')), 402, 'PAYMENT_DECLINED');
    } finally {
      await t.db.query('alter table payments drop constraint refuse_declined');
    }
    expect(lines.some((line) => line.includes('declined card payment (card_declined)') && line.includes('refuse_declined'))).toBe(true);
    expect(await t.db.rows('select 1 from payments where store_id = $1', [store.storeId])).toEqual([]);
  });
});
