import { describe, expect, it } from 'vitest';
import { createLogger, NestPinoLogger } from '../../src/infra/logging/logger.js';
import { accessToken, mint, refresh } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';

describe('structured logs', () => {
  const lines: string[] = [];
  const t = useTestApp({ LOG_LEVEL: 'trace' }, { logTo: { write: (line) => void lines.push(line) } });

  it('are JSON lines with request ids and never carry keys, tokens or cookies', async () => {
    const store = await t.store();
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

describe('messages of Nest and of libraries logging through it', () => {
  it('carry no colour codes, and the start-up lines of every module and route are debug', () => {
    const lines: string[] = [];
    const logger = new NestPinoLogger(createLogger('debug', { write: (line) => void lines.push(line) }));
    logger.log("\u001b[90m[migrator] \u001b[39mApplied '0001-foundation'", 'MikroORM');
    logger.log('Mapped {/v1/cart, GET} route', 'RouterExplorer');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Nest application successfully started', 'NestApplication');
    logger.error('\u001b[31mconnection refused\u001b[39m', '\u001b[31mError: connection refused\u001b[39m', 'MikroORM');

    expect(lines.join('')).not.toMatch(/\\u001b|\u001b/);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: 'info', context: 'MikroORM', msg: "[migrator] Applied '0001-foundation'" }),
      expect.objectContaining({ level: 'debug', context: 'RouterExplorer' }),
      expect.objectContaining({ level: 'debug', context: 'InstanceLoader' }),
      expect.objectContaining({ level: 'debug', context: 'NestApplication' }),
      expect.objectContaining({ level: 'error', msg: 'connection refused', trace: 'Error: connection refused' }),
    ]);
  });
});
