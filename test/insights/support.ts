import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import type { AdminPrincipal } from '../../src/auth/principal.js';
import { entitlementsOf, PERMISSIONS, type StorePlan } from '../../src/common/permissions.js';
import { RollupMaintainer } from '../../src/insights/rollups/rollup-maintainer.js';
import { ROLLUPS } from '../../src/insights/rollups/rollup-tables.js';
import { StorefrontEventRecorder } from '../../src/storefront/events/storefront-event-recorder.js';
import type { TestDatabase } from '../support/database.js';
import { variants, type TestStore } from '../support/fixtures.js';
import { ok } from '../support/responses.js';
import type { StorefrontClient } from '../support/storefront-client.js';

/** An owner of a store in the Riyadh time zone, as the services see a signed-in member: for calling them directly. */
export function ownerPrincipal(storeId: string, plan: StorePlan = 'pro'): AdminPrincipal {
  return {
    kind: 'staff',
    storeId,
    sessionId: randomUUID(),
    staff: { id: randomUUID(), email: 'owner@example.com', name: 'Owner', role: 'owner' },
    store: { id: storeId, name: 'Figures', plan, timezone: 'Asia/Riyadh', currency: 'SAR' },
    permissions: PERMISSIONS,
    entitlements: entitlementsOf(plan),
    readOnly: false,
    locale: 'en',
  };
}

/** Writes the storefront events still gathering, then folds everything pending, the settling delay of new orders included. */
export async function foldAll(app: NestFastifyApplication): Promise<void> {
  await app.get(StorefrontEventRecorder).drain();
  await app.get(RollupMaintainer).drain({ dueBy: new Date(Date.now() + 60_000) });
}

/**
 * Every rollup row of a store, as comparable text: customers by email rather than by their number
 * (which a rebuild gives out anew), zero rows left out (a fact added and then taken back leaves one).
 */
export async function rollupsOf(db: TestDatabase, storeId: string): Promise<Record<string, string[]>> {
  const snapshot: Record<string, string[]> = {};
  for (const table of Object.values(ROLLUPS)) {
    // Customers by their email, not by the number a rebuild gives them anew.
    const from = table.keys.some((key) => key === 'customer_id')
      ? `(select r.*, c.email as customer from ${table.name} r join insights_customers c on c.id = r.customer_id) t`
      : `${table.name} t`;
    const nonZero = table.measures.map((m) => `t.${m} <> 0`).join(' or ');
    const rows = await db.rows<{ row: string }>(
      `select (to_jsonb(t) - 'customer_id')::text as row from ${from} where t.store_id = $1 and (${nonZero}) order by 1`,
      [storeId],
    );
    snapshot[table.name] = rows.map((r) => r.row);
  }
  return snapshot;
}

export interface PlaceOptions {
  card?: boolean;
  pickup?: boolean;
  quantities?: number[];
  price?: number;
  email?: string;
  /** A test order (checkout's `test`), for a storefront's QA run. */
  test?: boolean;
}

/** Places an order through the HTTP API: one line per quantity, each of a fresh variant at `price`. */
export async function placeOrder(
  db: TestDatabase,
  shopper: StorefrontClient,
  store: TestStore,
  options: PlaceOptions = {},
): Promise<Record<string, any>> {
  const quantities = options.quantities ?? [2];
  const chosen = await variants(db, store.storeId, quantities.length, 50, options.price ?? 1000);
  for (const [index, variant] of chosen.entries()) ok(await shopper.add(variant.id, quantities[index]));
  if (options.pickup) {
    const [location] = await db.rows(`select id from pickup_locations where store_id = $1`, [store.storeId]);
    ok(await shopper.call('POST', '/v1/checkout/fulfilment', { type: 'pickup', pickupLocationId: location.id }));
  } else {
    ok(await shopper.deliver());
  }
  const email = options.email ?? `${randomUUID().slice(0, 8)}@example.com`;
  const payment = options.card ? { paymentMethod: 'card', card: { token: 'tok_visa' } } : { paymentMethod: 'cash_on_delivery' };
  return ok(await shopper.place({ ...payment, email, ...(options.test ? { test: true } : {}) }), 201);
}
