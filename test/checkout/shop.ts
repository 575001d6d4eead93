import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { accessToken } from '../support/fixtures.js';
import type { ResponseLike } from '../support/problem.js';

type Json = Record<string, any>;

export const ADDRESS = {
  fullName: 'Sara Al-Qahtani',
  phone: '+966501234567',
  line1: 'King Fahd Road 12',
  district: 'Al Olaya',
  city: 'Riyadh',
  country: 'SA',
};

/** A storefront client for one session: the calls the cart, checkout and orders tests make. */
export class Shopper {
  private constructor(
    readonly app: NestFastifyApplication,
    readonly token: string,
  ) {}

  static async start(app: NestFastifyApplication, key: string, scope?: string[]): Promise<Shopper> {
    return new Shopper(app, await accessToken(app, key, scope));
  }

  get sessionId(): string {
    return JSON.parse(Buffer.from(this.token.split('.')[1], 'base64url').toString()).sid;
  }

  call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}) {
    return this.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  }

  cart() {
    return this.call('GET', '/v1/cart');
  }

  add(variantId: string, quantity?: number) {
    return this.call('POST', '/v1/cart/items', quantity === undefined ? { variantId } : { variantId, quantity });
  }

  quote() {
    return this.call('POST', '/v1/checkout/quote', {});
  }

  deliver(shippingMethod = 'standard', address: Json = ADDRESS) {
    return this.call('POST', '/v1/checkout/fulfilment', { type: 'delivery', shippingMethod, address });
  }

  place(body: Json = { paymentMethod: 'cash_on_delivery', email: 'guest@example.com' }, key: string | null = randomUUID()) {
    return this.call('POST', '/v1/checkout/orders', body, key === null ? {} : { 'idempotency-key': key });
  }
}

/** Expects a 2xx answer and returns its JSON. */
export function ok(response: LightMyRequestResponse, status = 200): Json {
  if (response.statusCode !== status) throw new Error(`expected ${status}, got ${response.statusCode}: ${response.body.slice(0, 500)}`);
  return response.json();
}

export interface Variant {
  id: string;
  product_id: string;
  price: number;
  stock: number;
  sku: string;
}

/** Distinct variants of active products of the store, each given `stock` units and optionally a price. */
export async function variants(db: pg.Pool, storeId: string, count: number, stock = 50, price?: number): Promise<Variant[]> {
  const { rows } = await db.query<Variant>(
    `with chosen as (
       select pv.id from product_variants pv join products p on p.id = pv.product_id
       where pv.store_id = $1 and p.status = 'active' and not exists (select 1 from cart_items ci where ci.variant_id = pv.id)
         and pv.stock > 0
       order by pv.sku limit $2)
     update product_variants pv set stock = $3, price = coalesce($4, pv.price) from chosen where pv.id = chosen.id
     returning pv.id, pv.product_id, pv.price, pv.stock, pv.sku`,
    [storeId, count, stock, price ?? null],
  );
  if (rows.length !== count) throw new Error(`only ${rows.length} variants available`);
  return rows;
}

/** A fetch() answer in the shape expectProblem takes. */
export async function asResponse(response: Response): Promise<ResponseLike & { json: Json }> {
  const body = await response.text();
  return { statusCode: response.status, headers: Object.fromEntries(response.headers), body, json: body ? JSON.parse(body) : {} };
}
