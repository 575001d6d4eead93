import { join } from 'node:path';
import type { Logger } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { DatabaseConnection } from './database-connection.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';

/** DATABASE_URL when set; otherwise the embedded PostgreSQL whose files live under DATA_DIR. */
export async function openDatabase(config: AppConfig, logger: Logger): Promise<DatabaseConnection> {
  if (config.DATABASE_URL)
    return new DatabaseConnection(config.DATABASE_URL, false, undefined, {
      direct: config.DATABASE_DIRECT_URL,
      replica: config.DATABASE_REPLICA_URL,
    });
  const started = Date.now();
  const embedded = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.EMBEDDED_PG_PORT,
    log: (message) => logger.debug({ component: 'embedded-postgres' }, message),
  });
  logger.info({ dataDir: join(config.dataDir, 'postgres'), ms: Date.now() - started }, 'embedded PostgreSQL ready');
  return new DatabaseConnection(embedded.url, true, () => embedded.stop(), { replica: config.DATABASE_REPLICA_URL });
}
