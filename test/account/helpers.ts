import type { TestDatabase } from '../support/database.js';
import type { TestStore } from '../support/fixtures.js';
import type { Harness } from '../support/harness.js';
import { ok } from '../support/responses.js';
import type { StorefrontClient } from '../support/storefront-client.js';

export interface OutboxRow {
  template: string;
  locale: string;
  subject: string;
  body_text: string;
  recipient: string;
}

/** The newest outbox message to the address, as the operator would read it. */
export async function latestMessage(db: TestDatabase, storeId: string, email: string): Promise<OutboxRow> {
  const [message] = await db.rows<OutboxRow>(
    `select template, locale, subject, body_text, recipient from notification_outbox
     where store_id = $1 and lower(recipient) = lower($2) order by created_at desc, id desc limit 1`,
    [storeId, email],
  );
  if (!message) throw new Error(`no message to ${email}`);
  return message;
}

/** The six-digit code in the newest outbox message to the address. */
export async function latestCode(db: TestDatabase, storeId: string, email: string): Promise<string> {
  const message = await latestMessage(db, storeId, email);
  const code = /\b(\d{6})\b/.exec(message.body_text)?.[1];
  if (!code) throw new Error(`no code in: ${message.body_text}`);
  return code;
}

let counter = 0;
export function uniqueEmail(prefix = 'shopper'): string {
  counter += 1;
  return `${prefix}.${Date.now().toString(36)}.${counter}.${Math.random().toString(36).slice(2, 6)}@example.com`;
}

export type SignedUpShopper = StorefrontClient & { email: string; password: string; shopperId: string };

/** Registers and verifies: a signed-in shopper on a fresh session. */
export async function signedUp(
  t: Harness,
  store: TestStore,
  options: { email?: string; password?: string; firstName?: string; locale?: 'en' | 'ar' } = {},
): Promise<SignedUpShopper> {
  const email = options.email ?? uniqueEmail();
  const password = options.password ?? 'correct horse battery';
  const shopper = await t.shopper(store);
  ok(
    await shopper.call('POST', '/v1/account/register', {
      email,
      password,
      ...(options.firstName ? { firstName: options.firstName } : {}),
      ...(options.locale ? { locale: options.locale } : {}),
    }),
    202,
  );
  const code = await latestCode(t.db, store.storeId, email);
  const verified = ok(await shopper.call('POST', '/v1/account/one-time-codes/verify', { email, code }));
  return Object.assign(shopper, { email, password, shopperId: verified.id as string });
}
