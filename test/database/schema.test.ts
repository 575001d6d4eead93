import { MikroORM } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITIES } from '../../src/entities.js';
import { MIGRATIONS } from '../../src/infra/database/migrations/index.js';
import { ormOptions } from '../../src/infra/database/orm-options.js';
import { useTestApp } from '../support/harness.js';

/**
 * What the migrations hold that entity metadata cannot express: the SQL helper functions and the
 * triggers: entities declare neither, so the ORM's diff proposes to drop every one of them.
 */
const HAND_WRITTEN = /^drop (trigger|function) if exists "\w+"/;

/**
 * The SQL of every migration that has shipped, by checksum. Databases out there ran these statements
 * as they were, so they never change: a schema change is a new migration, whose checksum is added
 * here when it lands.
 */
const SHIPPED_MIGRATIONS: Record<string, string> = {
  '0001-foundation': '56859191abc55f75e81ac9ac164e763e9eae9eb045f6fae01731171244969556',
  '0002-shoppers-and-orders': 'bf1b4a97067aae720b9bca05e8c80499145d7c5890847ce01f8a58f9a5cead77',
  '0003-search': '80766ded10653d5e536d5550fc7a9255f222666e22f0d1e76478c075820602cf',
  '0004-idempotency-claims': 'e24435cd824e08f20d736a05fd4baf4f7e0c3837913f4c8e8233319b034c2622',
  '0005-staff-and-support': 'fd152c0fd45b85cc1176f77622f6236cae09c64bd6806bcea944d6c35db536cf',
  '0006-storefront-events': '8e7677497de810df6e3a11a623f0be378806888899d6e28a38eba6d80af945bd',
  '0007-insights-rollups': '17384279acdb21593b8eb4bfea3eb9808fdad681a90b24f8a6cee6c5a87a95ce',
  '0008-history-sessions': '632b8942d1d4550ec0b1c9d2bc900e1794be80cb9993cd4b679c5755fbc34acd',
  '0009-pending-event-batches': '58b5dae7fe64fe979e37a980a2566403e452569817d83c73e913d2753a7e9666',
  '0010-insights-saved-reports': '0de96d1ef3de2f60962ecf28518e8f185c169cbfb474a8d5cd2efd33e9ab41e8',
  '0011-insights-settings': 'cf03098cea0c70b9b12e0122c2951de1311d1b69658f74fdb4bcf2717c918db6',
  '0012-insights-test-orders-and-lateness': 'a428811a204bc10846911f3a8ea8af57ed4b4d88f408598066c7cb0c7b23f49b',
  '0013-insights-exports-and-schedules': '06db9f9a866d96a6750cc5bafed1a302e776e201d40628c584074bed05692a19',
  '0014-data-hub-connections': 'fb49ccd65c773b9ee5e871ed86de964cf02426548c2cd06196633ceaf375c265',
  '0015-data-hub-mappings': '91c60ee2b91bd6d53346772bf43077b03c3d4895b2f496f887e052773c32eb22',
  '0016-data-hub-flows': '7674f55c5a5cc15939a1c8e3fac9c2a3212ef6f6e38f6e5970146cc2d3a6ea62',
  '0017-data-hub-runs': '77c03b8511a86e1dff7c62ceec80713a9c1d7036bbb7c6537789a0fc8f83c07f',
  '0018-data-hub-run-alerts': '391cee058e461c0b2edd8b03bd9d61e41b58b826e9e1da17c9861907d7ce46b7',
  '0019-insights-schedule-connections': 'a32b5039c4569a5e90dbd402a4857778e8e69ef3dad408ca95a84e177da5d5f8',
  '0020-data-hub-imports': '96320027143e5107eae6693205cf241e76c6daec85e5cb1ac77197cf94f38765',
  '0021-data-hub-formula-safety': 'b9677931a48479bc801c2cda4eba925c2d641a22c3a70763a4ddcabd4dbf9aa4',
  '0022-insights-records-path': '7e4520fe0a40e62988c453c7c9d02e2b3af82fb4b7ff3b7f517624d45962bed0',
  '0023-data-hub-undo': '6544da08ac6ee6daa72e532e734406a770c5a7d343c41fdaa4c727ce4386a63f',
};

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

  async function checksumOf(migration: (typeof MIGRATIONS)[number]): Promise<string> {
    const instance = new migration.class(orm.em.getDriver(), orm.config);
    await instance.up();
    return createHash('sha256').update(JSON.stringify(instance.getQueries())).digest('hex');
  }

  it('no shipped migration has changed', async () => {
    const checksums: Record<string, string> = {};
    for (const migration of MIGRATIONS) {
      if (migration.name in SHIPPED_MIGRATIONS) checksums[migration.name] = await checksumOf(migration);
    }
    expect(checksums).toEqual(SHIPPED_MIGRATIONS);
  });

  it('every migration is in the index once, in order, none removed', () => {
    const files = readdirSync(new URL('../../src/infra/database/migrations/', import.meta.url))
      .filter((file) => /^\d{4}-.*\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort();
    const names = MIGRATIONS.map((migration) => migration.name);
    expect(names).toEqual(files);
    expect(names).toEqual([...names].sort());
    for (const shipped of Object.keys(SHIPPED_MIGRATIONS)) expect(names).toContain(shipped);
  });
});
