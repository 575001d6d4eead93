import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITIES } from '../../src/entities.js';
import { ormOptions } from '../../src/infra/database/orm-options.js';
import { useTestApp } from '../support/harness.js';

/**
 * What the migrations hold that entity metadata cannot express: the SQL helper functions and the
 * triggers: entities declare neither, so the ORM's diff proposes to drop every one of them.
 */
const HAND_WRITTEN = /^drop (trigger|function) if exists "\w+"/;

describe('schema', () => {
  const t = useTestApp();
  let orm: MikroORM;
  beforeAll(async () => {
    // the app applied the migrations
    orm = await MikroORM.init(ormOptions(t.databaseUrl, ENTITIES, 2));
  });
  afterAll(async () => {
    await orm.close();
  });

  it('the entities describe exactly what the migrations built', async () => {
    const statements = (await orm.schema.getUpdateSchemaSQL({ wrap: false }))
      .split(/;\s*\n/)
      .map((statement) => statement.trim().replace(/;$/, ''))
      .filter((statement) => statement !== '' && !HAND_WRITTEN.test(statement));
    expect(statements).toEqual([]);
  });
});
