import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type EntityClass, type Options } from '@mikro-orm/postgresql';
import { MIGRATIONS } from './migrations/index.js';

/** `entities`: every domain's, listed at the wiring level (src/entities.ts), so infra names no domain. */
export function ormOptions(clientUrl: string, entities: EntityClass<unknown>[], poolSize = 20): Options {
  return defineConfig({
    clientUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: poolSize },
    discovery: { checkDuplicateTableNames: true },
    debug: false,
    allowGlobalContext: false,
  });
}
