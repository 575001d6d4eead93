import { describe, expect, it } from 'vitest';
import { CHANGE_FEED_APPLICATION } from '../../src/infra/database/change-feed.js';
import { accessToken, get } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { eventually } from '../support/waiting.js';

const until = (condition: () => Promise<boolean>) => eventually(condition, Boolean, 5000);

describe('change feed', () => {
  // Its own database: terminating feed connections must not touch other files' apps.
  const t = useTestApp({ CATALOGUE_CACHE_SECONDS: '3600' }, { ownDatabase: true });

  const feedBackends = async () =>
    (await t.db.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [CHANGE_FEED_APPLICATION])).rows;

  it('reconnects after its connection is killed, and cached pages are dropped rather than left stale', async () => {
    const store = await t.store({ seedCatalogue: true, productCount: 4 });
    const token = await accessToken(t.app, store.key);
    const name = async () => (await get(t.app, '/v1/catalogue/brands?limit=1', token)).json().items[0].name.en as string;
    const original = await name();

    const [before] = await feedBackends();
    expect(before).toBeDefined();
    await t.db.query('select pg_terminate_backend($1)', [before.pid]);
    // A change made while the feed is down: its notice is lost, so the reconnect must flush the cache.
    await t.db.query('update brands set name_en = $1 where store_id = $2', ['While Disconnected', store.storeId]);

    expect(await until(async () => (await feedBackends()).some((backend) => backend.pid !== before.pid))).toBe(true);
    expect(await until(async () => (await name()) === 'While Disconnected')).toBe(true);

    // And the new connection carries notices again.
    await t.db.query('update brands set name_en = $1 where store_id = $2', [original, store.storeId]);
    expect(await until(async () => (await name()) === original)).toBe(true);
  });
});
