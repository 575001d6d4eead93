import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/common/scopes.js';
import { type TestStore } from '../support/fixtures.js';
import { expectProblem } from '../support/problem.js';
import { useTestApp } from '../support/harness.js';
import { parse } from '../support/responses.js';
import type { StorefrontClient } from '../support/storefront-client.js';
import { latestCode, latestMessage, signedUp, uniqueEmail } from './helpers.js';

const PASSWORD = 'correct horse battery';
const PHC = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/;

describe('shopper sign-in', () => {
  const t = useTestApp();
  let store: TestStore;

  beforeAll(async () => {
    store = await t.store();
  });

  const verify = (shopper: StorefrontClient, email: string, code: string) =>
    shopper.call('POST', '/v1/account/one-time-codes/verify', { email, code });
  const signIn = (shopper: StorefrontClient, email: string, password: string) =>
    shopper.call('POST', '/v1/account/sign-in', { email, password });
  const requestCode = (shopper: StorefrontClient, email: string) => shopper.call('POST', '/v1/account/one-time-codes', { email });
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  it('register answers 202 alike for a new and a registered address, and the code signs in', async () => {
    const email = uniqueEmail('Noura');
    const s = await t.shopper(store);
    const first = await s.call('POST', '/v1/account/register', {
      email: `  ${email} `,
      password: PASSWORD,
      firstName: 'Noura',
      lastName: 'Al-Qahtani',
      locale: 'en',
      marketingOptIn: true,
    });
    expect(first.statusCode).toBe(202);
    expect(first.json()).toEqual({ status: 'verification_sent', email, expiresAt: expect.stringMatching(/Z$/) });
    const expiresIn = Date.parse(first.json().expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(9 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(10 * 60_000);
    const confirmation = await latestMessage(t.db, store.storeId, email);
    expect(confirmation).toMatchObject({ template: 'registration_code', locale: 'en' });

    // No shopper exists until the address is proven.
    expect((await t.db.query('select 1 from shoppers where email_normalized = $1', [email.toLowerCase()])).rowCount).toBe(0);
    const pending = await t.db.query('select registration from one_time_codes where email_normalized = $1', [email.toLowerCase()]);
    expect(pending.rows[0].registration).toMatchObject({ firstName: 'Noura', locale: 'en', passwordHash: expect.stringMatching(PHC) });

    const verified = await verify(s, email.toUpperCase(), await latestCode(t.db, store.storeId, email));
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toEqual({
      id: expect.any(String),
      email,
      firstName: 'Noura',
      lastName: 'Al-Qahtani',
      phone: null,
      locale: 'en',
      marketingOptIn: true,
      emailVerified: true,
      hasPassword: true,
      createdAt: expect.stringMatching(/Z$/),
    });
    const profile = await s.call('GET', '/v1/account/profile');
    expect(profile.statusCode).toBe(200);
    expect(profile.json()).toEqual(verified.json());
    const { rows } = await t.db.query('select shopper_id from sessions where id = $1', [s.sessionId]);
    expect(rows[0].shopper_id).toBe(verified.json().id);

    // Registering the same address again: same answer, an "already registered" email, password unchanged.
    const other = await t.shopper(store);
    const again = await other.call('POST', '/v1/account/register', { email, password: 'another password 123' });
    expect(again.statusCode).toBe(202);
    expect(Object.keys(again.json()).sort()).toEqual(Object.keys(first.json()).sort());
    expect(again.json().status).toBe(first.json().status);
    expect(await latestMessage(t.db, store.storeId, email)).toMatchObject({ template: 'already_registered_code', locale: 'en' });
    expect((await signIn(other, email, 'another password 123')).statusCode).toBe(401);
    const signedIn = await signIn(other, email, PASSWORD);
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().id).toBe(verified.json().id);
  });

  it('stores the password as an argon2id PHC string and never returns it', async () => {
    const shopper = await signedUp(t, store);
    const { rows } = await t.db.query('select password_hash from shoppers where id = $1', [shopper.shopperId]);
    expect(rows[0].password_hash).toMatch(PHC);
    const profile = await shopper.call('GET', '/v1/account/profile');
    expect(profile.body).not.toContain('argon2');
    expect(profile.body).not.toContain(shopper.password);
  });

  it('an unknown address, a wrong password and a password-less account get the same 401', async () => {
    const shopper = await signedUp(t, store);
    const passwordless = uniqueEmail('codes-only');
    const s = await t.shopper(store);
    expect((await requestCode(s, passwordless)).statusCode).toBe(202);
    const created = await verify(s, passwordless, await latestCode(t.db, store.storeId, passwordless));
    expect(created.json()).toMatchObject({ hasPassword: false, emailVerified: true, email: passwordless });
    await s.call('POST', '/v1/account/sign-out');

    const answers = [
      await signIn(s, uniqueEmail('nobody'), PASSWORD),
      await signIn(s, shopper.email, 'not the password'),
      await signIn(s, passwordless, PASSWORD),
    ];
    const bodies = answers.map((answer) => {
      const body = expectProblem(answer, 401, 'INVALID_CREDENTIALS');
      delete body.requestId;
      return body;
    });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });

  it('a one-time code request answers the same for a registered and an unknown address', async () => {
    const shopper = await signedUp(t, store, { locale: 'ar' });
    const s = await t.shopper(store);
    const known = await requestCode(s, shopper.email);
    const unknown = await requestCode(s, uniqueEmail('unknown'));
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(202);
    expect(Object.keys(known.json()).sort()).toEqual(Object.keys(unknown.json()).sort());
    expect(known.json().status).toBe('code_sent');
    expect(unknown.json().status).toBe('code_sent');
    expect(await latestMessage(t.db, store.storeId, shopper.email)).toMatchObject({ template: 'sign_in_code', locale: 'ar' });
    const signedIn = await verify(s, shopper.email, await latestCode(t.db, store.storeId, shopper.email));
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().id).toBe(shopper.shopperId);
  });

  it('refuses an expired code, a used code, a wrong code and an address without a code', async () => {
    const email = uniqueEmail();
    const s = await t.shopper(store);
    await requestCode(s, email);
    const code = await latestCode(t.db, store.storeId, email);
    expectProblem(await verify(s, uniqueEmail('never-asked'), code), 401, 'ONE_TIME_CODE_INVALID');
    expectProblem(await verify(s, email, wrong(code)), 401, 'ONE_TIME_CODE_INVALID');
    await t.db.query(`update one_time_codes set expires_at = now() - interval '1 second' where email_normalized = $1`, [email]);
    expectProblem(await verify(s, email, code), 401, 'ONE_TIME_CODE_EXPIRED');

    await requestCode(s, email);
    const fresh = await latestCode(t.db, store.storeId, email);
    expect((await verify(s, email, fresh)).statusCode).toBe(200);
    const other = await t.shopper(store);
    expectProblem(await verify(other, email, fresh), 401, 'ONE_TIME_CODE_EXPIRED');
  });

  it('a newer code replaces the older one', async () => {
    const email = uniqueEmail();
    const s = await t.shopper(store);
    await requestCode(s, email);
    const older = await latestCode(t.db, store.storeId, email);
    await requestCode(s, email);
    const newer = await latestCode(t.db, store.storeId, email);
    if (older !== newer) expectProblem(await verify(s, email, older), 401, 'ONE_TIME_CODE_INVALID');
    expect((await verify(s, email, newer)).statusCode).toBe(200);
  });

  it('after five wrong codes even the right one is refused', async () => {
    const email = uniqueEmail();
    const s = await t.shopper(store);
    await requestCode(s, email);
    const code = await latestCode(t.db, store.storeId, email);
    for (let i = 0; i < 5; i++) expectProblem(await verify(s, email, wrong(code)), 401, 'ONE_TIME_CODE_INVALID');
    expectProblem(await verify(s, email, code), 401, 'ONE_TIME_CODE_ATTEMPTS_EXCEEDED');
  });

  it('four wrong codes still leave the right one usable', async () => {
    const email = uniqueEmail();
    const s = await t.shopper(store);
    await requestCode(s, email);
    const code = await latestCode(t.db, store.storeId, email);
    for (let i = 0; i < 4; i++) expectProblem(await verify(s, email, wrong(code)), 401, 'ONE_TIME_CODE_INVALID');
    expect((await verify(s, email, code)).statusCode).toBe(200);
  });

  it('concurrent wrong guesses cannot get more than five compared', async () => {
    const email = uniqueEmail();
    const s = await t.shopper(store);
    await requestCode(s, email);
    const code = await latestCode(t.db, store.storeId, email);
    const guesses = Array.from({ length: 30 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
    const answers = await Promise.all(
      guesses.map((guess) => s.callOverHttp('POST', '/v1/account/one-time-codes/verify', { email, code: guess })),
    );
    const codes = answers.map((answer) => parse(answer).code);
    expect(codes.filter((c) => c === 'ONE_TIME_CODE_INVALID')).toHaveLength(5);
    expect(codes.filter((c) => c === 'ONE_TIME_CODE_ATTEMPTS_EXCEEDED')).toHaveLength(25);
    const { rows } = await t.db.query('select attempts from one_time_codes where email_normalized = $1', [email]);
    expect(rows[0].attempts).toBe(5);
    expectProblem(await verify(s, email, code), 401, 'ONE_TIME_CODE_ATTEMPTS_EXCEEDED');
  });

  it('two concurrent verifies of one code: exactly one signs in', async () => {
    const email = uniqueEmail();
    const [a, b] = await Promise.all([t.shopper(store), t.shopper(store)]);
    await requestCode(a, email);
    const code = await latestCode(t.db, store.storeId, email);
    const answers = await Promise.all([a, b].map((s) => s.callOverHttp('POST', '/v1/account/one-time-codes/verify', { email, code })));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 401]);
    expect(parse(answers.find((answer) => answer.statusCode === 401)!).code).toBe('ONE_TIME_CODE_EXPIRED');
    const { rows } = await t.db.query('select count(*)::int as n from shoppers where email_normalized = $1', [email]);
    expect(rows[0].n).toBe(1);
  });

  it('at most three codes per address per 15 minutes, registered or not, even when requested at once', async () => {
    const email = uniqueEmail();
    const s = await t.shopper(store);
    const answers = await Promise.all(Array.from({ length: 6 }, () => s.callOverHttp('POST', '/v1/account/one-time-codes', { email })));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([202, 202, 202, 429, 429, 429]);
    const limited = await requestCode(s, email);
    expectProblem(limited, 429, 'ONE_TIME_CODE_RATE_LIMITED');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Registration codes count toward the same limit.
    expectProblem(await s.call('POST', '/v1/account/register', { email, password: PASSWORD }), 429, 'ONE_TIME_CODE_RATE_LIMITED');

    const registered = await signedUp(t, store);
    for (let i = 0; i < 2; i++) expect((await requestCode(s, registered.email)).statusCode).toBe(202);
    expectProblem(await requestCode(s, registered.email), 429, 'ONE_TIME_CODE_RATE_LIMITED');
    // Another address is unaffected.
    expect((await requestCode(s, uniqueEmail())).statusCode).toBe(202);
  });

  it('ten failed password sign-ins per address lock password sign-in for that address', async () => {
    const shopper = await signedUp(t, store);
    await shopper.call('POST', '/v1/account/sign-out');
    for (let i = 0; i < 10; i++) expectProblem(await signIn(shopper, shopper.email, `wrong password ${i}`), 401, 'INVALID_CREDENTIALS');
    const limited = await signIn(shopper, shopper.email, shopper.password);
    const body = expectProblem(limited, 429, 'SIGN_IN_RATE_LIMITED');
    expect(body.suggestion).toMatchObject({ code: 'SIGN_IN_WITH_CODE' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(14 * 60);
    // Same answer for an unknown address with as many failures: the limit does not reveal registration.
    const nobody = uniqueEmail('nobody');
    for (let i = 0; i < 10; i++) await signIn(shopper, nobody, PASSWORD);
    expectProblem(await signIn(shopper, nobody, PASSWORD), 429, 'SIGN_IN_RATE_LIMITED');
    // Once the failures are older than the window, the right password works again.
    await t.db.query(`update sign_in_failures set created_at = created_at - interval '16 minutes' where email_normalized = $1`, [
      shopper.email.toLowerCase(),
    ]);
    expect((await signIn(shopper, shopper.email, shopper.password)).statusCode).toBe(200);
  });

  it('signing in while another shopper is signed in is refused; the same shopper again is fine', async () => {
    const first = await signedUp(t, store);
    const second = await signedUp(t, store);
    expectProblem(await signIn(first, second.email, second.password), 409, 'ALREADY_SIGNED_IN');
    const again = await signIn(first, first.email, first.password);
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(first.shopperId);
    await requestCode(first, second.email);
    expectProblem(await verify(first, second.email, await latestCode(t.db, store.storeId, second.email)), 409, 'ALREADY_SIGNED_IN');
  });

  it('sign-out returns the session to anonymous, keeps its tokens, and is idempotent', async () => {
    const shopper = await signedUp(t, store);
    const out = await shopper.call('POST', '/v1/account/sign-out');
    expect(out.statusCode).toBe(204);
    expect(out.body).toBe('');
    expectProblem(await shopper.call('GET', '/v1/account/profile'), 403, 'SIGN_IN_REQUIRED');
    expectProblem(await shopper.call('GET', '/v1/account/addresses'), 403, 'SIGN_IN_REQUIRED');
    expect((await shopper.call('POST', '/v1/account/sign-out')).statusCode).toBe(204);
    // The same token signs in again: no new token is needed.
    expect((await signIn(shopper, shopper.email, shopper.password)).statusCode).toBe(200);
    expect((await shopper.call('GET', '/v1/account/profile')).statusCode).toBe(200);
  });

  it('profile changes: names, phone, language, consent; email is not changeable; password needs the current one', async () => {
    const shopper = await signedUp(t, store);
    const changed = await shopper.call('PATCH', '/v1/account/profile', {
      firstName: ' Sara ',
      lastName: 'Al-Harbi',
      phone: '+966 50 123 4567',
      locale: 'en',
      marketingOptIn: true,
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({
      firstName: 'Sara',
      lastName: 'Al-Harbi',
      phone: '+966501234567',
      locale: 'en',
      marketingOptIn: true,
    });
    expect((await shopper.call('PATCH', '/v1/account/profile', { phone: null })).json().phone).toBeNull();

    expectProblem(await shopper.call('PATCH', '/v1/account/profile', { email: 'new@example.com' }), 400, 'VALIDATION_FAILED');
    expectProblem(await shopper.call('PATCH', '/v1/account/profile', { phone: '0501234567' }), 400, 'VALIDATION_FAILED');
    expectProblem(await shopper.call('PATCH', '/v1/account/profile', { locale: 'fr' }), 400, 'VALIDATION_FAILED');
    expectProblem(await shopper.call('PATCH', '/v1/account/profile', { firstName: null }), 400, 'VALIDATION_FAILED');
    expectProblem(await shopper.call('PATCH', '/v1/account/profile', { newPassword: 'new password 456' }), 400, 'VALIDATION_FAILED');
    expectProblem(
      await shopper.call('PATCH', '/v1/account/profile', { currentPassword: 'wrong one', newPassword: 'new password 456' }),
      401,
      'INVALID_CREDENTIALS',
    );
    expectProblem(
      await shopper.call('PATCH', '/v1/account/profile', { currentPassword: shopper.password, newPassword: 'short' }),
      400,
      'VALIDATION_FAILED',
    );

    // Another session of the same shopper is signed out by the password change.
    const elsewhere = await t.shopper(store);
    expect((await signIn(elsewhere, shopper.email, shopper.password)).statusCode).toBe(200);
    const rotated = await shopper.call('PATCH', '/v1/account/profile', {
      currentPassword: shopper.password,
      newPassword: 'new password 456',
    });
    expect(rotated.statusCode).toBe(200);
    expectProblem(await elsewhere.call('GET', '/v1/account/profile'), 403, 'SIGN_IN_REQUIRED');
    expect((await shopper.call('GET', '/v1/account/profile')).statusCode).toBe(200);
    expect((await signIn(elsewhere, shopper.email, shopper.password)).statusCode).toBe(401);
    expect((await signIn(elsewhere, shopper.email, 'new password 456')).statusCode).toBe(200);
  });

  it('validates every input', async () => {
    const s = await t.shopper(store);
    const cases: [string, Record<string, unknown>][] = [
      ['/v1/account/register', { email: 'not-an-email', password: PASSWORD }],
      ['/v1/account/register', { email: uniqueEmail(), password: 'short' }],
      ['/v1/account/register', { email: uniqueEmail(), password: 'x'.repeat(129) }],
      ['/v1/account/register', { email: uniqueEmail(), password: PASSWORD, admin: true }],
      ['/v1/account/sign-in', { email: uniqueEmail() }],
      ['/v1/account/one-time-codes', { email: 42 }],
      ['/v1/account/one-time-codes/verify', { email: uniqueEmail(), code: '12345' }],
      ['/v1/account/one-time-codes/verify', { email: uniqueEmail(), code: 123456 }],
    ];
    for (const [url, payload] of cases) expectProblem(await s.call('POST', url, payload), 400, 'VALIDATION_FAILED');
  });

  it('every account endpoint needs its scope', async () => {
    const endpoints: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, 'account:read' | 'account:write'][] = [
      ['POST', '/v1/account/register', 'account:write'],
      ['POST', '/v1/account/sign-in', 'account:write'],
      ['POST', '/v1/account/one-time-codes', 'account:write'],
      ['POST', '/v1/account/one-time-codes/verify', 'account:write'],
      ['POST', '/v1/account/sign-out', 'account:write'],
      ['GET', '/v1/account/profile', 'account:read'],
      ['PATCH', '/v1/account/profile', 'account:write'],
      ['GET', '/v1/account/addresses', 'account:read'],
      ['POST', '/v1/account/addresses', 'account:write'],
      ['PATCH', '/v1/account/addresses/00000000-0000-4000-8000-000000000000', 'account:write'],
      ['DELETE', '/v1/account/addresses/00000000-0000-4000-8000-000000000000', 'account:write'],
    ];
    const shoppers = {
      'account:read': await t.shopper(
        store,
        SCOPES.filter((scope) => scope !== 'account:read'),
      ),
      'account:write': await t.shopper(
        store,
        SCOPES.filter((scope) => scope !== 'account:write'),
      ),
    };
    for (const [method, url, scope] of endpoints) {
      const body = expectProblem(
        await shoppers[scope].call(method, url, method === 'GET' || method === 'DELETE' ? undefined : {}),
        403,
        'INSUFFICIENT_SCOPE',
      );
      expect(body.requiredScope).toBe(scope);
    }
  });
});
