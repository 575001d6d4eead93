import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { SERVED_BY } from '../support/peers/haproxy.js';
import { ADDRESS } from '../support/storefront-client.js';

type Json = Record<string, any>;

/** An answer over real HTTP, and which instance gave it (when a balancer names it). */
export interface Answer {
  status: number;
  body: Json;
  servedBy?: string;
  headers: Headers;
}

export interface Call {
  method: 'GET' | 'POST';
  path: string;
  token?: string;
  apiKey?: string;
  body?: unknown;
  idempotencyKey?: string;
}

/** One request to `base`; a connection error rejects. */
export async function send(base: string, call: Call): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  if (call.apiKey) headers['x-api-key'] = call.apiKey;
  if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${call.path}`, {
    method: call.method,
    headers,
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : {},
    servedBy: response.headers.get(SERVED_BY) ?? undefined,
    headers: response.headers,
  };
}

export const CASH_ON_DELIVERY = { paymentMethod: 'cash_on_delivery', email: 'guest@example.com' };
export const DELIVERY = { type: 'delivery', shippingMethod: 'standard', address: ADDRESS };

/**
 * A shopper's journey as a storefront's backend makes it over HTTP: mint a session with the key, browse,
 * put `variantId` in the cart, choose delivery, check out with an Idempotency-Key, read the order back.
 * `deliver` sends each request (and may retry it); each answer must be the status the step expects.
 */
export async function journey(
  deliver: (call: Call) => Promise<Answer>,
  apiKey: string,
  variantId: string,
  idempotencyKey = randomUUID(),
): Promise<{ order: Json; sessionId: string; answers: Answer[] }> {
  const answers: Answer[] = [];
  const step = async (call: Call, status: number) => {
    const answer = await deliver(call);
    expect(answer.status, `${call.method} ${call.path}: ${JSON.stringify(answer.body)}`).toBe(status);
    answers.push(answer);
    return answer.body;
  };
  const { accessToken: token, sessionId } = await step({ method: 'POST', path: '/v1/auth/anonymous', apiKey, body: {} }, 201);
  const products = await step({ method: 'GET', path: '/v1/catalogue/products?limit=5', token }, 200);
  expect(products.items.length).toBeGreaterThan(0);
  await step({ method: 'POST', path: '/v1/cart/items', token, body: { variantId, quantity: 1 } }, 200);
  await step({ method: 'POST', path: '/v1/checkout/fulfilment', token, body: DELIVERY }, 200);
  const order = await step({ method: 'POST', path: '/v1/checkout/orders', token, body: CASH_ON_DELIVERY, idempotencyKey }, 201);
  const read = await step({ method: 'GET', path: `/v1/orders/${order.id}`, token }, 200);
  expect(read.id).toBe(order.id);
  return { order, sessionId, answers };
}
