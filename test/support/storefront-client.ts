import { randomUUID } from 'node:crypto';
import { mint } from './fixtures.js';
import { fromFetch, ok, type ResponseLike } from './responses.js';
import type { TestApp } from './test-app.js';

type Json = Record<string, any>;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export const ADDRESS = {
  fullName: 'Sara Al-Qahtani',
  phone: '+966501234567',
  line1: 'King Fahd Road 12',
  district: 'Al Olaya',
  city: 'Riyadh',
  country: 'SA',
};

/** A storefront client for one anonymous session: the calls a shop's front end makes with its bearer token. */
export class StorefrontClient {
  private constructor(
    private readonly server: TestApp,
    readonly token: string,
    readonly sessionId: string,
  ) {}

  /** A new session of the key, with the given scopes (default: all of the key's). */
  static async start(server: TestApp, key: string, scope?: string[]): Promise<StorefrontClient> {
    const minted = ok(await mint(server.app, key, scope ? { scope } : {}), 201);
    return new StorefrontClient(server, minted.accessToken, minted.sessionId);
  }

  call(method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) {
    return this.server.app.inject({
      method,
      url,
      headers: this.headers(payload, headers),
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  }

  /** The same call over real HTTP, for requests that must race each other. */
  async callOverHttp(method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<ResponseLike> {
    const base = await this.server.listen();
    const response = await fetch(`${base}${url}`, {
      method,
      headers: this.headers(payload, headers),
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    return fromFetch(response);
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

  private headers(payload: unknown, extra: Record<string, string>): Record<string, string> {
    return {
      authorization: `Bearer ${this.token}`,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...extra,
    };
  }
}
