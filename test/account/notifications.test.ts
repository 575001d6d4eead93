import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationsService } from '../../src/notifications/notifications.service.js';
import { formatMoney } from '../../src/notifications/templates.js';
import { type TestStore } from '../support/fixtures.js';
import { ARABIC, expectProblem } from '../support/problem.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { useTestApp } from '../support/harness.js';
import { latestMessage, uniqueEmail } from './helpers.js';

const CODE = /\b(\d{6})\b/;

describe('notifications through SMTP (SMTP_URL set)', () => {
  let smtp: TestSmtpServer;
  let store: TestStore;
  const lines: string[] = [];

  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(() => smtp.close());
  const t = useTestApp(() => ({ SMTP_URL: smtp.url, MAIL_FROM: 'Test Shop <no-reply@shop.example>', LOG_LEVEL: 'trace' }), {
    logTo: { write: (line) => void lines.push(line) },
  });
  beforeAll(async () => {
    store = await t.store({ name: 'Oud & Amber' });
  });

  async function delivered(count: number) {
    const messages = await smtp.received(count);
    expect(messages).toHaveLength(count);
    return messages[count - 1];
  }

  it('sends the code by email in the chosen language, and the code signs in', async () => {
    const english = uniqueEmail('english');
    const s = await t.shopper(store);
    const sent = smtp.messages.length;
    expect(
      (await s.call('POST', '/v1/account/register', { email: english, password: 'correct horse battery', locale: 'en' })).statusCode,
    ).toBe(202);
    const message = await delivered(sent + 1);
    expect(message.from?.text).toBe('"Test Shop" <no-reply@shop.example>');
    expect(message.to && 'text' in message.to ? message.to.text : '').toBe(english);
    expect(message.subject).toContain('Confirm your email for Oud & Amber');
    expect(message.text).toContain('finish creating your account');
    expect(message.text).not.toMatch(ARABIC);
    expect(message.headers.get('content-language')).toBe('en');
    expect(message.html).toContain('dir="ltr"');
    const code = CODE.exec(message.text ?? '')?.[1];
    expect(code).toBeDefined();
    const verified = await s.call('POST', '/v1/account/one-time-codes/verify', { email: english, code: code! });
    expect(verified.statusCode).toBe(200);

    // Arabic: chosen by Accept-Language here, for an address without an account.
    const arabic = uniqueEmail('arabic');
    const other = await t.shopper(store);
    expect(
      (await other.call('POST', '/v1/account/one-time-codes', { email: arabic }, { 'accept-language': 'ar-SA, en;q=0.5' })).statusCode,
    ).toBe(202);
    const arabicMessage = await delivered(sent + 2);
    expect(arabicMessage.subject).toMatch(ARABIC);
    expect(arabicMessage.subject).toContain('رمز الدخول إلى Oud & Amber');
    expect(arabicMessage.text).toContain('تنتهي صلاحيته بعد 10 دقائق');
    expect(arabicMessage.headers.get('content-language')).toBe('ar');
    expect(arabicMessage.html).toContain('dir="rtl"');
    expect(CODE.test(arabicMessage.text ?? '')).toBe(true);

    // The registered English shopper asking again gets English without saying so: the shopper's language.
    await s.call('POST', '/v1/account/sign-out');
    await s.call('POST', '/v1/account/one-time-codes', { email: english });
    const again = await delivered(sent + 3);
    expect(again.subject).toContain('Your Oud & Amber sign-in code');

    // Nothing went to the outbox.
    const { rows } = await t.db.query('select count(*)::int as n from notification_outbox where store_id = $1', [store.storeId]);
    expect(rows[0].n).toBe(0);
  });

  it('order confirmations go out through the exported service, in both languages', async () => {
    const notifications = t.app.get(NotificationsService);
    const sent = smtp.messages.length;
    await notifications.send({
      storeId: store.storeId,
      to: 'buyer@example.com',
      locale: 'en',
      template: 'order_confirmation',
      vars: { orderNumber: 100042, total: 123450, currency: 'SAR', itemCount: 3 },
    });
    await notifications.send({
      storeId: store.storeId,
      to: 'buyer@example.com',
      locale: 'ar',
      template: 'order_confirmation',
      vars: { orderNumber: 100042, total: 123450, currency: 'SAR', itemCount: 3 },
    });
    const [english, arabic] = (await smtp.received(sent + 2)).slice(sent);
    expect(english.subject).toBe('Oud & Amber: order #100042 confirmed');
    expect(english.text).toContain(`Total: ${formatMoney(123450, 'SAR', 'en')}`);
    expect(formatMoney(123450, 'SAR', 'en')).toMatch(/1,234\.50/);
    expect(english.text).toContain('Items: 3');
    expect(arabic.subject).toContain('تم تأكيد الطلب رقم 100042');
    expect(arabic.text).toContain(formatMoney(123450, 'SAR', 'ar'));
  });

  it('a failed delivery answers 503, frees the request quota, and logs no code, password or hash', async () => {
    const email = uniqueEmail('refused');
    const password = 'a password that must stay secret';
    const s = await t.shopper(store);
    smtp.refuseMessages(true);
    try {
      const refused = await s.call('POST', '/v1/account/register', { email, password });
      expectProblem(refused, 503, 'SERVICE_UNAVAILABLE');
      expect(refused.headers['retry-after']).toBe('30');
      for (let i = 0; i < 3; i++) expectProblem(await s.call('POST', '/v1/account/one-time-codes', { email }), 503, 'SERVICE_UNAVAILABLE');
    } finally {
      smtp.refuseMessages(false);
    }
    // The undelivered codes were withdrawn: they do not count toward the three per 15 minutes.
    const { rows } = await t.db.query('select count(*)::int as n from one_time_codes where email_normalized = $1', [email]);
    expect(rows[0].n).toBe(0);
    expect((await s.call('POST', '/v1/account/one-time-codes', { email })).statusCode).toBe(202);

    const everything = lines.join('\n');
    expect(everything).toContain('SMTP delivery of a');
    expect(everything).not.toContain(password);
    for (const message of smtp.messages) {
      const code = CODE.exec(message.text ?? '')?.[1];
      if (code) expect(everything).not.toMatch(new RegExp(`\\b${code}\\b`));
    }
    expect(everything).not.toContain('$argon2id$');
    expect(everything).not.toContain('smtp-test-password');
  });
});

describe('notifications without SMTP_URL', () => {
  const t = useTestApp();
  let store: TestStore;

  beforeAll(async () => {
    store = await t.store();
  });

  it('go to the outbox table, where the operator can read them', async () => {
    const email = uniqueEmail('outbox');
    const s = await t.shopper(store);
    expect((await s.call('POST', '/v1/account/one-time-codes', { email, locale: 'en' })).statusCode).toBe(202);
    const message = await latestMessage(t.db, store.storeId, email);
    expect(message).toMatchObject({ template: 'sign_in_code', locale: 'en', recipient: email });
    expect(message.subject).toMatch(/sign-in code: \d{6}$/);
    expect(message.body_text).toMatch(CODE);
  });
});
