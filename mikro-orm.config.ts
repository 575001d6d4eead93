import { ENTITIES } from './src/entities.js';
import { ormOptions } from './src/infra/database/orm-options.js';

/** For the MikroORM CLI (schema diff, migration scaffolding) against DATABASE_URL. */
export default ormOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/storefront', ENTITIES);
