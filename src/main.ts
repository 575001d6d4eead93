import 'reflect-metadata';
import { createApp } from './app.factory.js';
import { ConfigError, loadConfig } from './infra/config/app-config.js';
import { openDatabase } from './infra/database/open-database.js';
import { createLogger } from './infra/logging/logger.js';
import { DemoStoreService } from './demo/demo-store.service.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const database = await openDatabase(config, logger);
  const app = await createApp({ config, database, logger });
  // Stop order matters: the app (HTTP, schedulers, pools, change feed) first, then its database.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      void app
        .close()
        .then(() => database.stop())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
    });
  }

  if (database.embedded && config.DEMO_STORE_ON_FIRST_START) {
    const demo = await app.get(DemoStoreService).createIfFirstStart();
    if (demo) printDemoBanner(demo.store.id, demo.apiKey.key, config.PORT);
  }
  await app.listen({ port: config.PORT, host: config.HOST });
  logger.info({ port: config.PORT, embeddedDatabase: database.embedded }, 'storefront service listening');
}

function printDemoBanner(storeId: string, apiKey: string, port: number): void {
  const base = `http://localhost:${port}`;
  process.stdout.write(
    [
      '',
      '  Demo store created (shown once; only a hash of the key is kept).',
      `  store id : ${storeId}`,
      `  API key  : ${apiKey}`,
      '',
      '  Try it:',
      `    TOKEN=$(curl -s -X POST ${base}/v1/auth/anonymous -H 'X-Api-Key: ${apiKey}' | sed -E 's/.*"accessToken":"([^"]+)".*/\\1/')`,
      `    curl -s ${base}/v1/catalogue/products?limit=3 -H "Authorization: Bearer $TOKEN"`,
      `  API docs: ${base}/docs`,
      '',
    ].join('\n') + '\n',
  );
}

void main().catch((error: unknown) => {
  process.stderr.write(`storefront service failed to start: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
