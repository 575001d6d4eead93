import { beforeAll, describe, expect, it } from 'vitest';
import { buildOnce } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { latestCode, uniqueEmail } from './helpers.js';

const cli = (...args: string[]) => runCli(args);

describe('outbox list (command line)', () => {
  const t = useTestApp();
  let store: TestStore;

  beforeAll(async () => {
    await buildOnce();
    store = await t.store();
  }, 120_000);

  it('prints the store’s messages as JSON, newest first, filtered by recipient and limited', async () => {
    const first = uniqueEmail('First');
    const second = uniqueEmail('second');
    const s = await t.shopper(store);
    await s.call('POST', '/v1/account/one-time-codes', { email: first, locale: 'en' });
    await s.call('POST', '/v1/account/one-time-codes', { email: second, locale: 'ar' });
    await s.call('POST', '/v1/account/register', { email: second, password: 'correct horse battery', locale: 'ar' });

    const all = await cli('outbox', 'list', '--store', store.storeId);
    expect(all.code, all.stdout).toBe(0);
    expect(Object.keys(all.json)).toEqual(['messages']);
    expect(all.json.messages.map((m: { recipient: string; template: string }) => [m.recipient, m.template])).toEqual([
      [second, 'registration_code'],
      [second, 'sign_in_code'],
      [first, 'sign_in_code'],
    ]);
    expect(Object.keys(all.json.messages[0]).sort()).toEqual([
      'attachments',
      'bodyText',
      'createdAt',
      'id',
      'locale',
      'recipient',
      'subject',
      'template',
    ]);
    expect(all.json.messages[0].attachments).toEqual([]);

    const filtered = await cli('outbox', 'list', '--store', store.storeId, '--to', first.toUpperCase(), '--limit', '5');
    expect(filtered.code).toBe(0);
    expect(filtered.json.messages).toHaveLength(1);
    expect(filtered.json.messages[0]).toMatchObject({ recipient: first, locale: 'en', createdAt: expect.stringMatching(/Z$/) });
    expect(filtered.json.messages[0].bodyText).toContain(await latestCode(t.db, store.storeId, first));

    const limited = await cli('outbox', 'list', '--store', store.storeId, '--limit', '1');
    expect(limited.json.messages).toHaveLength(1);
    expect(limited.json.messages[0].template).toBe('registration_code');
  });

  it('refuses bad options with a usage error and an unknown store with STORE_NOT_FOUND', async () => {
    const usage = await cli('outbox', 'list', '--store', store.storeId, '--limit', '0');
    expect(usage.code).toBe(2);
    expect(usage.json.error.code).toBe('USAGE');
    expect((await cli('outbox', 'list', '--store', 'nope')).json.error.code).toBe('USAGE');
    expect((await cli('outbox', 'list', '--store', store.storeId, '--to', 'nobody')).json.error.code).toBe('USAGE');
    const missing = await cli('outbox', 'list', '--store', '00000000-0000-4000-8000-000000000000');
    expect(missing.code).toBe(1);
    expect(missing.json.error.code).toBe('STORE_NOT_FOUND');
  });
});
