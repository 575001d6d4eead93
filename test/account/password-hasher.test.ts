import { argon2Sync, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/infra/crypto/password-hasher.js';
import { ConfigError, loadConfig } from '../../src/infra/config/app-config.js';
import { type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { signedUp } from './helpers.js';

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** A PHC string made with weaker, older parameters, as an earlier release might have stored. */
function legacyHash(password: string): string {
  const salt = randomBytes(16);
  const tag = argon2Sync('argon2id', { message: password, nonce: salt, memory: 8192, passes: 1, parallelism: 1, tagLength: 32 });
  return `$argon2id$v=19$m=8192,t=1,p=1$${b64(salt)}$${b64(tag)}`;
}

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher();

  it('makes argon2id PHC strings with OWASP parameters and a fresh salt each time', async () => {
    const [a, b] = await Promise.all([hasher.hash('correct horse battery'), hasher.hash('correct horse battery')]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(await hasher.verify('correct horse battery', a)).toEqual({ valid: true, needsRehash: false });
    expect(await hasher.verify('correct horse batterY', a)).toEqual({ valid: false, needsRehash: false });
    expect(await hasher.verify('anything', 'not a phc string')).toEqual({ valid: false, needsRehash: false });
  });

  it('verifies hashes made with other parameters and asks for a rehash', async () => {
    const old = legacyHash('correct horse battery');
    expect(await hasher.verify('correct horse battery', old)).toEqual({ valid: true, needsRehash: true });
    expect((await hasher.verify('wrong', old)).valid).toBe(false);
  });

  it('checking against no password costs a real verification and never succeeds', async () => {
    hasher.onModuleInit();
    await hasher.verifyAgainstNothing('warm-up');
    const known = await hasher.hash('x'.repeat(10));
    const nothingStarted = performance.now();
    expect(await hasher.verifyAgainstNothing('whatever')).toEqual({ valid: false, needsRehash: false });
    const nothingTook = performance.now() - nothingStarted;
    const verifyStarted = performance.now();
    await hasher.verify('y'.repeat(10), known);
    const verifyTook = performance.now() - verifyStarted;
    // One argon2id run either way, not an instant refusal that would tell an unknown address apart.
    expect(nothingTook).toBeGreaterThan(verifyTook / 3);
  });
});

describe('rehash on sign-in', () => {
  const t = useTestApp();
  let store: TestStore;
  beforeAll(async () => {
    store = await t.store();
  });

  it('replaces a hash made with old parameters when the shopper signs in', async () => {
    const shopper = await signedUp(t, store);
    await t.db.query('update shoppers set password_hash = $1 where id = $2', [legacyHash(shopper.password), shopper.shopperId]);
    const s = await t.shopper(store);
    expect((await s.call('POST', '/v1/account/sign-in', { email: shopper.email, password: shopper.password })).statusCode).toBe(200);
    const { rows } = await t.db.query('select password_hash from shoppers where id = $1', [shopper.shopperId]);
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    await s.call('POST', '/v1/account/sign-out');
    expect((await s.call('POST', '/v1/account/sign-in', { email: shopper.email, password: shopper.password })).statusCode).toBe(200);
  });
});

describe('mail settings', () => {
  it('accept smtp:// and smtps:// URLs and a sender with or without a name', () => {
    expect(loadConfig({ SMTP_URL: 'smtps://user:pass@mail.example:465', MAIL_FROM: 'no-reply@shop.example' })).toMatchObject({
      SMTP_URL: 'smtps://user:pass@mail.example:465',
      MAIL_FROM: 'no-reply@shop.example',
    });
    expect(loadConfig({}).SMTP_URL).toBeUndefined();
    expect(loadConfig({ MAIL_FROM: 'Oud Shop <hello@oud.example>' }).MAIL_FROM).toBe('Oud Shop <hello@oud.example>');
  });

  it('refuse bad values without printing the SMTP password', () => {
    let error: unknown;
    try {
      loadConfig({ SMTP_URL: 'http://mailer:s3cret-pass@mail.example', MAIL_FROM: 'not an address' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('SMTP_URL=');
    expect(message).toContain('MAIL_FROM=');
    expect(message).not.toContain('s3cret-pass');
    expect(message).toContain('mailer:***@');
  });
});
