import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { mint } from '../support/fixtures.js';

export interface TestSession {
  token: string;
  sessionId: string;
}

export async function session(app: NestFastifyApplication, key: string, scope?: string[]): Promise<TestSession> {
  const response = await mint(app, key, scope ? { scope } : {});
  if (response.statusCode !== 201) throw new Error(`mint failed: ${response.statusCode} ${response.body}`);
  const body = response.json();
  return { token: body.accessToken, sessionId: body.sessionId };
}

export function call(
  app: NestFastifyApplication,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  token: string,
  payload?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(payload ? { payload } : {}),
  });
}

/** Real HTTP, for racing requests: the answer's status and parsed body. */
export async function post(base: string, path: string, token: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

let client: pg.Client | undefined;

/** One connection to the run's test database, for reading what the service wrote and arranging state. */
export async function db(): Promise<pg.Client> {
  if (!client) {
    client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
  }
  return client;
}

export async function closeDb(): Promise<void> {
  await client?.end();
  client = undefined;
}

export interface OutboxRow {
  template: string;
  locale: string;
  subject: string;
  body_text: string;
  recipient: string;
}

/** The newest outbox message to the address, as the operator would read it. */
export async function latestMessage(storeId: string, email: string): Promise<OutboxRow> {
  const { rows } = await (
    await db()
  ).query<OutboxRow>(
    `select template, locale, subject, body_text, recipient from notification_outbox
     where store_id = $1 and lower(recipient) = lower($2) order by created_at desc, id desc limit 1`,
    [storeId, email],
  );
  if (!rows[0]) throw new Error(`no message to ${email}`);
  return rows[0];
}

/** The six-digit code in the newest outbox message to the address. */
export async function latestCode(storeId: string, email: string): Promise<string> {
  const message = await latestMessage(storeId, email);
  const code = /\b(\d{6})\b/.exec(message.body_text)?.[1];
  if (!code) throw new Error(`no code in: ${message.body_text}`);
  return code;
}

let counter = 0;
export function uniqueEmail(prefix = 'shopper'): string {
  counter += 1;
  return `${prefix}.${Date.now().toString(36)}.${counter}.${Math.random().toString(36).slice(2, 6)}@example.com`;
}

/** Registers and verifies: a signed-in shopper on a fresh session. */
export async function signedUp(
  app: NestFastifyApplication,
  key: string,
  storeId: string,
  options: { email?: string; password?: string; firstName?: string; locale?: 'en' | 'ar' } = {},
): Promise<TestSession & { email: string; password: string; shopperId: string }> {
  const email = options.email ?? uniqueEmail();
  const password = options.password ?? 'correct horse battery';
  const s = await session(app, key);
  const registered = await call(app, 'POST', '/v1/account/register', s.token, {
    email,
    password,
    ...(options.firstName ? { firstName: options.firstName } : {}),
    ...(options.locale ? { locale: options.locale } : {}),
  });
  if (registered.statusCode !== 202) throw new Error(`register: ${registered.statusCode} ${registered.body}`);
  const verified = await call(app, 'POST', '/v1/account/one-time-codes/verify', s.token, { email, code: await latestCode(storeId, email) });
  if (verified.statusCode !== 200) throw new Error(`verify: ${verified.statusCode} ${verified.body}`);
  return { ...s, email, password, shopperId: verified.json().id };
}
