import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type EntityClass, type Options } from '@mikro-orm/postgresql';
import { MIGRATIONS } from './migrations/index.js';

/**
 * `entities`: every domain's, listed at the wiring level (src/entities.ts), so infra names no domain.
 * `pooled`: `clientUrl` is a pooler in transaction mode (DATABASE_DIRECT_URL is set), which refuses start-up options.
 */
export function ormOptions(clientUrl: string, entities: EntityClass<unknown>[], poolSize = 20, pooled = false): Options {
  return defineConfig({
    clientUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: poolSize },
    // The service's statements are short; compiling one (PostgreSQL's JIT, past a cost threshold the reports'
    // aggregations reach on big stores) costs more than it saves. Asked for at each connection's start, and
    // set on the database too (migration 0024) for a pooler's connections: a connection opened before that
    // migration ran (the one that ran it, say) keeps the setting it started with.
    driverOptions: pooled ? {} : { options: '-c jit=off' },
    discovery: { checkDuplicateTableNames: true },
    debug: false,
    allowGlobalContext: false,
  });
}
