import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/infra/database/embedded-postgres.js';
import { withClient } from './waiting.js';

const MACHINE_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
  }
}

/**
 * One fresh database per test run, dropped afterwards. The server is DATABASE_URL's, else the
 * machine's PostgreSQL on 5432, else an embedded one under .data/test (so `npm test` needs nothing).
 */
export default async function setup(project: TestProject) {
  const { serverUrl, stop } = await findServer();
  const name = `storefront_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  await withClient(serverUrl, (client) => client.query(`create database ${name}`));
  const databaseUrl = new URL(serverUrl);
  databaseUrl.pathname = `/${name}`;
  project.provide('databaseUrl', databaseUrl.toString());
  project.provide('redisUrl', process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

  return async () => {
    await withClient(serverUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
    await stop();
  };
}

async function findServer(): Promise<{ serverUrl: string; stop: () => Promise<void> }> {
  const configured = process.env.DATABASE_URL;
  if (configured) return { serverUrl: configured, stop: async () => undefined };
  try {
    await withClient(MACHINE_POSTGRES, (client) => client.query('select 1'));
    return { serverUrl: MACHINE_POSTGRES, stop: async () => undefined };
  } catch {
    const embedded = await startEmbeddedPostgres({ dataDir: join(process.cwd(), '.data', 'test'), port: 54339 });
    return { serverUrl: embedded.url, stop: embedded.stop };
  }
}
