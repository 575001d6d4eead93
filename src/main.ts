import 'reflect-metadata';
import { createServer } from 'node:net';
import { pino } from 'pino';
import { ConfigError, loadConfig } from './infra/config/app-config.js';
import { EmbeddedPostgresError } from './infra/database/embedded-postgres-error.js';
import { createLogger } from './infra/logging/logger.js';
import { startTelemetry } from './infra/telemetry/telemetry-sdk.js';

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
  // Before the database: a second `npm start` fails at once, and a first start never creates the demo
  // store (and its key, shown once) for a server that cannot listen.
  await assertAddressFree(config.HOST, config.PORT);
  // The log and the demo banner share one stream, so that the banner comes after the lines logged before it.
  const stdout = pino.destination({ dest: 1, sync: false });
  const logger = createLogger(config.LOG_LEVEL, stdout);
  // Before the rest of the service is loaded: the instrumentations patch pg, http and the AWS SDK as they load.
  const telemetry = await startTelemetry(config);
  const { createApp } = await import('./app.factory.js');
  const { openDatabase } = await import('./infra/database/open-database.js');
  const { DemoStoreService } = await import('./demo/demo-store.service.js');
  const database = await openDatabase(config, logger);
  const app = await createApp({ config, database, logger });
  // Stop order matters: the app (HTTP, schedulers, pools, change feed) first, then its database.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      void app
        .close()
        .then(() => database.stop())
        .then(() => telemetry?.shutdown())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
    });
  }

  // Created before listening, so that a ready service has its demo store.
  const demo = database.embedded && config.DEMO_STORE_ON_FIRST_START ? await app.get(DemoStoreService).createIfFirstStart() : null;
  await app.listen({ port: config.PORT, host: config.HOST });
  logger.info({ port: config.PORT, embeddedDatabase: database.embedded }, 'storefront service listening');
  if (demo) stdout.write(demoBanner(demo.store.id, demo.apiKey.key, demo.owner, config.PORT));
}

function assertAddressFree(host: string, port: number): Promise<void> {
  const probe = createServer();
  return new Promise((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host, port }, () => probe.close(() => resolve()));
  });
}

function demoBanner(storeId: string, apiKey: string, owner: { email: string; password: string }, port: number): string {
  const base = `http://localhost:${port}`;
  const signIn = JSON.stringify({ storeId, email: owner.email, password: owner.password });
  return (
    [
      '',
      '  Demo store created (shown once; only hashes of the key and the password are kept).',
      `  store id : ${storeId}`,
      `  API key  : ${apiKey}`,
      `  dashboard: ${owner.email} / ${owner.password}  (the store's owner)`,
      `  open     : ${base}/admin/?store=${storeId}  (the dashboard web app: sign in as the owner)`,
      '',
      '  Try it:',
      `    TOKEN=$(curl -s -X POST ${base}/v1/auth/anonymous -H 'X-Api-Key: ${apiKey}' | sed -E 's/.*"accessToken":"([^"]+)".*/\\1/')`,
      `    curl -s ${base}/v1/catalogue/products?limit=3 -H "Authorization: Bearer $TOKEN"`,
      '  Sign in to the dashboard API as the owner:',
      `    ADMIN=$(curl -s -X POST ${base}/admin/auth/sign-in -H 'Content-Type: application/json' -d '${signIn}' | sed -E 's/.*"accessToken":"([^"]+)".*/\\1/')`,
      `    curl -s ${base}/admin/auth/me -H "Authorization: Bearer $ADMIN"`,
      `  API docs: ${base}/docs`,
      '',
    ].join('\n') + '\n'
  );
}

/** One line for what an operator can fix by setting a variable; the stack for anything else. */
function describeStartFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    const { address, port } = error as unknown as { address: string; port: number };
    return (
      `${address}:${port} is already in use (is the service already running?). ` +
      `Set PORT (and HOST if needed) to serve elsewhere, e.g. PORT=${port + 1} npm start`
    );
  }
  if (error instanceof EmbeddedPostgresError) return error.message;
  return (error as Error)?.stack ?? String(error);
}

void main().catch((error: unknown) => {
  process.stderr.write(`storefront service failed to start: ${describeStartFailure(error)}\n`);
  process.exit(1);
});
