import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { inject } from 'vitest';
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
export async function startTestApp(env: Record<string, string> = {}, logDestination?: { write(line: string): void }): Promise<TestApp> {
  const databaseUrl = inject('databaseUrl');
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_POOL_SIZE: '10',
    ...env,
  });
  const logger = createLogger(config.LOG_LEVEL, logDestination);
  const app = await createApp({ config, database: new DatabaseConnection(databaseUrl, false), logger, schedulers: false });
  let base: string | undefined;
  return {
    app,
    databaseUrl,
    async listen() {
      if (!base) {
        await app.listen({ port: 0, host: '127.0.0.1' });
        base = await app.getUrl();
        base = base.replace('[::1]', '127.0.0.1');
      }
      return base;
    },
    close: () => app.close(),
  };
}
