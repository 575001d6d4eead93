import { beforeAll, describe, expect, it } from 'vitest';
import { RUN_LISTS_KEPT_DAYS, RunRetentionScheduler } from '../../src/data-hub/runs/run-retention.js';
import { JOB_SCHEMA } from '../../src/infra/jobs/job-queue.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApps } from '../support/harness.js';
import { ok } from '../support/responses.js';
import { activeDrop, HUB, stockMapping } from './hub-fixtures.js';

/** Each run's list rows: three of each list, as an import's rejected, created and deactivated rows. */
const ROWS_PER_RUN = 9;

/**
 * Issue 28 (contract section 11): a run's row lists are kept RUN_LISTS_KEPT_DAYS; a daily job
 * removes older ones and marks their runs `lists_purged_at`, keeping the runs. Two instances of the
 * service on one database (a database of its own: the purge is the whole database's): the job is
 * scheduled once, and two purges at once remove each list once.
 */
describe('data hub: run lists kept 90 days', () => {
  const [a, b] = useTestApps(2, {}, { schedulers: true, ownDatabase: true });
  let store: TestStore;
  let flowId: string;

  /** Runs of the flow created `days` ago (one per entry), each with its lists; their ids in order. */
  const runsAged = async (days: number[]): Promise<string[]> => {
    const runs = await a.db.rows<{ id: string }>(
      `insert into data_hub_runs (store_id, flow_id, trigger, status, mapping_version, created_at)
       select $1, $2, 'manual', 'succeeded', 1, now() - make_interval(days => d) from unnest($3::int[]) with ordinality as t(d, n)
       order by n returning id`,
      [store.storeId, flowId, days],
    );
    const ids = runs.map((run) => run.id);
    await a.db.query(
      `insert into data_hub_run_rows (run_id, list, position, line, key)
       select id, list, n, n + 1, 'SKU-' || n from unnest($1::uuid[]) id, unnest(array['rejected', 'created', 'deactivated']) list,
         generate_series(1, 3) n`,
      [ids],
    );
    return ids;
  };
  const listsOf = async (ids: string[]) =>
    a.db.rows<{ id: string; purged: boolean; rows: number }>(
      `select r.id, r.lists_purged_at is not null as purged, (select count(*)::int from data_hub_run_rows l where l.run_id = r.id) as rows
       from data_hub_runs r where r.id = any($1) order by r.created_at desc, r.id`,
      [ids],
    );

  beforeAll(async () => {
    store = await a.store();
    const owner = await staffToken(a.app, await addStaff(a.app, store.storeId, 'owner'));
    const { id: drop } = await activeDrop(a.app, owner, 'retention');
    flowId = ok(
      await adminCall(a.app, 'POST', `${HUB}/flows`, owner, {
        name: 'Stock',
        connectionId: drop,
        mappingId: await stockMapping(a.app, owner),
        direction: 'import',
        format: 'csv',
        fileTemplate: 'stock-*.csv',
      }),
      201,
    ).id;
  }, 120_000);

  it('is scheduled once, daily at 03:30 UTC, however many instances start', async () => {
    expect(await a.db.rows(`select name, cron, timezone from ${JOB_SCHEMA}.schedule where name like 'data-hub.run-lists%'`)).toEqual([
      { name: 'data-hub.run-lists-retention', cron: '30 3 * * *', timezone: 'UTC' },
    ]);
  });

  it('removes the lists of runs older than 90 days and marks them; newer runs keep theirs; every run is kept', async () => {
    expect(RUN_LISTS_KEPT_DAYS).toBe(90);
    const kept = await runsAged([0, 30, 89]);
    const old = await runsAged([91, 400]);
    expect(await a.app.get(RunRetentionScheduler).purge()).toEqual({ runs: 2, rows: 2 * ROWS_PER_RUN });
    expect(await listsOf([...kept, ...old])).toEqual([
      ...kept.map((id) => ({ id, purged: false, rows: ROWS_PER_RUN })),
      ...old.map((id) => ({ id, purged: true, rows: 0 })),
    ]);
    // Nothing is left to purge: a second pass finds nothing, and the purged runs keep their first mark.
    const [{ marked }] = await a.db.rows<{ marked: string }>(`select max(lists_purged_at)::text as marked from data_hub_runs`);
    expect(await a.app.get(RunRetentionScheduler).purge()).toEqual({ runs: 0, rows: 0 });
    expect(await a.db.rows(`select max(lists_purged_at)::text as marked from data_hub_runs`)).toEqual([{ marked }]);
  });

  it('two purges at once, on two instances, remove every list once between them; both succeed', async () => {
    // More runs than three batches hold, so the two take turns.
    const old = await runsAged(Array.from({ length: 170 }, (_, index) => 91 + index));
    const kept = await runsAged([10]);
    const [first, second] = await Promise.all([a.app.get(RunRetentionScheduler).purge(), b.app.get(RunRetentionScheduler).purge()]);
    expect(first.runs + second.runs).toBe(old.length);
    expect(first.rows + second.rows).toBe(old.length * ROWS_PER_RUN);
    const lists = await listsOf([...kept, ...old]);
    expect(lists.filter((run) => run.purged)).toHaveLength(old.length);
    expect(lists.filter((run) => run.rows > 0)).toEqual(kept.map((id) => ({ id, purged: false, rows: ROWS_PER_RUN })));
  });
});
