import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltService } from '../support/built-service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ok } from '../support/responses.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { eventually } from '../support/waiting.js';
import { activeDrop, HUB, importRuns } from './hub-fixtures.js';

const PRODUCTS = 100_000;
const VARIANTS_PER_PRODUCT = 10;
const ROWS = PRODUCTS * VARIANTS_PER_PRODUCT;
const NEW_ROWS = ROWS / 100;
/** SKUs whose price the upsert changes (every 20th) and whose stock it changes (every 20th, offset by 10): 5 % each. */
const priceChanged = (n: number) => n % 20 === 0;
const stockChanged = (n: number) => n % 20 === 10;
const sku = (n: number) => `U-${String(n).padStart(7, '0')}`;
const slug = (n: number) => `up-${String(Math.ceil(n / VARIANTS_PER_PRODUCT)).padStart(6, '0')}`;
const price = (n: number) => 1000 + (n % 997) * 10;
const STOCK = 20;

/**
 * Contract section 11 at the scale of a supplier's feed: a million-row upsert (5 % new prices, 5 % new
 * stock, 1 % new SKUs) is undone while shoppers buy some of the SKUs whose stock it set, by a real
 * service process killed (SIGKILL) in the middle of the undo and another instance that takes the undo up.
 * The catalogue after the undo equals the catalogue before the run, field by field, but for the units
 * sold: a SKU sold before the undo took its lock keeps its stock (a conflict, listed), one sold after
 * lost its unit from the restored stock; the SKUs the run created are deactivated; and the undo is done once.
 */
describe('the undo of a million-row upsert, raced by checkout and interrupted by a crash', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'undo-at-scale-'));
  const t = useTestApp({ DATA_DIR: dataDir }, { schedulers: false, ownDatabase: true });
  let child: ChildProcess | undefined;
  let rescuer: TestApp | undefined;
  let store: TestStore;
  let owner: string;

  beforeAll(async () => {
    store = await t.store({});
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    await t.db.query(
      `insert into products (store_id, slug, name_en, name_ar, status)
       select $1, 'up-' || lpad(g::text, 6, '0'), 'Product ' || g, 'منتج ' || g, 'active' from generate_series(1, $2::int) g`,
      [store.storeId, PRODUCTS],
    );
    await t.db.query(
      `insert into product_variants (store_id, product_id, sku, options, price, currency, stock, position)
       select $1, p.id, 'U-' || lpad(g::text, 7, '0'), '[]'::jsonb, 1000 + (g % 997) * 10, 'SAR', ${STOCK}, (g - 1) % ${VARIANTS_PER_PRODUCT}
       from generate_series(1, $2::int) g join products p on p.store_id = $1 and p.slug = 'up-' || lpad(ceil(g / ${VARIANTS_PER_PRODUCT}.0)::int::text, 6, '0')`,
      [store.storeId, ROWS],
    );
    await t.db.query('analyze');
  }, 300_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await rescuer?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The store's variants (those that were there before the run, without the SKUs sold) as one digest, and how many. */
  const digest = async (sold: string[]) =>
    (
      await t.db.rows<{ digest: string; count: number }>(
        `select md5(string_agg(concat_ws('|', sku, product_id, price, compare_at_price, stock, position, options), ',' order by sku)) as digest,
                count(*)::int as count
         from product_variants where store_id = $1 and sku like 'U-%' and sku <= $3 and sku <> all($2)`,
        [store.storeId, sold, sku(ROWS)],
      )
    )[0];
  const stockOf = async (skus: string[]) =>
    new Map(
      (
        await t.db.rows<{ sku: string; stock: number }>(`select sku, stock from product_variants where store_id = $1 and sku = any($2)`, [
          store.storeId,
          skus,
        ])
      ).map((row) => [row.sku, row.stock]),
    );
  /** Until an undo is at work inside its transaction. */
  const undoWorking = () =>
    eventually(
      () =>
        t.db.rows(
          `select 1 from pg_stat_activity
           where datname = current_database() and pid <> pg_backend_pid() and state = 'active' and query like '%record_undo_staging%'`,
        ),
      (rows) => rows.length > 0,
      240_000,
    );
  /** One unit of the SKU bought by a shopper of its own, through the storefront. */
  const sell = async (code: string) => {
    const [{ id }] = await t.db.rows<{ id: string }>(`select id from product_variants where store_id = $1 and sku = $2`, [
      store.storeId,
      code,
    ]);
    const shopper = await t.shopper(store);
    ok(await shopper.add(id, 1));
    ok(await shopper.deliver());
    ok(await shopper.place({ paymentMethod: 'cash_on_delivery', email: `buyer-${randomUUID()}@example.com` }), 201);
  };

  it('restores the catalogue exactly but for what was sold meanwhile, which it lists as conflicts, and completes once', async () => {
    const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);
    const drop = await activeDrop(t.app, owner, '');
    const runs = importRuns(t.app, owner, drop.id);
    const lines = ['sku,product,price,stock'];
    for (let n = 1; n <= ROWS; n++) {
      const newPrice = priceChanged(n) ? price(n) + 5 : price(n);
      lines.push(`${sku(n)},${slug(n)},${(newPrice / 100).toFixed(2)},${stockChanged(n) ? STOCK + 5 : STOCK}`);
    }
    for (let n = ROWS + 1; n <= ROWS + NEW_ROWS; n++) lines.push(`${sku(n)},${slug(n - ROWS)},9.99,3`);
    await drop.upload('feed.csv', lines.join('\n') + '\n');
    const flowId = await runs.importFlow('variants', ['sku', 'product', 'price', 'stock'], 'feed.csv', {
      shrinkGuard: { maxDeactivatePercent: 10, maxDeactivateCount: 100_000 },
    });
    // Sold before the undo (certain conflicts), while the killed attempt runs, and while the one that completes runs.
    const soldBefore = [10, 30, 50].map(sku);
    const soldDuring = [70, 90, 110, 130].map(sku);
    const soldRacing = [150, 170, 190, 210, 230, 250].map(sku);
    const sold = [...soldBefore, ...soldDuring, ...soldRacing];
    const before = await digest(sold);
    expect(before.count).toBe(ROWS - sold.length);

    const run = await runs.runNow(flowId);
    expect(run).toMatchObject({
      status: 'succeeded',
      counts: { read: ROWS + NEW_ROWS, created: NEW_ROWS, changed: ROWS / 10, unchanged: ROWS - ROWS / 10, rejected: 0 },
    });
    const afterRun = await stockOf(sold);
    expect([...afterRun.values()]).toEqual(sold.map(() => STOCK + 5));
    for (const code of soldBefore) await sell(code);

    child = (await startBuiltService(t.databaseUrl, dataDir)).child;
    const queued = ok(await call('POST', `${HUB}/runs/${run.id}/undo`, {}), 202);
    const sales = Promise.all(soldDuring.map(sell));
    // Killed once the undo works inside its transaction.
    await undoWorking();
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    await sales;
    expect(ok(await call('GET', `${HUB}/runs/${queued.id}`)).status).toBe('running');
    // Nothing of the killed attempt stayed: the prices are still the run's.
    const [{ changed }] = await t.db.rows<{ changed: number }>(
      `select count(*)::int as changed from product_variants where store_id = $1 and sku = any($2) and price = $3`,
      [store.storeId, [sku(20)], price(20) + 5],
    );
    expect(changed).toBe(1);

    rescuer = await startTestApp({ DATABASE_URL: t.databaseUrl, DATA_DIR: dataDir, JOB_RETRY_DELAY_SECONDS: '1' }, undefined, true);
    await undoWorking();
    const racing = Promise.all(soldRacing.map(sell));
    const undo = await eventually(
      async () => ok(await call('GET', `${HUB}/runs/${queued.id}`)),
      (found) => found.status !== 'running' && found.status !== 'queued',
      240_000,
    );
    await racing;
    const seconds = (document: Record<string, string>) =>
      ((Date.parse(document.finishedAt) - Date.parse(document.startedAt)) / 1000).toFixed(1);
    console.log(`${ROWS + NEW_ROWS} rows: the run took ${seconds(run)} s, its undo (two attempts, the first killed) ${seconds(undo)} s`);
    const conflicts = await runs.list(undo.id, 'conflicts');
    const conflicted = new Set(conflicts.map((conflict) => conflict.key));
    for (const code of soldBefore) expect(conflicted.has(code)).toBe(true);
    expect(conflicts.every((conflict) => conflict.field === 'stock' && conflict.runAfter === STOCK + 5 && conflict.now === STOCK + 4)).toBe(
      true,
    );
    expect(undo).toMatchObject({
      status: 'succeeded',
      undoOf: run.id,
      counts: {
        read: ROWS / 10 + NEW_ROWS,
        // The run changed a sold SKU's stock only: with that field a conflict, the SKU is left whole.
        changed: ROWS / 10 - conflicted.size,
        deactivated: NEW_ROWS,
        unchanged: conflicted.size,
        conflicts: conflicted.size,
      },
    });
    // Each sold unit is kept: taken from the run's stock (a conflict, left as it is) or from the restored one.
    const now = await stockOf(sold);
    for (const code of sold) expect(now.get(code)).toBe(conflicted.has(code) ? STOCK + 4 : STOCK - 1);
    expect(await digest(sold)).toEqual(before);
    const [created] = await t.db.rows<{ active: number }>(
      `select count(*) filter (where stock > 0)::int as active from product_variants where store_id = $1 and sku > $2`,
      [store.storeId, sku(ROWS)],
    );
    expect(created.active).toBe(0);
    // Once: one undo of the run, its changes listed once.
    const [{ undos, listed }] = await t.db.rows<{ undos: number; listed: number }>(
      `select (select count(*) from data_hub_runs where undo_of = $1)::int as undos,
              (select count(*) from data_hub_run_rows where run_id = $2 and list = 'changed')::int as listed`,
      [run.id, undo.id],
    );
    expect({ undos, listed }).toEqual({ undos: 1, listed: undo.counts.changed });
  }, 900_000);
});
