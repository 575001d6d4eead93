import { EntityManager, MikroORM } from '@mikro-orm/core';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { SigningKey } from '../../src/auth/entities/signing-key.entity.js';
import { ChangeFeed } from '../../src/infra/database/change-feed.js';
import { SecretBox } from '../../src/infra/crypto/secrets.js';
import type { DatabaseSigningKeyStore } from '../../src/auth/signing/database-signing-key-store.js';
import { SIGNING_KEY_STORE } from '../../src/auth/signing/signing-key-store.js';
import { get, mint, type TestStore } from '../support/fixtures.js';
import { useTestApps, type Harness } from '../support/harness.js';
import { parse } from '../support/responses.js';
import { decodeJwt, within } from './support.js';

/** Adds a signing key retired `ago` (an SQL interval) and answers how to sign access tokens with it. */
async function insertRetiredKey(t: Harness, ago: string) {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const sealed = t.app.get(SecretBox).seal(JSON.stringify(await exportJWK(privateKey)));
  await t.db.query(
    `insert into signing_keys (kid, algorithm, public_jwk, private_jwk_sealed, created_at, retired_at)
     values ($1, 'EdDSA', $2, $3, now() - interval '30 days', now() - $4::interval)`,
    [kid, { ...publicJwk, kid, alg: 'EdDSA', use: 'sig' }, sealed, ago],
  );
  await t.app.get(ChangeFeed).publish('signing_keys_changed', kid);
  return {
    kid,
    sign: (claims: Record<string, unknown>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'at+jwt' })
        .setIssuer('storefront')
        .setAudience('storefront-api')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey),
  };
}

/**
 * Signing keys are shared by every instance and by other test files running at the same time, so
 * these tests assert on the kids they create themselves, never on the total number of keys.
 */
describe('signing key rotation', () => {
  const [a, b] = useTestApps(2);
  let store: TestStore;

  beforeAll(async () => {
    store = await a.store({ seedCatalogue: true, productCount: 2 });
  });

  const keysOf = (t: Harness) => t.app.get<DatabaseSigningKeyStore>(SIGNING_KEY_STORE);
  const mintToken = async (t: Harness) => {
    const response = await mint(t.app, store.key);
    expect(response.statusCode, response.body).toBe(201);
    return parse(response).accessToken as string;
  };
  const kidOf = (token: string) => decodeJwt(token).header.kid as string;
  const jwksKids = async (t: Harness) =>
    parse(await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).keys.map((key: { kid: string }) => key.kid);

  it('new tokens carry the new kid; tokens signed before still verify; the JWKS lists both', async () => {
    const before = await mintToken(a);
    const { kid, retiredKid } = await keysOf(a).rotate();
    expect(retiredKid).toBe(kidOf(before));
    expect(kid).not.toBe(retiredKid);

    const after = await mintToken(a);
    expect(kidOf(after)).toBe(kid);

    expect((await get(a.app, '/v1/catalogue/products', before)).statusCode).toBe(200);
    expect((await get(a.app, '/v1/catalogue/products', after)).statusCode).toBe(200);
    expect(await jwksKids(a)).toEqual(expect.arrayContaining([kid, retiredKid]));

    const rows = await a.db.rows('select kid, retired_at from signing_keys where kid = any($1)', [[kid, retiredKid]]);
    expect(rows.find((row) => row.kid === retiredKid)?.retired_at).toBeInstanceOf(Date);
    expect(rows.find((row) => row.kid === kid)?.retired_at).toBeNull();
  });

  it('another instance on the same database picks up a rotation at once (change feed)', async () => {
    const beforeOnB = await mintToken(b);
    const { kid } = await keysOf(a).rotate();

    // B signs with the new key and publishes it within a second, without waiting for its 60 s reload.
    const took = await within(1000, async () => kidOf(await mintToken(b)) === kid && (await jwksKids(b)).includes(kid));
    expect(took, 'B did not switch to the rotated key within 1 s').not.toBeNull();

    // A's post-rotation tokens verify on B, B's pre-rotation tokens verify on A.
    const fromA = await mintToken(a);
    expect(kidOf(fromA)).toBe(kid);
    expect((await get(b.app, '/v1/catalogue/products', fromA)).statusCode).toBe(200);
    expect((await get(a.app, '/v1/catalogue/products', beforeOnB)).statusCode).toBe(200);
    expect((await get(b.app, '/v1/catalogue/products', beforeOnB)).statusCode).toBe(200);
  });

  it('a retired key verifies for a token lifetime plus the reload margin, then leaves the JWKS and stops verifying', async () => {
    // Keys other test files never sign with, so retiring them "long ago" cannot disturb anyone.
    const recentlyRetired = await insertRetiredKey(a, '5 minutes');
    const longRetired = await insertRetiredKey(a, '1 hour');
    const seen = await within(2000, async () => (await jwksKids(a)).includes(recentlyRetired.kid));
    expect(seen, 'the key retired 5 minutes ago should still be published').not.toBeNull();
    expect(await jwksKids(a)).not.toContain(longRetired.kid);

    const claims = { sid: '00000000-0000-4000-8000-000000000000', store: store.storeId, scope: 'catalogue:read' };
    expect((await get(a.app, '/v1/catalogue/products', await recentlyRetired.sign(claims))).statusCode).toBe(200);
    const refused = await get(a.app, '/v1/catalogue/products', await longRetired.sign(claims));
    expect(refused.statusCode).toBe(401);
    expect(parse(refused).code).toBe('UNAUTHENTICATED');
  });

  it('a rotation announced while an instance is already reloading is not lost', async () => {
    const storeB = keysOf(b);
    // Fault injection: B's key-set read runs for real, but its answer is held back until A has
    // rotated and B has been told, as a slow query can do.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let readDone!: () => void;
    const read = new Promise<void>((resolve) => (readDone = resolve));
    let holding = true;
    const bDriver = b.app.get(MikroORM).em.getDriver();
    const find = EntityManager.prototype.find;
    const spy = vi.spyOn(EntityManager.prototype, 'find').mockImplementation(async function (
      this: EntityManager,
      ...args: Parameters<EntityManager['find']>
    ) {
      const result = await find.apply(this, args);
      if (args[0] === SigningKey && holding && this.getDriver() === bDriver) {
        holding = false;
        readDone();
        await held;
      }
      return result;
    } as EntityManager['find']);
    let kid: string;
    try {
      void (storeB as unknown as { reload(): Promise<void> }).reload();
      await read; // B has read the key set before the rotation ...
      const announced = new Promise<void>((resolve) => b.app.get(ChangeFeed).subscribe('signing_keys_changed', () => resolve()));
      kid = (await keysOf(a).rotate()).kid;
      await announced; // ... and has been told of the rotation while that read is still out.
    } finally {
      release();
      spy.mockRestore();
    }
    const took = await within(1000, async () => kidOf(await mintToken(b)) === kid && (await jwksKids(b)).includes(kid));
    expect(took, 'B kept the stale key set after the rotation notice').not.toBeNull();
  });

  describe('rotateIfOlderThan', () => {
    /** Makes the active key look `days` old. */
    const ageActiveKey = async (days: number) => {
      const rows = await a.db.rows(
        `update signing_keys set created_at = now() - make_interval(days => $1) where retired_at is null returning kid`,
        [days],
      );
      expect(rows).toHaveLength(1);
      return rows[0].kid as string;
    };
    const activeKids = async () =>
      (await a.db.rows('select kid from signing_keys where retired_at is null')).map((row) => row.kid as string);

    it('leaves a young key alone', async () => {
      await ageActiveKey(2);
      expect(await keysOf(a).rotateIfOlderThan(30)).toBe(false);
    });

    it('run from two instances at once, rotates exactly once', async () => {
      const aged = await ageActiveKey(31);
      const results = await Promise.all([
        keysOf(a).rotateIfOlderThan(30),
        keysOf(b).rotateIfOlderThan(30),
        keysOf(a).rotateIfOlderThan(30),
        keysOf(b).rotateIfOlderThan(30),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);

      const active = await activeKids();
      expect(active).toHaveLength(1);
      expect(active[0]).not.toBe(aged);
      const [created] = await a.db.rows(
        "select count(*)::int as n from signing_keys where created_at > now() - interval '1 minute' and kid <> all($1)",
        [[aged]],
      );
      expect(created.n).toBeGreaterThanOrEqual(1);

      // A second scheduled run finds a fresh key and does nothing.
      expect(await Promise.all([keysOf(a).rotateIfOlderThan(30), keysOf(b).rotateIfOlderThan(30)])).toEqual([false, false]);
      expect(await activeKids()).toEqual(active);
    });

    it('both instances sign with the key the winner created', async () => {
      await ageActiveKey(31);
      await Promise.all([keysOf(a).rotateIfOlderThan(30), keysOf(b).rotateIfOlderThan(30)]);
      const [active] = await activeKids();
      expect(kidOf(await mintToken(a))).toBe(active);
      const took = await within(1000, async () => kidOf(await mintToken(b)) === active);
      expect(took).not.toBeNull();
    });
  });
});
