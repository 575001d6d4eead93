import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { inject } from 'vitest';
import { withClient } from './waiting.js';
import { createApp } from '../../src/app.factory.js';
import { loadConfig } from '../../src/infra/config/app-config.js';
import { DatabaseConnection } from '../../src/infra/database/database-connection.js';
import { createLogger } from '../../src/infra/logging/logger.js';

export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

export interface TestApp {
  app: NestFastifyApplication;
  databaseUrl: string;
  /** Listens on an ephemeral port for tests that race real HTTP requests. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The real application on the run's test database; `env` overrides configuration like the environment would. */
export async function startTestApp(
  env: Record<string, string> = {},
  logDestination?: { write(line: string): void },
  schedulers = false,
): Promise<TestApp> {
  const databaseUrl = env.DATABASE_URL ?? inject('databaseUrl');
  const config = loadConfig({
    SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_POOL_SIZE: '10',
    ...env,
    DATABASE_URL: databaseUrl,
  });
  const logger = createLogger(config.LOG_LEVEL, logDestination);
  const database = new DatabaseConnection(databaseUrl, false, undefined, {
    direct: config.DATABASE_DIRECT_URL,
    replica: config.DATABASE_REPLICA_URL,
  });
  const app = await createApp({ config, database, logger, schedulers });
  let listening: Promise<string> | undefined;
  return {
    app,
    databaseUrl,
    listen() {
      // Concurrent callers (racing requests) share the one listen.
      listening ??= app
        .listen({ port: 0, host: '127.0.0.1' })
        .then(() => app.getUrl())
        .then((url) => url.replace('[::1]', '127.0.0.1'));
      return listening;
    },
    close: () => app.close(),
  };
}

/**
 * A database of its own, for tests that change what every app on the shared test database relies on
 * (signing keys, connectivity). Dropped by the returned function.
 */
export async function createIsolatedDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const shared = new URL(inject('databaseUrl'));
  const name = `${shared.pathname.slice(1)}_iso_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new URL(shared);
  admin.pathname = '/postgres';
  const run = (statement: string) => withClient(admin.toString(), (client) => client.query(statement)).then(() => undefined);
  await run(`create database ${name}`);
  const url = new URL(shared);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}
