import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, createStore, mint, refresh } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('structured logs', () => {
  const lines: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'trace' }, { write: (line) => void lines.push(line) });
  });
  afterAll(() => t.close());

  it('are JSON lines with request ids and never carry keys, tokens or cookies', async () => {
    const store = await createStore(t.app);
    const bearer = (await mint(t.app, store.key)).json();
    const rotated = (await refresh(t.app, store.key, bearer.refreshToken)).json();
    const cookie = await mint(t.app, store.key, { transport: 'cookie' });
    const token = await accessToken(t.app, store.key);
    await t.app.inject({
      method: 'GET',
      url: '/v1/catalogue/products',
      headers: { authorization: `Bearer ${token}`, cookie: `sf_access=${token}`, 'x-request-id': 'trace-me-123' },
    });
    await t.app.inject({ method: 'GET', url: '/v1/nowhere', headers: { 'x-api-key': store.key } });

    expect(lines.length).toBeGreaterThan(5);
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.every((record) => typeof record.level === 'string' && typeof record.time === 'string')).toBe(true);
    expect(records.some((record) => record.reqId === 'trace-me-123')).toBe(true);

    const secrets = [store.key, bearer.accessToken, bearer.refreshToken, rotated.accessToken, rotated.refreshToken, token];
    for (const header of [cookie.headers['set-cookie']].flat()) secrets.push(String(header).split(';')[0].split('=')[1]);
    const everything = lines.join('\n');
    for (const secret of secrets) expect(everything).not.toContain(secret);
  });
});
