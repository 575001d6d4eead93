import { EntityManager } from '@mikro-orm/core';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { ChangeFeed } from '../../src/infra/database/change-feed.js';
import { ApiKeyService } from '../../src/stores/api-key.service.js';
import { ApiKey } from '../../src/stores/entities/api-key.entity.js';
import { issueKey, mint, refresh, type TestStore } from '../support/fixtures.js';
import { useTestApps, type Harness } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { parse } from '../support/responses.js';
import { notified, sha256Hex, within } from './support.js';

const KEY_CHANNEL = 'api_key_changed';

/**
 * Resolves once `to` has handled every key notification `from` published before the call: a marker
 * sent after them arrives after them (PostgreSQL delivers notifications in commit order).
 */
async function drained(from: Harness, to: Harness): Promise<void> {
  const marker = `marker-${Math.random().toString(36).slice(2)}`;
  const arrived = notified(to.app.get(ChangeFeed), KEY_CHANNEL, marker);
  await from.app.get(ChangeFeed).publish(KEY_CHANNEL, marker);
  await arrived;
}

async function minted(t: Harness, key: string) {
  const response = await mint(t.app, key);
  expect(response.statusCode, response.body).toBe(201);
  return parse(response);
}

describe('key revocation', () => {
  const [a, b] = useTestApps(2);
  let store: TestStore;

  beforeAll(async () => {
    store = await a.store();
  });

  it('ends the revoked key’s sessions at their next refresh (INVALID_API_KEY); the sibling key’s sessions live on', async () => {
    const doomed = await issueKey(a.app, store.storeId);
    const sibling = await issueKey(a.app, store.storeId);
    // Both sessions have refreshed once: the keys are resolved and cached, the sessions healthy.
    const doomedLatest = parse(await refresh(a.app, doomed.key, (await minted(a, doomed.key)).refreshToken));
    const siblingLatest = parse(await refresh(a.app, sibling.key, (await minted(a, sibling.key)).refreshToken));
    expect(doomedLatest.refreshToken).toBeTruthy();
    expect(siblingLatest.refreshToken).toBeTruthy();

    const revoked = await a.app.get(ApiKeyService).revoke(doomed.id);
    expect(revoked?.id).toBe(doomed.id);
    expect(revoked?.revokedAt).toBeInstanceOf(Date);

    // The session's next refresh, with its own (now revoked) key and its valid token, is refused.
    expectProblem(await refresh(a.app, doomed.key, doomedLatest.refreshToken), 401, 'INVALID_API_KEY');
    // Minting with the revoked key is refused.
    expectProblem(await mint(a.app, doomed.key), 401, 'INVALID_API_KEY');
    // The sibling key's session refreshes as before, and the sibling still mints.
    expect((await refresh(a.app, sibling.key, siblingLatest.refreshToken)).statusCode).toBe(200);
    expect((await mint(a.app, sibling.key)).statusCode).toBe(201);
  });

  it('a session of a revoked key cannot be rescued by refreshing it with a live key of the same store', async () => {
    const doomed = await issueKey(a.app, store.storeId);
    const sibling = await issueKey(a.app, store.storeId);
    const session = await minted(a, doomed.key);
    await a.app.get(ApiKeyService).revoke(doomed.id);
    expectProblem(await refresh(a.app, sibling.key, session.refreshToken), 401, 'INVALID_REFRESH_TOKEN');
  });

  it('revocation through the command line service ends mint and refresh', async () => {
    const doomed = await issueKey(a.app, store.storeId);
    const session = await minted(a, doomed.key);

    const printed = (await COMMANDS['key revoke'].run(a.app, { key: doomed.id })) as { apiKey: { id: string; revokedAt: string } };
    expect(printed.apiKey.id).toBe(doomed.id);
    expect(Number.isNaN(Date.parse(printed.apiKey.revokedAt))).toBe(false);

    expectProblem(await mint(a.app, doomed.key), 401, 'INVALID_API_KEY');
    expectProblem(await refresh(a.app, doomed.key, session.refreshToken), 401, 'INVALID_API_KEY');
  });

  it('revoking twice keeps the first revocation time', async () => {
    const doomed = await issueKey(a.app, store.storeId);
    const first = await a.app.get(ApiKeyService).revoke(doomed.id);
    const second = await a.app.get(ApiKeyService).revoke(doomed.id);
    expect(second?.revokedAt.getTime()).toBe(first?.revokedAt.getTime());
  });

  it('a revocation on instance A reaches instance B’s key cache within a second (LISTEN/NOTIFY)', async () => {
    const key = await issueKey(a.app, store.storeId);
    // B resolves and caches the key by serving a mint with it.
    await minted(b, key.key);
    expect(await b.app.get(ApiKeyService).resolve(key.key)).toMatchObject({ id: key.id });

    await a.app.get(ApiKeyService).revoke(key.id);

    // B's cache lives 30 s; only the change feed can make it forget the key this fast.
    const took = await within(1000, async () => (await b.app.get(ApiKeyService).resolve(key.key)) === null);
    expect(took, 'B still resolved the revoked key after 1 s').not.toBeNull();
    expectProblem(await mint(b.app, key.key), 401, 'INVALID_API_KEY');
  });

  it('the cache is real (a revocation written behind the service’s back stays unseen), yet mint and refresh still check the database', async () => {
    const key = await issueKey(a.app, store.storeId);
    // Let B hear of the issuance first, or that late notification would empty B's cache mid-test.
    await drained(a, b);
    const session = await minted(b, key.key);

    await a.db.query('update api_keys set revoked_at = now() where id = $1', [key.id]);
    // No notification was published: B's cache still holds the key ...
    expect(await b.app.get(ApiKeyService).resolve(key.key)).toMatchObject({ id: key.id });
    // ... but the mint and refresh statements check revocation themselves.
    expectProblem(await mint(b.app, key.key), 401, 'INVALID_API_KEY');
    expectProblem(await refresh(b.app, key.key, session.refreshToken), 401, 'INVALID_API_KEY');
  });

  it('a lookup in flight when the revocation is announced does not re-cache the revoked key', async () => {
    const key = await issueKey(a.app, store.storeId);
    await drained(a, b);
    const keyHash = sha256Hex(key.key);

    // Fault injection: B's real SELECT runs, but its answer is held back until the revocation has
    // been committed and announced, as a slow network or a busy event loop can do.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let readDone!: () => void;
    const read = new Promise<void>((resolve) => (readDone = resolve));
    const findOne = EntityManager.prototype.findOne;
    const spy = vi.spyOn(EntityManager.prototype, 'findOne').mockImplementation(async function (
      this: EntityManager,
      ...args: Parameters<EntityManager['findOne']>
    ) {
      const result = await findOne.apply(this, args);
      if (args[0] === ApiKey && (args[1] as { keyHash?: string }).keyHash === keyHash) {
        readDone();
        await held;
      }
      return result;
    } as EntityManager['findOne']);
    try {
      const inFlight = b.app.get(ApiKeyService).resolve(key.key);
      await read; // B has read the key as live ...
      const announced = notified(b.app.get(ChangeFeed), KEY_CHANNEL, keyHash);
      await a.app.get(ApiKeyService).revoke(key.id);
      await announced; // ... and has handled the revocation before that read answers.
      release();
      expect(await inFlight).toMatchObject({ id: key.id }); // began before the revocation: may answer live
    } finally {
      spy.mockRestore();
      release();
    }
    // Without care the stale answer would now sit in B's cache for 30 s.
    expect(await b.app.get(ApiKeyService).resolve(key.key)).toBeNull();
  });
});
