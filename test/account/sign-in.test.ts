import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/common/scopes.js';
import { createStore, type TestStore } from '../support/fixtures.js';
import { expectProblem } from '../support/problem.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { call, closeDb, db, latestCode, latestMessage, post, session, signedUp, uniqueEmail } from './helpers.js';

const PASSWORD = 'correct horse battery';
const PHC = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/;

describe('shopper sign-in', () => {
  let t: TestApp;
  let store: TestStore;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp();
    store = await createStore(t.app);
    base = await t.listen();
  });
  afterAll(async () => {
    await closeDb();
    await t.close();
  });

  const verify = (token: string, email: string, code: string) =>
    call(t.app, 'POST', '/v1/account/one-time-codes/verify', token, { email, code });
  const signIn = (token: string, email: string, password: string) => call(t.app, 'POST', '/v1/account/sign-in', token, { email, password });
  const requestCode = (token: string, email: string) => call(t.app, 'POST', '/v1/account/one-time-codes', token, { email });
  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  it('register answers 202 alike for a new and a registered address, and the code signs in', async () => {
    const email = uniqueEmail('Noura');
    const s = await session(t.app, store.key);
    const first = await call(t.app, 'POST', '/v1/account/register', s.token, {
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
    const confirmation = await latestMessage(store.storeId, email);
    expect(confirmation).toMatchObject({ template: 'registration_code', locale: 'en' });

    // No shopper exists until the address is proven.
    const client = await db();
    expect((await client.query('select 1 from shoppers where email_normalized = $1', [email.toLowerCase()])).rowCount).toBe(0);
    const pending = await client.query('select registration from one_time_codes where email_normalized = $1', [email.toLowerCase()]);
    expect(pending.rows[0].registration).toMatchObject({ firstName: 'Noura', locale: 'en', passwordHash: expect.stringMatching(PHC) });

    const verified = await verify(s.token, email.toUpperCase(), await latestCode(store.storeId, email));
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
    const profile = await call(t.app, 'GET', '/v1/account/profile', s.token);
    expect(profile.statusCode).toBe(200);
    expect(profile.json()).toEqual(verified.json());
    const { rows } = await client.query('select shopper_id from sessions where id = $1', [s.sessionId]);
    expect(rows[0].shopper_id).toBe(verified.json().id);

    // Registering the same address again: same answer, an "already registered" email, password unchanged.
    const other = await session(t.app, store.key);
    const again = await call(t.app, 'POST', '/v1/account/register', other.token, { email, password: 'another password 123' });
    expect(again.statusCode).toBe(202);
    expect(Object.keys(again.json()).sort()).toEqual(Object.keys(first.json()).sort());
    expect(again.json().status).toBe(first.json().status);
    expect(await latestMessage(store.storeId, email)).toMatchObject({ template: 'already_registered_code', locale: 'en' });
    expect((await signIn(other.token, email, 'another password 123')).statusCode).toBe(401);
    const signedIn = await signIn(other.token, email, PASSWORD);
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().id).toBe(verified.json().id);
  });

  it('stores the password as an argon2id PHC string and never returns it', async () => {
    const shopper = await signedUp(t.app, store.key, store.storeId);
    const { rows } = await (await db()).query('select password_hash from shoppers where id = $1', [shopper.shopperId]);
    expect(rows[0].password_hash).toMatch(PHC);
    const profile = await call(t.app, 'GET', '/v1/account/profile', shopper.token);
    expect(profile.body).not.toContain('argon2');
    expect(profile.body).not.toContain(shopper.password);
  });

  it('an unknown address, a wrong password and a password-less account get the same 401', async () => {
    const shopper = await signedUp(t.app, store.key, store.storeId);
    const passwordless = uniqueEmail('codes-only');
    const s = await session(t.app, store.key);
    expect((await requestCode(s.token, passwordless)).statusCode).toBe(202);
    const created = await verify(s.token, passwordless, await latestCode(store.storeId, passwordless));
    expect(created.json()).toMatchObject({ hasPassword: false, emailVerified: true, email: passwordless });
    await call(t.app, 'POST', '/v1/account/sign-out', s.token);

    const answers = [
      await signIn(s.token, uniqueEmail('nobody'), PASSWORD),
      await signIn(s.token, shopper.email, 'not the password'),
      await signIn(s.token, passwordless, PASSWORD),
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
    const shopper = await signedUp(t.app, store.key, store.storeId, { locale: 'ar' });
    const s = await session(t.app, store.key);
    const known = await requestCode(s.token, shopper.email);
    const unknown = await requestCode(s.token, uniqueEmail('unknown'));
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(202);
    expect(Object.keys(known.json()).sort()).toEqual(Object.keys(unknown.json()).sort());
    expect(known.json().status).toBe('code_sent');
    expect(unknown.json().status).toBe('code_sent');
    expect(await latestMessage(store.storeId, shopper.email)).toMatchObject({ template: 'sign_in_code', locale: 'ar' });
    const signedIn = await verify(s.token, shopper.email, await latestCode(store.storeId, shopper.email));
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().id).toBe(shopper.shopperId);
  });

  it('refuses an expired code, a used code, a wrong code and an address without a code', async () => {
    const email = uniqueEmail();
    const s = await session(t.app, store.key);
    await requestCode(s.token, email);
    const code = await latestCode(store.storeId, email);
    expectProblem(await verify(s.token, uniqueEmail('never-asked'), code), 401, 'ONE_TIME_CODE_INVALID');
    expectProblem(await verify(s.token, email, wrong(code)), 401, 'ONE_TIME_CODE_INVALID');
    await (await db()).query(`update one_time_codes set expires_at = now() - interval '1 second' where email_normalized = $1`, [email]);
    expectProblem(await verify(s.token, email, code), 401, 'ONE_TIME_CODE_EXPIRED');

    await requestCode(s.token, email);
    const fresh = await latestCode(store.storeId, email);
    expect((await verify(s.token, email, fresh)).statusCode).toBe(200);
    const other = await session(t.app, store.key);
    expectProblem(await verify(other.token, email, fresh), 401, 'ONE_TIME_CODE_EXPIRED');
  });

  it('a newer code replaces the older one', async () => {
    const email = uniqueEmail();
    const s = await session(t.app, store.key);
    await requestCode(s.token, email);
    const older = await latestCode(store.storeId, email);
    await requestCode(s.token, email);
    const newer = await latestCode(store.storeId, email);
    if (older !== newer) expectProblem(await verify(s.token, email, older), 401, 'ONE_TIME_CODE_INVALID');
    expect((await verify(s.token, email, newer)).statusCode).toBe(200);
  });

  it('after five wrong codes even the right one is refused', async () => {
    const email = uniqueEmail();
    const s = await session(t.app, store.key);
    await requestCode(s.token, email);
    const code = await latestCode(store.storeId, email);
    for (let i = 0; i < 5; i++) expectProblem(await verify(s.token, email, wrong(code)), 401, 'ONE_TIME_CODE_INVALID');
    expectProblem(await verify(s.token, email, code), 401, 'ONE_TIME_CODE_ATTEMPTS_EXCEEDED');
  });

  it('four wrong codes still leave the right one usable', async () => {
    const email = uniqueEmail();
    const s = await session(t.app, store.key);
    await requestCode(s.token, email);
    const code = await latestCode(store.storeId, email);
    for (let i = 0; i < 4; i++) expectProblem(await verify(s.token, email, wrong(code)), 401, 'ONE_TIME_CODE_INVALID');
    expect((await verify(s.token, email, code)).statusCode).toBe(200);
  });

  it('concurrent wrong guesses cannot get more than five compared', async () => {
    const email = uniqueEmail();
    const s = await session(t.app, store.key);
    await requestCode(s.token, email);
    const code = await latestCode(store.storeId, email);
    const guesses = Array.from({ length: 30 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
    const answers = await Promise.all(
      guesses.map((guess) => post(base, '/v1/account/one-time-codes/verify', s.token, { email, code: guess })),
    );
    const codes = answers.map((answer) => answer.body.code);
    expect(codes.filter((c) => c === 'ONE_TIME_CODE_INVALID')).toHaveLength(5);
    expect(codes.filter((c) => c === 'ONE_TIME_CODE_ATTEMPTS_EXCEEDED')).toHaveLength(25);
    const { rows } = await (await db()).query('select attempts from one_time_codes where email_normalized = $1', [email]);
    expect(rows[0].attempts).toBe(5);
    expectProblem(await verify(s.token, email, code), 401, 'ONE_TIME_CODE_ATTEMPTS_EXCEEDED');
  });

  it('two concurrent verifies of one code: exactly one signs in', async () => {
    const email = uniqueEmail();
    const [a, b] = await Promise.all([session(t.app, store.key), session(t.app, store.key)]);
    await requestCode(a.token, email);
    const code = await latestCode(store.storeId, email);
    const answers = await Promise.all([a, b].map((s) => post(base, '/v1/account/one-time-codes/verify', s.token, { email, code })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
    expect(answers.find((answer) => answer.status === 401)?.body.code).toBe('ONE_TIME_CODE_EXPIRED');
    const { rows } = await (await db()).query('select count(*)::int as n from shoppers where email_normalized = $1', [email]);
    expect(rows[0].n).toBe(1);
  });

  it('at most three codes per address per 15 minutes, registered or not, even when requested at once', async () => {
    const email = uniqueEmail();
    const s = await session(t.app, store.key);
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(base, '/v1/account/one-time-codes', s.token, { email })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 202, 202, 429, 429, 429]);
    const limited = await requestCode(s.token, email);
    expectProblem(limited, 429, 'ONE_TIME_CODE_RATE_LIMITED');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Registration codes count toward the same limit.
    expectProblem(
      await call(t.app, 'POST', '/v1/account/register', s.token, { email, password: PASSWORD }),
      429,
      'ONE_TIME_CODE_RATE_LIMITED',
    );

    const registered = await signedUp(t.app, store.key, store.storeId);
    for (let i = 0; i < 2; i++) expect((await requestCode(s.token, registered.email)).statusCode).toBe(202);
    expectProblem(await requestCode(s.token, registered.email), 429, 'ONE_TIME_CODE_RATE_LIMITED');
    // Another address is unaffected.
    expect((await requestCode(s.token, uniqueEmail())).statusCode).toBe(202);
  });

  it('ten failed password sign-ins per address lock password sign-in for that address', async () => {
    const shopper = await signedUp(t.app, store.key, store.storeId);
    await call(t.app, 'POST', '/v1/account/sign-out', shopper.token);
    for (let i = 0; i < 10; i++)
      expectProblem(await signIn(shopper.token, shopper.email, `wrong password ${i}`), 401, 'INVALID_CREDENTIALS');
    const limited = await signIn(shopper.token, shopper.email, shopper.password);
    const body = expectProblem(limited, 429, 'SIGN_IN_RATE_LIMITED');
    expect(body.suggestion).toMatchObject({ code: 'SIGN_IN_WITH_CODE' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(14 * 60);
    // Same answer for an unknown address with as many failures: the limit does not reveal registration.
    const nobody = uniqueEmail('nobody');
    for (let i = 0; i < 10; i++) await signIn(shopper.token, nobody, PASSWORD);
    expectProblem(await signIn(shopper.token, nobody, PASSWORD), 429, 'SIGN_IN_RATE_LIMITED');
    // Once the failures are older than the window, the right password works again.
    await (
      await db()
    ).query(`update sign_in_failures set created_at = created_at - interval '16 minutes' where email_normalized = $1`, [
      shopper.email.toLowerCase(),
    ]);
    expect((await signIn(shopper.token, shopper.email, shopper.password)).statusCode).toBe(200);
  });

  it('signing in while another shopper is signed in is refused; the same shopper again is fine', async () => {
    const first = await signedUp(t.app, store.key, store.storeId);
    const second = await signedUp(t.app, store.key, store.storeId);
    expectProblem(await signIn(first.token, second.email, second.password), 409, 'ALREADY_SIGNED_IN');
    const again = await signIn(first.token, first.email, first.password);
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(first.shopperId);
    await requestCode(first.token, second.email);
    expectProblem(await verify(first.token, second.email, await latestCode(store.storeId, second.email)), 409, 'ALREADY_SIGNED_IN');
  });

  it('sign-out returns the session to anonymous, keeps its tokens, and is idempotent', async () => {
    const shopper = await signedUp(t.app, store.key, store.storeId);
    const out = await call(t.app, 'POST', '/v1/account/sign-out', shopper.token);
    expect(out.statusCode).toBe(204);
    expect(out.body).toBe('');
    expectProblem(await call(t.app, 'GET', '/v1/account/profile', shopper.token), 403, 'SIGN_IN_REQUIRED');
    expectProblem(await call(t.app, 'GET', '/v1/account/addresses', shopper.token), 403, 'SIGN_IN_REQUIRED');
    expect((await call(t.app, 'POST', '/v1/account/sign-out', shopper.token)).statusCode).toBe(204);
    // The same token signs in again: no new token is needed.
    expect((await signIn(shopper.token, shopper.email, shopper.password)).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/v1/account/profile', shopper.token)).statusCode).toBe(200);
  });

  it('profile changes: names, phone, language, consent; email is not changeable; password needs the current one', async () => {
    const shopper = await signedUp(t.app, store.key, store.storeId);
    const changed = await call(t.app, 'PATCH', '/v1/account/profile', shopper.token, {
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
    expect((await call(t.app, 'PATCH', '/v1/account/profile', shopper.token, { phone: null })).json().phone).toBeNull();

    expectProblem(await call(t.app, 'PATCH', '/v1/account/profile', shopper.token, { email: 'new@example.com' }), 400, 'VALIDATION_FAILED');
    expectProblem(await call(t.app, 'PATCH', '/v1/account/profile', shopper.token, { phone: '0501234567' }), 400, 'VALIDATION_FAILED');
    expectProblem(await call(t.app, 'PATCH', '/v1/account/profile', shopper.token, { locale: 'fr' }), 400, 'VALIDATION_FAILED');
    expectProblem(await call(t.app, 'PATCH', '/v1/account/profile', shopper.token, { firstName: null }), 400, 'VALIDATION_FAILED');
    expectProblem(
      await call(t.app, 'PATCH', '/v1/account/profile', shopper.token, { newPassword: 'new password 456' }),
      400,
      'VALIDATION_FAILED',
    );
    expectProblem(
      await call(t.app, 'PATCH', '/v1/account/profile', shopper.token, { currentPassword: 'wrong one', newPassword: 'new password 456' }),
      401,
      'INVALID_CREDENTIALS',
    );
    expectProblem(
      await call(t.app, 'PATCH', '/v1/account/profile', shopper.token, { currentPassword: shopper.password, newPassword: 'short' }),
      400,
      'VALIDATION_FAILED',
    );

    // Another session of the same shopper is signed out by the password change.
    const elsewhere = await session(t.app, store.key);
    expect((await signIn(elsewhere.token, shopper.email, shopper.password)).statusCode).toBe(200);
    const rotated = await call(t.app, 'PATCH', '/v1/account/profile', shopper.token, {
      currentPassword: shopper.password,
      newPassword: 'new password 456',
    });
    expect(rotated.statusCode).toBe(200);
    expectProblem(await call(t.app, 'GET', '/v1/account/profile', elsewhere.token), 403, 'SIGN_IN_REQUIRED');
    expect((await call(t.app, 'GET', '/v1/account/profile', shopper.token)).statusCode).toBe(200);
    expect((await signIn(elsewhere.token, shopper.email, shopper.password)).statusCode).toBe(401);
    expect((await signIn(elsewhere.token, shopper.email, 'new password 456')).statusCode).toBe(200);
  });

  it('validates every input', async () => {
    const s = await session(t.app, store.key);
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
    for (const [url, payload] of cases) expectProblem(await call(t.app, 'POST', url, s.token, payload), 400, 'VALIDATION_FAILED');
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
    const tokens = {
      'account:read': (
        await session(
          t.app,
          store.key,
          SCOPES.filter((scope) => scope !== 'account:read'),
        )
      ).token,
      'account:write': (
        await session(
          t.app,
          store.key,
          SCOPES.filter((scope) => scope !== 'account:write'),
        )
      ).token,
    };
    for (const [method, url, scope] of endpoints) {
      const body = expectProblem(
        await call(t.app, method, url, tokens[scope], method === 'GET' || method === 'DELETE' ? undefined : {}),
        403,
        'INSUFFICIENT_SCOPE',
      );
      expect(body.requiredScope).toBe(scope);
    }
  });
});
