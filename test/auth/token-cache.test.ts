import { describe, expect, it } from 'vitest';
import { SIGNING_KEY_STORE, type SigningKeyStore } from '../../src/auth/signing/signing-key-store.js';
import { accessToken, get } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { eventually } from '../support/waiting.js';

function kidOf(token: string): string {
  return JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid;
}

describe('verified-token cache', () => {
  // Withdrawing a signing key would break other files' tokens on the shared database.
  const t = useTestApp({}, { ownDatabase: true });

  it('never answers a tampered copy of a token it has already verified', async () => {
    const store = await t.store();
    const token = await accessToken(t.app, store.key);
    expect((await get(t.app, '/v1/catalogue/brands', token)).statusCode).toBe(200);
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const widened = Buffer.from(JSON.stringify({ ...claims, store: '00000000-0000-0000-0000-000000000000' })).toString('base64url');
    expect((await get(t.app, '/v1/catalogue/brands', `${header}.${widened}.${signature}`)).statusCode).toBe(401);
    expect((await get(t.app, '/v1/catalogue/brands', `${token}x`)).statusCode).toBe(401);
  });

  it('stops accepting a cached token once its signing key leaves the verification set', async () => {
    const store = await t.store();
    const token = await accessToken(t.app, store.key);
    expect((await get(t.app, '/v1/catalogue/brands', token)).statusCode).toBe(200);

    await t.app.get<SigningKeyStore>(SIGNING_KEY_STORE).rotate();
    expect((await get(t.app, '/v1/catalogue/brands', token)).statusCode).toBe(200);

    // The old key retired long ago (as if compromised and withdrawn): every instance reloads on the notice.
    await t.db.query(`update signing_keys set retired_at = now() - interval '1 day' where kid = $1`, [kidOf(token)]);
    await t.db.query(`select pg_notify('signing_keys_changed', 'withdrawn')`);
    const status = await eventually(
      async () => (await get(t.app, '/v1/catalogue/brands', token)).statusCode,
      (code) => code !== 200,
    );
    expect(status).toBe(401);
    expect((await get(t.app, '/v1/catalogue/brands', await accessToken(t.app, store.key))).statusCode).toBe(200);
  });
});
