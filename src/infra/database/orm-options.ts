import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { ENTITIES } from '../../entities.js';
import { MIGRATIONS } from './migrations/index.js';

export function ormOptions(clientUrl: string, poolSize = 20): Options {
  return defineConfig({
    clientUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: poolSize },
    discovery: { checkDuplicateTableNames: true },
    debug: false,
    allowGlobalContext: false,
  });
}
