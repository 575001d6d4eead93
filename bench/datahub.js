// `npm run bench:datahub`: data hub imports at a million rows, on the built service and real PostgreSQL.
// Seeds two stores' catalogues with SQL (100,000 products each; the first also 1,000,000 variants),
// writes two variants CSV files to disk (an upsert over the first store: 5 % of the rows with a changed
// price, 1 % new SKUs; a fresh load of 1,000,000 new SKUs into the second), uploads them to a platform_drop
// connection of each store, then measures for each file, next to PostgreSQL's own `COPY … FROM STDIN` of
// the same file into a plain table (the baseline, streamed from disk by a Node client): the first-rows
// preview, the full preview (its counts must equal the run's) and the run. Rows/s from the run's own
// startedAt/finishedAt and from wall time, the service's RSS sampled every 100 ms (and its VmHWM), what
// PostgreSQL is busy with meanwhile (pg_stat_activity sampled), and the store checked in SQL afterwards.
// After the upsert run, its undo (POST /runs/{id}/undo), timed as the run is, and the store's catalogue
// checked against a digest taken before the run. Last, the fairer ceiling: each file's rows, transformed
// beforehand to product_variants' own columns, COPY'd into the live table (its indexes, constraints and
// triggers on) of a third store with the same products, in one transaction, commit included.
// See bench/README.md.
//
// Options:
//   --rows N             rows of each file (DATAHUB_BENCH_ROWS, default 1000000; a multiple of 100): N / 10
//                        products per store, 10 variants each
//   --files a,b          upsert,fresh (default both)
//   --keep-database      leave the database in place and print its URL
//   --update-reference   also replace bench/results/datahub-reference.json with this run's results
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import {
  assertBuilt,
  backgroundCpuPercent,
  busyPercent,
  cleanupStack,
  cli,
  cpuSecondsOf,
  gitCommit,
  log,
  machineInfo,
  machineTicks,
  memoryOf,
  openDatabase,
  resetPeak,
  round,
  signIn,
  startService,
  UPDATE_REFERENCE_OPTION,
  withClient,
  writeResults,
} from './lib.js';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: process.env.DATAHUB_BENCH_ROWS ?? '1000000' },
    files: { type: 'string', default: 'upsert,fresh' },
    'keep-database': { type: 'boolean', default: false },
    ...UPDATE_REFERENCE_OPTION,
  },
});
const ROWS = Number(args.rows);
if (!Number.isInteger(ROWS) || ROWS < 1000 || ROWS % 100 !== 0 || ROWS > 9_999_900) {
  throw new Error(`--rows: a multiple of 100 from 1000 to 9999900, not ${args.rows}`);
}
const VARIANTS_PER_PRODUCT = 10;
const KINDS = args.files.split(',').map((kind) => kind.trim());
for (const kind of KINDS) if (!['upsert', 'fresh'].includes(kind)) throw new Error(`--files: unknown file ${kind} (upsert, fresh)`);
/** What the undo of the upsert run is sent: it deactivates what the run created, more than the default maxDeactivateCount (500) at 1M rows. */
const UNDO_BODY = { overrideShrinkGuard: { maxDeactivatePercent: 100, reason: 'bench' } };
/** The live table's columns, as the transformed file holds them (what the import sets when it creates a variant). */
const LIVE_COPY_COLUMNS = ['store_id', 'product_id', 'sku', 'options', 'price', 'compare_at_price', 'currency', 'stock', 'position'];
const LIVE_COPY_SQL = `copy product_variants (${LIVE_COPY_COLUMNS.join(', ')}) from stdin with (format csv, header)`;
const settings = {
  rows: ROWS,
  files: KINDS,
  productsPerStore: ROWS / VARIANTS_PER_PRODUCT,
  variantsPerProduct: VARIANTS_PER_PRODUCT,
  changedPriceShare: 0.05,
  newSkuShare: 0.01,
  firstRows: 100,
  pollMs: 200,
  rssSampleMs: 100,
  activitySampleMs: 250,
  healthPollMs: 20,
  undo: { of: 'upsert', body: UNDO_BODY },
  liveCopy: { table: 'product_variants', sql: LIVE_COPY_SQL, position: 0, compareAtPrice: null },
};
const AIMS = { runOfLiveCopy: 0.25, undoOfRun: 1, peakRssMB: 300, firstRowsPreviewSeconds: 2, previewOfRun: 1 / 3, healthLiveMaxMs: 100 };
const HUB = '/admin/data-hub';
const COPY_TABLE = 'bench_copy';
const COPY_SQL = `copy ${COPY_TABLE} (sku, product, price, stock) from stdin with (format csv, header)`;
const MB = 1024 * 1024;

const { cleanups, run } = cleanupStack();

const failures = [];
function fail(message) {
  log(`FAILED: ${message}`);
  failures.push(message);
}

// --- the data ---------------------------------------------------------------------------------------
// Row i (1…N) of either file belongs to product p-⌈i/10⌉ and has, in the store and in the file, the same
// price and stock unless the upsert file changes it: every row i ≡ 1 (mod 20) gets a price 1.00 higher (5 %),
// and every row i ≡ 0 (mod 100) names a new SKU N-i instead of V-i (1 %; V-i stays in the store, untouched).
// The same formulas, in SQL, seed the store and check it afterwards.

const pad = (i, width) => String(i).padStart(width, '0');
const slugOf = (i) => `p-${pad(Math.ceil(i / VARIANTS_PER_PRODUCT), 6)}`;
const basePrice = (i) => 100 + ((i * 7919) % 99900); // minor units: 1.00 … 999.99
const stockOf = (i) => (i * 13) % 200;
const isNew = (i) => i % 100 === 0;
const isChanged = (i) => !isNew(i) && i % 20 === 1;
const decimal = (minor) => `${Math.floor(minor / 100)}.${pad(minor % 100, 2)}`;
const SQL_BASE_PRICE = (i) => `(100 + (${i}::bigint * 7919) % 99900)`;
const SQL_STOCK = (i) => `((${i}::bigint * 13) % 200)`;
const SQL_SLUG = (i) => `'p-' || lpad(((${i} + ${VARIANTS_PER_PRODUCT - 1}) / ${VARIANTS_PER_PRODUCT})::text, 6, '0')`;

const FILES = {
  upsert: {
    name: 'variants-upsert.csv',
    row(i) {
      if (isNew(i)) return `N-${pad(i, 7)},${slugOf(i)},${decimal(basePrice(i))},${stockOf(i)}\n`;
      return `V-${pad(i, 7)},${slugOf(i)},${decimal(basePrice(i) + (isChanged(i) ? 100 : 0))},${stockOf(i)}\n`;
    },
    expected: (n) => {
      const created = n / 100;
      const changed = n / 20;
      return { read: n, created, changed, unchanged: n - created - changed, rejected: 0, deactivated: 0 };
    },
    // Its undo: the changed prices back (changed), the created variants out of stock (deactivated; one created with
    // stock 0 already is not active, so it is left as it is: unchanged). `read` counts the records of the run's lists.
    undoExpected: (n) => {
      const created = n / 100;
      const changed = n / 20;
      let deactivated = 0;
      for (let i = 1; i <= n; i++) if (isNew(i) && stockOf(i) > 0) deactivated += 1;
      return { read: changed + created, changed, deactivated, unchanged: created - deactivated, conflicts: 0, created: 0, rejected: 0 };
    },
  },
  fresh: {
    name: 'variants-fresh.csv',
    row: (i) => `F-${pad(i, 7)},${slugOf(i)},${decimal(basePrice(i))},${stockOf(i)}\n`,
    expected: (n) => ({ read: n, created: n, changed: 0, unchanged: 0, rejected: 0, deactivated: 0 }),
  },
};
const COMPARED_COUNTS = ['read', 'created', 'changed', 'unchanged', 'rejected', 'deactivated'];
const COMPARED_UNDO_COUNTS = ['read', 'changed', 'deactivated', 'unchanged', 'conflicts', 'created', 'rejected'];

async function main() {
  assertBuilt();
  const startedAt = new Date();
  const results = {
    startedAt: startedAt.toISOString(),
    finishedAt: null,
    settings,
    commit: await gitCommit(),
    machine: null,
    database: null,
    seed: null,
    files: null,
    serviceIdleRssMB: null,
    warmupCopy: null,
    upsert: null,
    fresh: null,
    ratios: null,
    aims: [],
    ok: false,
    failures,
  };
  let service;
  try {
    const database = await openDatabase({
      prefix: 'storefront_datahub',
      keyPurpose: 'storefront-datahub-bench',
      keep: args['keep-database'],
      cleanups,
    });
    results.machine = { ...(await machineInfo(database.serverVersion)), backgroundCpuPercentBefore: await backgroundCpuPercent() };

    // Two stores: one holding the variants the upsert file updates, one with the products only (and a third below).
    const upsertStore = (await cli(database.url, ['store', 'create', '--name', 'Data Hub Bench Upsert'])).store.id;
    const freshStore = (await cli(database.url, ['store', 'create', '--name', 'Data Hub Bench Fresh'])).store.id;
    // A third: the same products, no variants; the live COPY's target (emptied after each file's).
    const liveCopyStore = (await cli(database.url, ['store', 'create', '--name', 'Data Hub Bench Live COPY'])).store.id;
    results.seed = await seed(database.url, upsertStore, freshStore, liveCopyStore);
    results.database = {
      name: database.name,
      kept: database.kept,
      stores: { upsert: upsertStore, fresh: freshStore, liveCopy: liveCopyStore },
      ...(await withClient(database.url, async (client) => {
        const count = async (table, store) =>
          Number((await client.query(`select count(*) as n from ${table} where store_id = $1`, [store])).rows[0].n);
        return {
          rows: {
            upsert: { products: await count('products', upsertStore), product_variants: await count('product_variants', upsertStore) },
            fresh: { products: await count('products', freshStore), product_variants: await count('product_variants', freshStore) },
            liveCopy: {
              products: await count('products', liveCopyStore),
              product_variants: await count('product_variants', liveCopyStore),
            },
          },
          size: (await client.query('select pg_size_pretty(pg_database_size(current_database())) as size')).rows[0].size,
        };
      })),
    };
    log(`data: ${JSON.stringify(results.database.rows)}, ${results.database.size}`);

    // The files, on disk.
    const scratch = await mkdtemp(join(tmpdir(), 'datahub-bench-files-'));
    cleanups.push(() => rm(scratch, { recursive: true, force: true }));
    results.files = {};
    for (const kind of KINDS) {
      const file = FILES[kind];
      const path = join(scratch, file.name);
      const started = performance.now();
      await writeCsv(path, file.row);
      const bytes = (await stat(path)).size;
      results.files[kind] = { name: file.name, rows: ROWS, bytes, expected: file.expected(ROWS), path };
      log(`${file.name}: ${ROWS} rows, ${round(bytes / MB, 1)} MB, written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }

    // The service, with its files (DATA_DIR/files: the drop) in a directory of its own, removed at the end.
    const dataDir = await mkdtemp(join(tmpdir(), 'datahub-bench-data-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    service = await startService(database.url, { env: { DATA_DIR: dataDir } });
    cleanups.push(() => service.stop());
    log(`service on ${service.base} (pid ${service.child.pid}, files under ${dataDir})`);
    const pid = service.child.pid;
    const admins = {
      upsert: await signIn(service.base, database.url, upsertStore, { emailDomain: 'datahub-bench.example' }),
      fresh: await signIn(service.base, database.url, freshStore, { emailDomain: 'datahub-bench.example' }),
    };
    results.serviceIdleRssMB = round(memoryOf(pid)?.rss, 1);

    // Each store: a platform_drop connection (tested, activated) holding its file, a mapping, a flow.
    const flows = {};
    for (const kind of KINDS) {
      flows[kind] = {
        ...(await setUpFlow(admins[kind], kind, results.files[kind])),
        storeId: kind === 'upsert' ? upsertStore : freshStore,
      };
    }

    // The baseline's table, and a warm-up COPY (discarded: the file into the page cache, the table's first extension).
    await withClient(database.url, (client) =>
      client.query(`create table ${COPY_TABLE} (sku text, product text, price numeric, stock int)`),
    );
    log(`warm-up: COPY of the ${KINDS[0]} file (discarded)`);
    results.warmupCopy = await runCopy(database.url, results.files[KINDS[0]].path);
    log(`warm-up COPY: ${results.warmupCopy.rows} rows in ${results.warmupCopy.seconds} s`);

    for (const kind of KINDS) {
      // Before the upsert run: the store's catalogue as its undo must give it back.
      let before = null;
      const beforeRun = kind === 'upsert' ? async () => (before = await catalogueDigest(database.url, upsertStore)) : undefined;
      results[kind] = await measureFile(database.url, pid, admins[kind], flows[kind], kind, results.files[kind], { beforeRun });
      if (kind === 'upsert') results[kind].verification = await verifyUpsert(database.url, upsertStore);
      else results[kind].verification = await verifyFresh(database.url, freshStore);
      const v = results[kind].verification;
      log(`${kind}: the store checked in SQL: ${v.ok ? 'as the file says' : `NOT as the file says: ${JSON.stringify(v)}`}`);
      if (!v.ok) fail(`${kind}: the store's variants are not what the file says: ${JSON.stringify(v)}`);
      if (kind === 'upsert') {
        results[kind].undo = await measureUndo(database.url, pid, admins[kind], results[kind].run, kind);
        if (results[kind].undo.runStatus !== 'succeeded') continue;
        results[kind].undoVerification = await verifyUndo(database.url, upsertStore, results[kind].run.id, before);
        const u = results[kind].undoVerification;
        log(`${kind} undo: the catalogue checked in SQL: ${u.ok ? 'as before the run' : `NOT as before the run: ${JSON.stringify(u)}`}`);
        if (!u.ok) fail(`${kind}: after the undo the store's catalogue is not what it was before the run: ${JSON.stringify(u)}`);
      }
    }

    // The fairer ceiling, after every measurement above (its million rows and their removal do not weigh on them):
    // each file's rows COPY'd into the live product_variants of the third store.
    for (const kind of KINDS) {
      results[kind].liveCopy = await measureLiveCopy(database.url, liveCopyStore, kind, results.files[kind], scratch, {
        empty: kind !== KINDS.at(-1),
      });
    }
    for (const file of Object.values(results.files)) delete file.path;
  } catch (error) {
    fail(error?.stack ?? String(error));
    if (service) log(`service output (last lines):\n${service.output().split('\n').slice(-30).join('\n')}`);
  } finally {
    results.finishedAt = new Date().toISOString();
    results.ratios = ratios(results);
    results.aims = aims(results);
    results.ok = failures.length === 0;
    printTable(results);
    await writeResults('datahub', results, { startedAt, updateReference: args['update-reference'] });
    if (!results.ok) {
      process.stderr.write(`\nBENCH FAILED:\n  ${failures.join('\n  ')}\n`);
      process.exitCode = 1;
    }
  }
}

// --- set-up ---------------------------------------------------------------------------------------

/** The stores' catalogues with generate_series: N/10 products in each, N variants in the upsert store; then ANALYZE. */
async function seed(url, upsertStore, freshStore, liveCopyStore) {
  const started = performance.now();
  const steps = {};
  await withClient(url, async (client) => {
    const timed = async (name, text, values) => {
      const at = performance.now();
      const { rowCount } = await client.query(text, values);
      steps[name] = { rows: rowCount, seconds: round((performance.now() - at) / 1000, 1) };
      log(`seed: ${name}: ${rowCount} rows in ${steps[name].seconds} s`);
    };
    const products = `
      insert into products (store_id, slug, name_en, name_ar, status)
      select $1, 'p-' || lpad(g::text, 6, '0'), 'Product ' || lpad(g::text, 6, '0'), 'منتج ' || lpad(g::text, 6, '0'), 'active'
      from generate_series(1, $2::int) g`;
    await timed('products (upsert store)', products, [upsertStore, settings.productsPerStore]);
    await timed('products (fresh store)', products, [freshStore, settings.productsPerStore]);
    await timed('products (live COPY store)', products, [liveCopyStore, settings.productsPerStore]);
    // Also with --files fresh: the fresh load goes into a table that holds them, as in the whole run.
    await timed(
      'variants (upsert store)',
      `insert into product_variants (store_id, product_id, sku, options, price, currency, stock, position)
       select $1, p.id, 'V-' || lpad(g::text, 7, '0'), '[]'::jsonb, ${SQL_BASE_PRICE('g')}, 'SAR', ${SQL_STOCK('g')}, (g - 1) % ${VARIANTS_PER_PRODUCT}
       from generate_series(1, $2::int) g join products p on p.store_id = $1 and p.slug = ${SQL_SLUG('g')}`,
      [upsertStore, ROWS],
    );
    // Planner statistics as a long-running database has them (autovacuum would otherwise analyze the fresh
    // tables at some random point during the measurements).
    const at = performance.now();
    await client.query('analyze');
    steps.analyze = { seconds: round((performance.now() - at) / 1000, 1) };
  });
  const seconds = round((performance.now() - started) / 1000, 1);
  log(`seeded in ${seconds} s`);
  return { seconds, steps, note: 'SQL with generate_series, through the tables’ triggers (search rows kept as any write keeps them)' };
}

/** A file of N rows, `sku,product,price,stock`, written in chunks with back-pressure. */
async function writeCsv(path, row) {
  const out = createWriteStream(path);
  const chunks = async function* () {
    yield 'sku,product,price,stock\n';
    for (let from = 1; from <= ROWS; from += 10_000) {
      let chunk = '';
      for (let i = from; i < Math.min(from + 10_000, ROWS + 1); i++) chunk += row(i);
      yield chunk;
    }
  };
  await pipeline(chunks, out);
}

/**
 * A platform_drop connection of the admin's store, tested and activated; the file uploaded to it (streamed
 * from disk); a variants import mapping; an upsert flow on that file.
 */
async function setUpFlow(admin, kind, file) {
  const created = async (path, body) => {
    const answer = await request(admin, 'POST', path, { body });
    if (answer.status !== 201) throw new Error(`POST ${path} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 500)}`);
    return answer.body;
  };
  const ok200 = async (method, path) => {
    const answer = await request(admin, method, path);
    if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 500)}`);
    return answer.body;
  };
  const connection = await created(`${HUB}/connections`, {
    name: `Bench drop (${kind})`,
    kind: 'platform_drop',
    config: { prefix: `bench-${kind}` },
  });
  const tested = await ok200('POST', `${HUB}/connections/${connection.id}/test`);
  if (tested.status !== 'tested') throw new Error(`the drop's test: ${JSON.stringify(tested.lastTest)}`);
  await ok200('POST', `${HUB}/connections/${connection.id}/activate`);

  const started = performance.now();
  const uploaded = await request(admin, 'PUT', `${HUB}/connections/${connection.id}/files/${file.name}`, {
    file: { path: file.path, bytes: file.bytes, contentType: 'text/csv' },
  });
  const uploadSeconds = (performance.now() - started) / 1000;
  if (uploaded.status !== 200) throw new Error(`the upload answered ${uploaded.status}: ${JSON.stringify(uploaded.body).slice(0, 500)}`);
  if (uploaded.body.bytes !== file.bytes) throw new Error(`the upload stored ${uploaded.body.bytes} bytes of ${file.bytes}`);
  file.upload = { seconds: round(uploadSeconds, 2), MBps: round(file.bytes / MB / uploadSeconds, 1), sha256: uploaded.body.sha256 };
  log(`${file.name} uploaded to the ${kind} store's drop in ${file.upload.seconds} s`);

  const mapping = await created(`${HUB}/mappings`, {
    name: `Bench variants (${kind})`,
    structure: 'variants',
    direction: 'import',
    fields: [
      { target: 'sku', source: 'sku' },
      { target: 'product', source: 'product' },
      { target: 'price', source: 'price', transforms: [{ name: 'to_decimal_minor' }] },
      { target: 'stock', source: 'stock', transforms: [{ name: 'to_integer' }] },
    ],
  });
  const flow = await created(`${HUB}/flows`, {
    name: `Bench variants (${kind})`,
    connectionId: connection.id,
    mappingId: mapping.id,
    direction: 'import',
    format: 'csv',
    fileTemplate: file.name,
    mode: 'upsert',
  });
  return { connectionId: connection.id, mappingId: mapping.id, flowId: flow.id };
}

// --- measuring -----------------------------------------------------------------------------------------

/**
 * One file: COPY, the first-rows preview, the full preview, the run; each after 1 s of sampling how busy the machine is.
 * `beforeRun` (if given) runs after the previews, before that sampling and the run.
 */
async function measureFile(url, pid, admin, flow, kind, file, { beforeRun } = {}) {
  const out = { copy: null, firstRowsPreview: null, preview: null, run: null, verification: null };
  const runs = `${HUB}/flows/${flow.flowId}/runs`;

  let busy = await backgroundCpuPercent();
  out.copy = { ...(await runCopy(url, file.path)), backgroundCpuPercentBefore: busy };
  log(
    `${kind} COPY: ${out.copy.rows} rows in ${out.copy.seconds} s: ${out.copy.rowsPerSecond} rows/s (backend CPU ${out.copy.postgresCpuSeconds} s)`,
  );
  if (out.copy.rows !== file.rows) fail(`${kind}: COPY took ${out.copy.rows} rows of ${file.rows}`);

  busy = await backgroundCpuPercent();
  const first = await measured(url, pid, admin, () =>
    request(admin, 'POST', runs, { body: { preview: true, firstRows: settings.firstRows } }),
  );
  const firstAnswer = first.value;
  out.firstRowsPreview = {
    status: firstAnswer.status,
    seconds: round(firstAnswer.ms / 1000, 3),
    ...first.stats,
    backgroundCpuPercentBefore: busy,
  };
  if (firstAnswer.status === 200) {
    Object.assign(out.firstRowsPreview, {
      available: true,
      runStatus: firstAnswer.body.status,
      counts: firstAnswer.body.counts,
      firstRows: firstAnswer.body.firstRows ?? null,
      createdListed: firstAnswer.body.rows?.created?.length ?? null,
    });
    log(
      `${kind} first-rows preview (${settings.firstRows}): ${out.firstRowsPreview.seconds} s, ${JSON.stringify(firstAnswer.body.counts)}; peak RSS ${out.firstRowsPreview.peakRssMB} MB`,
    );
    if (firstAnswer.body.status !== 'succeeded')
      fail(`${kind}: the first-rows preview ${firstAnswer.body.status}: ${JSON.stringify(firstAnswer.body.error)}`);
    else if (firstAnswer.body.counts?.read !== settings.firstRows)
      fail(`${kind}: the first-rows preview read ${firstAnswer.body.counts?.read} rows, not ${settings.firstRows}`);
  } else if (firstAnswer.status === 400 && JSON.stringify(firstAnswer.body).includes('firstRows')) {
    out.firstRowsPreview.available = false;
    out.firstRowsPreview.answer = firstAnswer.body;
    log(`${kind} first-rows preview: not available (400 on firstRows): ${JSON.stringify(firstAnswer.body).slice(0, 300)}`);
  } else {
    out.firstRowsPreview.answer = firstAnswer.body;
    fail(`${kind}: the first-rows preview answered ${firstAnswer.status}: ${JSON.stringify(firstAnswer.body).slice(0, 500)}`);
  }

  busy = await backgroundCpuPercent();
  const preview = await measured(url, pid, admin, () => request(admin, 'POST', runs, { body: { preview: true } }));
  const previewAnswer = preview.value;
  if (previewAnswer.status !== 200)
    throw new Error(`${kind}: the preview answered ${previewAnswer.status}: ${JSON.stringify(previewAnswer.body).slice(0, 500)}`);
  out.preview = {
    id: previewAnswer.body.id,
    runStatus: previewAnswer.body.status,
    seconds: round(previewAnswer.ms / 1000, 3),
    counts: previewAnswer.body.counts,
    serviceSeconds: round((Date.parse(previewAnswer.body.finishedAt) - Date.parse(previewAnswer.body.startedAt)) / 1000, 3),
    listed: Object.fromEntries(Object.entries(previewAnswer.body.rows ?? {}).map(([list, rows]) => [list, rows.length])),
    ...preview.stats,
    backgroundCpuPercentBefore: busy,
  };
  log(
    `${kind} preview: ${out.preview.seconds} s, ${JSON.stringify(out.preview.counts)}; peak RSS ${out.preview.peakRssMB} MB; /health/live ${JSON.stringify(out.preview.healthLive)}`,
  );
  if (previewAnswer.body.status !== 'succeeded')
    fail(`${kind}: the preview ${previewAnswer.body.status}: ${JSON.stringify(previewAnswer.body.error)}`);

  // A preview writes nothing: the store still holds what was seeded.
  const held = await withClient(url, async (client) =>
    Number((await client.query('select count(*) as n from product_variants where store_id = $1', [flow.storeId])).rows[0].n),
  );
  const seeded = kind === 'upsert' ? ROWS : 0;
  if (held !== seeded) fail(`${kind}: after the previews the store holds ${held} variants, not the ${seeded} seeded`);

  if (beforeRun) await beforeRun();
  out.run = await measureQueued(url, pid, admin, { path: runs, body: {}, label: `${kind} run` });
  const doc = out.run.doc;
  delete out.run.doc;
  if (doc.status !== 'succeeded') throw new Error(`${kind}: the run ${doc.status}: ${JSON.stringify(doc.error ?? doc.refusal)}`);

  const differ = (a, b) => COMPARED_COUNTS.filter((name) => (a?.[name] ?? 0) !== (b?.[name] ?? 0));
  const previewVsRun = differ(out.preview.counts, doc.counts);
  if (previewVsRun.length > 0)
    fail(
      `${kind}: the preview's counts ${JSON.stringify(out.preview.counts)} differ from the run's ${JSON.stringify(doc.counts)} (${previewVsRun.join(', ')})`,
    );
  const runVsFile = differ(doc.counts, file.expected);
  if (runVsFile.length > 0)
    fail(
      `${kind}: the run's counts ${JSON.stringify(doc.counts)} are not the file's ${JSON.stringify(file.expected)} (${runVsFile.join(', ')})`,
    );
  out.countsEqual = { previewAndRun: previewVsRun.length === 0, runAndFile: runVsFile.length === 0 };
  return out;
}

/**
 * The undo of the run (`POST /runs/{id}/undo` with UNDO_BODY: 202, then polled as the run is), measured as the run is;
 * its counts compared with what the file's formulas say the run did, and the run's `undoneBy` read back.
 */
async function measureUndo(url, pid, admin, runOf, kind) {
  const label = `${kind} undo`;
  const out = await measureQueued(url, pid, admin, { path: `${HUB}/runs/${runOf.id}/undo`, body: UNDO_BODY, label });
  const doc = out.doc;
  delete out.doc;
  out.trigger = doc.trigger;
  out.undoOf = doc.undoOf;
  out.override = doc.override ?? null;
  out.expected = FILES[kind].undoExpected(ROWS);
  if (doc.status !== 'succeeded') {
    out.refusal = doc.refusal ?? null;
    out.error = doc.error ?? null;
    fail(`${label}: ${doc.status}: ${JSON.stringify(doc.error ?? doc.refusal)}`);
    return out;
  }
  const differs = COMPARED_UNDO_COUNTS.filter((name) => (doc.counts?.[name] ?? 0) !== out.expected[name]);
  if (differs.length > 0)
    fail(`${label}: its counts ${JSON.stringify(doc.counts)} are not the run's ${JSON.stringify(out.expected)} (${differs.join(', ')})`);
  if (doc.trigger !== 'undo' || doc.undoOf !== runOf.id)
    fail(`${label}: trigger ${doc.trigger}, undoOf ${doc.undoOf} (expected undo of ${runOf.id})`);
  const undone = await admin.getJson(`${HUB}/runs/${runOf.id}`);
  if (undone.undoneBy !== doc.id) fail(`${label}: the run's undoneBy is ${undone.undoneBy}, not the undo ${doc.id}`);
  out.countsEqual = { undoAndRun: differs.length === 0 };
  out.runUndoneBy = undone.undoneBy;
  return out;
}

/**
 * A queued run (the flow's run, or an undo) measured: after 1 s of sampling how busy the machine is, `body` POSTed to
 * `path` (202), then the run polled until it is done, watched throughout (see `measured`). Its time from its own
 * startedAt → finishedAt, unless finishedAt falls well before the poll that first saw it done (then to that poll), and
 * from wall time (POST → that poll). Answers the results' entry, with the run's document as `doc`.
 */
async function measureQueued(url, pid, admin, { path, body, label }) {
  const busy = await backgroundCpuPercent();
  const started = performance.now();
  const queued = await measured(url, pid, admin, () => runToEnd(admin, path, body, label, started));
  const doc = queued.value.doc;
  const wallSeconds = (queued.value.observedAt - started) / 1000;
  const recordedSeconds = (Date.parse(doc.finishedAt) - Date.parse(doc.startedAt)) / 1000;
  const observedSeconds = (queued.value.observedAtEpoch - Date.parse(doc.startedAt)) / 1000;
  // finishedAt is meant to be when the run ended. Should it fall well before the poll that first saw the run done
  // (more than the poll interval and a second), it is not that moment, and the run's time is taken to that poll.
  const finishedAtBelievable = observedSeconds - recordedSeconds <= settings.pollMs / 1000 + 1;
  const serviceSeconds = finishedAtBelievable ? recordedSeconds : observedSeconds;
  const entry = {
    id: doc.id,
    runStatus: doc.status,
    counts: doc.counts,
    startedAt: doc.startedAt,
    finishedAt: doc.finishedAt,
    observedDoneAt: new Date(queued.value.observedAtEpoch).toISOString(),
    recordedSeconds: round(recordedSeconds, 3),
    observedSeconds: round(observedSeconds, 3),
    finishedAtBelievable,
    serviceSeconds: round(serviceSeconds, 3),
    serviceSecondsFrom: finishedAtBelievable
      ? 'startedAt → finishedAt'
      : 'startedAt → the poll that saw it done (finishedAt is not when it ended)',
    wallSeconds: round(wallSeconds, 3),
    queuedSeconds: round((Date.parse(doc.startedAt) - queued.value.postedAtEpoch) / 1000, 3),
    rowsPerSecond: { service: Math.round(doc.counts?.read / serviceSeconds), wall: Math.round(doc.counts?.read / wallSeconds) },
    ...queued.stats,
    backgroundCpuPercentBefore: busy,
  };
  log(
    `${label}: ${doc.status}, ${JSON.stringify(doc.counts)}; service ${entry.serviceSeconds} s (${entry.rowsPerSecond.service} rows/s), wall ${entry.wallSeconds} s (${entry.rowsPerSecond.wall} rows/s); peak RSS ${entry.peakRssMB} MB; /health/live ${JSON.stringify(entry.healthLive)}`,
  );
  if (!finishedAtBelievable)
    log(
      `${label}: its finishedAt (${doc.finishedAt}, ${round(recordedSeconds, 1)} s after startedAt) is ${round(observedSeconds - recordedSeconds, 1)} s before the poll that saw it done: timed to that poll instead`,
    );
  return { ...entry, doc };
}

/** POST a run (202), then GET it every 200 ms until it is neither queued nor running. */
async function runToEnd(admin, path, body, label, started) {
  const postedAtEpoch = Date.now();
  const created = await request(admin, 'POST', path, { body });
  if (created.status !== 202)
    throw new Error(`${label}: POST ${path} answered ${created.status}: ${JSON.stringify(created.body).slice(0, 500)}`);
  let doc = created.body;
  let loggedAt = performance.now();
  while (doc.status === 'queued' || doc.status === 'running') {
    await sleep(settings.pollMs);
    doc = await admin.getJson(`${HUB}/runs/${doc.id}`);
    if (performance.now() - loggedAt > 15_000) {
      loggedAt = performance.now();
      log(`  ${label}: ${doc.status}, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  }
  return { doc, observedAt: performance.now(), observedAtEpoch: Date.now(), postedAtEpoch };
}

/**
 * `work` with the service watched: its VmRSS every 100 ms and its VmHWM (reset before), its CPU seconds, the
 * CPU seconds of the database's PostgreSQL backends, the machine's busy share, and what the backends are
 * doing (pg_stat_activity every 250 ms: the statements seen active, by share of the samples).
 */
async function measured(url, pid, admin, work) {
  const rssBefore = memoryOf(pid);
  const peakReset = resetPeak(pid);
  const cpuBefore = cpuSecondsOf(pid);
  const ticks = machineTicks();
  const activity = await watchActivity(url);
  const health = watchHealth(admin.base);
  let peak = rssBefore?.rss ?? 0;
  let samples = 0;
  const sampler = setInterval(() => {
    const memory = memoryOf(pid);
    if (!memory) return;
    peak = Math.max(peak, memory.rss);
    samples += 1;
  }, settings.rssSampleMs);
  const started = performance.now();
  let value;
  try {
    value = await work();
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  const after = memoryOf(pid);
  const cpuAfter = cpuSecondsOf(pid);
  const busy = busyPercent(ticks, machineTicks());
  const postgres = await activity.stop();
  const healthLive = await health.stop();
  const hwm = peakReset && after ? after.hwm : 0;
  const serviceCpu = cpuBefore === null || cpuAfter === null ? null : round(cpuAfter - cpuBefore);
  return {
    value,
    stats: {
      rssBeforeMB: round(rssBefore?.rss, 1),
      peakRssMB: round(Math.max(peak, hwm), 1),
      peakRssGrowthMB: round(Math.max(peak, hwm) - (rssBefore?.rss ?? 0), 1),
      peakRssSampledMB: round(peak, 1),
      vmHwmMB: peakReset && after ? round(after.hwm, 1) : null,
      vmHwmReset: peakReset,
      rssAfterMB: round(after?.rss, 1),
      rssSamples: samples,
      serviceCpuSeconds: serviceCpu,
      serviceCpuOfWall: serviceCpu === null ? null : round(serviceCpu / seconds, 2),
      postgresCpuSeconds: postgres.cpuSeconds,
      machineBusyPercent: busy,
      postgresActivity: postgres.activity,
      healthLive,
    },
  };
}

/**
 * GET /health/live every settings.healthPollMs, one request at a time on a kept-alive connection, until
 * stop(): how long the service took to answer while the preview or run shared its thread.
 */
function watchHealth(base) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  let failures = 0;
  let polling = true;
  const ask = () =>
    new Promise((done) => {
      const started = performance.now();
      http
        .get(new URL('/health/live', base), { agent }, (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode === 200) times.push(performance.now() - started);
            else failures += 1;
            done();
          });
        })
        .on('error', () => {
          failures += 1;
          done();
        });
    });
  const loop = (async () => {
    while (polling) {
      await ask();
      await sleep(settings.healthPollMs);
    }
  })();
  return {
    async stop() {
      polling = false;
      await loop;
      agent.destroy();
      const sorted = times.sort((a, b) => a - b);
      const at = (percent) =>
        sorted.length === 0 ? null : round(sorted[Math.min(sorted.length - 1, Math.ceil((percent / 100) * sorted.length) - 1)], 1);
      return { answers: sorted.length, failures, p50Ms: at(50), p99Ms: at(99), maxMs: at(100) };
    },
  };
}

/** pg_stat_activity of the database sampled until stop(); also the CPU seconds its client backends spent meanwhile. */
async function watchActivity(url) {
  const client = new pg.Client({ connectionString: url });
  let failure = null;
  client.on('error', (error) => (failure ??= error.message)); // e.g. the database dropped by a clean-up on Ctrl-C
  await client.connect();
  const backends = async () => {
    const { rows } = await client.query(
      `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
    );
    return new Map(rows.map((row) => [row.pid, cpuSecondsOf(row.pid)]));
  };
  const before = await backends();
  const seen = new Map();
  let samples = 0;
  let withStatement = 0;
  let running = true;
  const loop = (async () => {
    while (running && !failure) {
      const { rows } = await client.query(
        `select left(regexp_replace(query, '\\s+', ' ', 'g'), 100) as query, wait_event_type, wait_event
         from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state = 'active'`,
      );
      samples += 1;
      if (rows.length > 0) withStatement += 1;
      for (const row of rows) {
        const key = row.query + (row.wait_event ? ` [waits: ${row.wait_event_type}/${row.wait_event}]` : '');
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      await sleep(settings.activitySampleMs);
    }
  })().catch((error) => (failure ??= error.message));
  return {
    async stop() {
      running = false;
      await loop;
      const after = failure ? new Map() : await backends().catch((error) => ((failure ??= error.message), new Map()));
      await client.end().catch(() => undefined);
      let cpu = 0;
      for (const [backend, seconds] of after) if (seconds !== null) cpu += seconds - (before.get(backend) ?? 0);
      const top = [...seen.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([query, count]) => ({ query, share: round(count / samples, 3) }));
      return {
        cpuSeconds: round(cpu),
        activity: {
          samples,
          withStatementShare: samples === 0 ? null : round(withStatement / samples, 3),
          ...(failure ? { failure } : {}),
          note: 'share of the samples in which a backend of the database was running the statement (several may run at once)',
          top,
        },
      };
    },
  };
}

/** COPY … FROM STDIN of the file (pg-copy-streams, streamed from disk) into the plain table, truncated first. */
async function runCopy(url, path) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`truncate ${COPY_TABLE}`);
    const backend = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
    const cpuBefore = cpuSecondsOf(backend);
    const ticks = machineTicks();
    const started = performance.now();
    const copy = client.query(copyFrom(COPY_SQL));
    await pipeline(createReadStream(path), copy);
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuSecondsOf(backend);
    return {
      rows: copy.rowCount,
      seconds: round(seconds, 3),
      rowsPerSecond: Math.round(copy.rowCount / seconds),
      postgresCpuSeconds: cpuBefore === null || cpuAfter === null ? null : round(cpuAfter - cpuBefore),
      machineBusyPercent: busyPercent(ticks, machineTicks()),
    };
  } finally {
    await client.end();
  }
}

/**
 * The file's rows as product_variants' own columns (LIVE_COPY_COLUMNS), for `storeId`: its product ids for the slugs,
 * prices in minor units, `[]` options, the store's currency, no compare-at price, position 0 (what the import gives a
 * variant it creates from this file). Written to `path`; answers the rows, bytes, seconds and the prices' sum.
 */
async function writeLiveCopyFile(url, storeId, source, path) {
  const started = performance.now();
  const { products, currency } = await withClient(url, async (client) => {
    const { rows } = await client.query('select slug, id from products where store_id = $1', [storeId]);
    const store = await client.query('select currency from stores where id = $1', [storeId]);
    return { products: new Map(rows.map((row) => [row.slug, row.id])), currency: store.rows[0].currency };
  });
  const minor = (text) => {
    const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text);
    if (!match) throw new Error(`live COPY file: not a price: ${text}`);
    return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
  };
  let rows = 0;
  let priceSum = 0;
  const transformed = async function* () {
    let chunk = `${LIVE_COPY_COLUMNS.join(',')}\n`;
    let header = true;
    for await (const line of createInterface({ input: createReadStream(source), crlfDelay: Infinity })) {
      if (header) {
        if (line !== 'sku,product,price,stock') throw new Error(`live COPY file: unexpected header ${line}`);
        header = false;
        continue;
      }
      if (line === '') continue;
      const [sku, slug, price, stock, ...rest] = line.split(',');
      const productId = products.get(slug);
      if (rest.length > 0 || stock === undefined || productId === undefined) throw new Error(`live COPY file: cannot map ${line}`);
      const cents = minor(price);
      rows += 1;
      priceSum += cents;
      chunk += `${storeId},${productId},${sku},[],${cents},,${currency},${stock},0\n`;
      if (chunk.length >= 1 << 16) {
        yield chunk;
        chunk = '';
      }
    }
    yield chunk;
  };
  await pipeline(Readable.from(transformed()), createWriteStream(path));
  return { rows, bytes: (await stat(path)).size, seconds: round((performance.now() - started) / 1000, 2), priceSum };
}

/**
 * The fairer ceiling for a file: its rows, transformed beforehand (not timed) to the live table's columns with the
 * third store's product ids, COPY'd into product_variants (its primary key, unique (store_id, sku) and product_id
 * indexes, its check and foreign-key constraints checked row by row, its statement triggers with their transition
 * tables: the catalogue cache's notification and search's queue, whose flush is deferred to the commit) in one
 * transaction, commit included, streamed from disk by a Node client. After 1 s of sampling how busy the machine is.
 * Checked (the store then holds the file's rows and prices), then (`empty`) the store emptied again, not timed.
 */
async function measureLiveCopy(url, storeId, kind, file, dir, { empty }) {
  const path = join(dir, `live-${file.name}`);
  const transform = await writeLiveCopyFile(url, storeId, file.path, path);
  log(`${kind} live COPY file: ${transform.rows} rows, ${round(transform.bytes / MB, 1)} MB, written in ${transform.seconds} s`);
  const busy = await backgroundCpuPercent();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let out;
  try {
    const held = Number((await client.query('select count(*) as n from product_variants where store_id = $1', [storeId])).rows[0].n);
    if (held !== 0) throw new Error(`${kind} live COPY: the store holds ${held} variants before it`);
    const backend = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
    const cpuBefore = cpuSecondsOf(backend);
    const ticks = machineTicks();
    const started = performance.now();
    await client.query('begin');
    const copy = client.query(copyFrom(LIVE_COPY_SQL));
    await pipeline(createReadStream(path), copy);
    const copied = performance.now();
    await client.query('commit');
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuSecondsOf(backend);
    out = {
      rows: copy.rowCount,
      seconds: round(seconds, 3),
      copySeconds: round((copied - started) / 1000, 3),
      commitSeconds: round((performance.now() - copied) / 1000, 3),
      rowsPerSecond: Math.round(copy.rowCount / seconds),
      postgresCpuSeconds: cpuBefore === null || cpuAfter === null ? null : round(cpuAfter - cpuBefore),
      machineBusyPercent: busyPercent(ticks, machineTicks()),
      backgroundCpuPercentBefore: busy,
      storeId,
      file: { rows: transform.rows, bytes: transform.bytes, transformSeconds: transform.seconds },
    };
    log(
      `${kind} live COPY: ${out.rows} rows in ${out.seconds} s (COPY ${out.copySeconds} s, commit ${out.commitSeconds} s): ${out.rowsPerSecond} rows/s (backend CPU ${out.postgresCpuSeconds} s)`,
    );
    const { rows } = await client.query(
      'select count(*)::int as variants, coalesce(sum(price), 0)::bigint as price_sum from product_variants where store_id = $1',
      [storeId],
    );
    out.verification = {
      ok: rows[0].variants === file.rows && Number(rows[0].price_sum) === transform.priceSum,
      variants: rows[0].variants,
      priceSum: Number(rows[0].price_sum),
      expected: { variants: file.rows, priceSum: transform.priceSum },
    };
    if (!out.verification.ok) fail(`${kind} live COPY: the store holds ${JSON.stringify(out.verification)}`);
    if (empty) {
      // Emptied for the next file's, and the table vacuumed so that it does not find a file's worth of dead rows
      // (not timed; autovacuum may be off): the deletion goes through the same triggers.
      const at = performance.now();
      await client.query('delete from product_variants where store_id = $1', [storeId]);
      await client.query('vacuum product_variants');
      out.emptiedSeconds = round((performance.now() - at) / 1000, 1);
    }
  } finally {
    await client.end();
    await rm(path, { force: true });
  }
  return out;
}

/**
 * One request to the service with node:http (no client time-out: a million-row preview may take minutes):
 * a JSON body, or a file streamed from disk. Answers its status, its parsed body, and its time to the first
 * byte and to the end in ms.
 */
async function request(admin, method, path, { body, file } = {}) {
  const token = await admin.token();
  return new Promise((done, failed) => {
    const headers = { authorization: `Bearer ${token}` };
    let payload;
    if (body !== undefined) {
      payload = Buffer.from(JSON.stringify(body));
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    } else if (file) {
      headers['content-type'] = file.contentType;
      headers['content-length'] = file.bytes;
    } else if (method !== 'GET') headers['content-length'] = 0;
    const started = performance.now();
    const outgoing = http.request(new URL(path, admin.base), { method, headers }, (response) => {
      const ttfb = performance.now() - started;
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('error', failed);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          // not JSON: kept as text
        }
        done({ status: response.statusCode, body: parsed, ms: performance.now() - started, ttfbMs: ttfb });
      });
    });
    outgoing.on('error', failed);
    if (file) pipeline(createReadStream(file.path), outgoing).catch(failed);
    else outgoing.end(payload);
  });
}

// --- verification -------------------------------------------------------------------------------------

/** The upsert store's variants against the file, in SQL: every price, stock and product as the formulas say. */
async function verifyUpsert(url, storeId) {
  const counts = await withClient(url, async (client) => {
    const { rows } = await client.query(
      `with v as (
         select left(v.sku, 1) as kind, substr(v.sku, 3)::int as i, v.price, v.stock, v.currency, v.options, p.slug
         from product_variants v join products p on p.id = v.product_id where v.store_id = $1)
       select count(*)::int as total,
         count(*) filter (where kind = 'V')::int as existing,
         count(*) filter (where kind = 'N')::int as new,
         count(*) filter (where kind = 'V' and i % 100 <> 0 and i % 20 = 1 and price = ${SQL_BASE_PRICE('i')} + 100)::int as changed_prices,
         count(*) filter (where kind = 'V' and price <> ${SQL_BASE_PRICE('i')} + case when i % 100 <> 0 and i % 20 = 1 then 100 else 0 end)::int as wrong_prices,
         count(*) filter (where kind = 'N' and (price <> ${SQL_BASE_PRICE('i')} or i % 100 <> 0 or currency <> 'SAR' or options <> '[]'::jsonb))::int as wrong_new,
         count(*) filter (where stock <> ${SQL_STOCK('i')})::int as wrong_stock,
         count(*) filter (where slug <> ${SQL_SLUG('i')})::int as wrong_product,
         count(*) filter (where kind not in ('V', 'N'))::int as unexpected
       from v`,
      [storeId],
    );
    return rows[0];
  });
  const expected = {
    total: ROWS + ROWS / 100,
    existing: ROWS,
    new: ROWS / 100,
    changed_prices: ROWS / 20,
    wrong_prices: 0,
    wrong_new: 0,
    wrong_stock: 0,
    wrong_product: 0,
    unexpected: 0,
  };
  return { ok: Object.keys(expected).every((name) => counts[name] === expected[name]), counts, expected };
}

/**
 * A digest of the store's variants as the catalogue shows them (id, sku, product, price, compare-at price, stock,
 * position), in id order: md5 of the rows' text, and their count. `except`: the id of a run whose created records
 * are left out (they are checked on their own).
 */
async function catalogueDigest(url, storeId, { except } = {}) {
  const started = performance.now();
  const digest = await withClient(url, async (client) => {
    const { rows } = await client.query(
      `select count(*)::int as variants,
         md5(coalesce(string_agg(concat_ws('|', v.id, v.sku, v.product_id, v.price, coalesce(v.compare_at_price::text, '-'), v.stock, v.position),
                                 E'\\n' order by v.id), '')) as md5
       from product_variants v where v.store_id = $1
       ${except ? `and v.id not in (select record_id from data_hub_run_rows where run_id = $2 and list = 'created' and record_id is not null)` : ''}`,
      except ? [storeId, except] : [storeId],
    );
    return rows[0];
  });
  const seconds = round((performance.now() - started) / 1000, 2);
  log(
    `catalogue digest${except ? ' (the run’s created variants left out)' : ''}: ${digest.variants} variants, md5 ${digest.md5} (${seconds} s)`,
  );
  return { ...digest, seconds };
}

/**
 * After the undo: the store's variants but those the run created exactly as before the run (the digest taken then),
 * and those it created all still there, out of stock (stock 0), as many as it created.
 */
async function verifyUndo(url, storeId, runId, before) {
  const after = await catalogueDigest(url, storeId, { except: runId });
  const created = await withClient(url, async (client) => {
    const { rows } = await client.query(
      `select count(*)::int as listed, count(v.id)::int as present,
         count(*) filter (where v.stock = 0)::int as out_of_stock, count(*) filter (where v.store_id <> $2)::int as other_store
       from data_hub_run_rows r left join product_variants v on v.id = r.record_id
       where r.run_id = $1 and r.list = 'created'`,
      [runId, storeId],
    );
    return rows[0];
  });
  const expectedCreated = FILES.upsert.expected(ROWS).created;
  const checks = {
    digestEqual: before !== null && after.md5 === before.md5 && after.variants === before.variants,
    createdListed: created.listed === expectedCreated,
    createdPresent: created.present === expectedCreated,
    createdOutOfStock: created.out_of_stock === expectedCreated,
    createdInStore: created.other_store === 0,
  };
  return {
    ok: Object.values(checks).every(Boolean),
    checks,
    before: before && { variants: before.variants, md5: before.md5 },
    after: { variants: after.variants, md5: after.md5 },
    created: { expected: expectedCreated, ...created },
    note: 'md5 over id, sku, product_id, price, compare_at_price, stock, position of the store’s variants in id order: before the run, and after the undo without the variants the run created (its created list), which must all be there with stock 0',
  };
}

/** The fresh store's variants against the file, in SQL. */
async function verifyFresh(url, storeId) {
  const counts = await withClient(url, async (client) => {
    const { rows } = await client.query(
      `with v as (
         select left(v.sku, 1) as kind, substr(v.sku, 3)::int as i, v.price, v.stock, v.currency, v.options, p.slug
         from product_variants v join products p on p.id = v.product_id where v.store_id = $1)
       select count(*)::int as total,
         count(distinct i) filter (where kind = 'F')::int as distinct_skus,
         count(*) filter (where price <> ${SQL_BASE_PRICE('i')} or currency <> 'SAR' or options <> '[]'::jsonb)::int as wrong_prices,
         count(*) filter (where stock <> ${SQL_STOCK('i')})::int as wrong_stock,
         count(*) filter (where slug <> ${SQL_SLUG('i')})::int as wrong_product,
         count(*) filter (where kind <> 'F')::int as unexpected
       from v`,
      [storeId],
    );
    return rows[0];
  });
  const expected = { total: ROWS, distinct_skus: ROWS, wrong_prices: 0, wrong_stock: 0, wrong_product: 0, unexpected: 0 };
  return { ok: Object.keys(expected).every((name) => counts[name] === expected[name]), counts, expected };
}

// --- ratios, aims and the table -------------------------------------------------------------------------

function ratios(results) {
  const out = {
    note:
      'Two ceilings. copy: COPY of the file as it is (sku, product, price, stock) into a plain table with no index, constraint or trigger (bench_copy): what PostgreSQL can take in at all, which no live import approaches. ' +
      'liveCopy: COPY of the same rows, transformed beforehand to product_variants’ own columns (store_id, product_id, sku, options, price in minor units, compare_at_price, currency, stock, position; the third store’s product ids), into the live product_variants table of a third store with the same products, with its indexes, constraints and triggers on (primary key, unique (store_id, sku), product_id index, checks, foreign keys checked row by row, the catalogue-cache and search statement triggers, search’s flush deferred to the commit), in one transaction, commit included: every row inserted, which an import does only for the rows it creates. ' +
      'runOfCopy, runOfLiveCopy: the run’s rows/s (service: startedAt → finishedAt, or → the poll that saw it done when finishedAt is not believable, see run.serviceSecondsFrom; wall: POST → that poll) ÷ that ceiling’s; liveCopyOfCopy: the live COPY’s rows/s ÷ the plain COPY’s; ' +
      'previewOfRun: the full preview’s time (POST until its 200) ÷ the run’s service time; undoOfRun: the undo’s time ÷ the run’s (service: each one’s own startedAt → finishedAt; wall: POST → the poll that saw it done)',
  };
  for (const kind of Object.keys(FILES)) {
    const r = results[kind];
    if (!r?.copy || !r.run) continue;
    out[kind] = {
      runOfCopy: {
        service: round(r.run.rowsPerSecond.service / r.copy.rowsPerSecond, 4),
        wall: round(r.run.rowsPerSecond.wall / r.copy.rowsPerSecond, 4),
      },
      runOfLiveCopy: r.liveCopy?.rowsPerSecond
        ? {
            service: round(r.run.rowsPerSecond.service / r.liveCopy.rowsPerSecond, 4),
            wall: round(r.run.rowsPerSecond.wall / r.liveCopy.rowsPerSecond, 4),
          }
        : null,
      liveCopyOfCopy: r.liveCopy?.rowsPerSecond ? round(r.liveCopy.rowsPerSecond / r.copy.rowsPerSecond, 4) : null,
      previewOfRun: r.preview ? round(r.preview.seconds / r.run.serviceSeconds, 3) : null,
      previewOfRunWall: r.preview ? round(r.preview.seconds / r.run.wallSeconds, 3) : null,
    };
    if (r.undo?.runStatus === 'succeeded')
      out[kind].undoOfRun = {
        service: round(r.undo.serviceSeconds / r.run.serviceSeconds, 3),
        wall: round(r.undo.wallSeconds / r.run.wallSeconds, 3),
      };
  }
  return out;
}

function aims(results) {
  const list = [];
  const aim = (name, value, target, met) => list.push({ name, value, target, met });
  const peaks = [];
  for (const kind of Object.keys(FILES)) {
    const r = results[kind];
    const ratio = results.ratios?.[kind];
    if (ratio) {
      if (ratio.runOfLiveCopy)
        aim(
          `${kind}: run rows/s >= ${AIMS.runOfLiveCopy * 100}% of a COPY's into the live product_variants (indexes, constraints, triggers on)`,
          ratio.runOfLiveCopy.service,
          `>= ${AIMS.runOfLiveCopy}`,
          ratio.runOfLiveCopy.service >= AIMS.runOfLiveCopy,
        );
      if (ratio.undoOfRun)
        aim(
          `${kind}: the undo takes no longer than the run (undo s / run s)`,
          ratio.undoOfRun.service,
          `<= ${AIMS.undoOfRun}`,
          ratio.undoOfRun.service <= AIMS.undoOfRun,
        );
      if (ratio.previewOfRun !== null)
        aim(
          `${kind}: full preview in under a third of the run's time`,
          ratio.previewOfRun,
          `< ${round(AIMS.previewOfRun, 3)}`,
          ratio.previewOfRun < AIMS.previewOfRun,
        );
    }
    if (r?.firstRowsPreview?.available)
      aim(
        `${kind}: first-rows preview (${settings.firstRows} rows) answers in under ${AIMS.firstRowsPreviewSeconds} s`,
        r.firstRowsPreview.seconds,
        `< ${AIMS.firstRowsPreviewSeconds}`,
        r.firstRowsPreview.seconds < AIMS.firstRowsPreviewSeconds,
      );
    for (const step of ['firstRowsPreview', 'preview', 'run', 'undo']) if (r?.[step]?.peakRssMB) peaks.push(r[step].peakRssMB);
    for (const step of ['preview', 'run', 'undo']) {
      const health = r?.[step]?.healthLive;
      if (health?.maxMs != null)
        aim(
          `${kind}: /health/live answers within ${AIMS.healthLiveMaxMs} ms throughout the ${step === 'preview' ? 'full preview' : step}`,
          health.maxMs,
          `< ${AIMS.healthLiveMaxMs}`,
          health.maxMs < AIMS.healthLiveMaxMs && health.failures === 0,
        );
    }
  }
  if (peaks.length > 0) {
    const value = Math.max(...peaks);
    aim(`service peak RSS < ${AIMS.peakRssMB} MB (previews, runs and the undo)`, value, `< ${AIMS.peakRssMB}`, value < AIMS.peakRssMB);
  }
  return list;
}

function printTable(results) {
  const out = [''];
  const m = results.machine;
  if (m)
    out.push(`${m.cpus} x ${m.cpuModel}, node ${m.node}, PostgreSQL ${m.postgres}; background CPU ${m.backgroundCpuPercentBefore}% before`);
  if (results.database) out.push(`data: ${JSON.stringify(results.database.rows)}, database ${results.database.size}`);
  if (results.seed) out.push(`seed: ${results.seed.seconds} s`);
  if (results.serviceIdleRssMB) out.push(`service RSS after start and sign-in, before any run: ${results.serviceIdleRssMB} MB`);
  const rows = [
    [
      '',
      'rows',
      'seconds',
      'rows/s',
      'of COPY',
      'of live COPY',
      'wall s',
      'peak RSS MB',
      'growth',
      'service CPU s',
      'PG CPU s',
      'live p50/p99/max ms',
    ],
  ];
  const live = (step) => (step.healthLive?.answers ? `${step.healthLive.p50Ms}/${step.healthLive.p99Ms}/${step.healthLive.maxMs}` : '');
  const watched = (step) => [
    String(step.peakRssMB),
    String(step.peakRssGrowthMB),
    String(step.serviceCpuSeconds),
    String(step.postgresCpuSeconds),
    live(step),
  ];
  for (const kind of Object.keys(FILES)) {
    const r = results[kind];
    if (!r) continue;
    const ratio = results.ratios?.[kind];
    if (r.copy)
      rows.push([
        `${kind} COPY`,
        String(r.copy.rows),
        String(r.copy.seconds),
        String(r.copy.rowsPerSecond),
        '1',
        '',
        '',
        '',
        '',
        '',
        String(r.copy.postgresCpuSeconds),
        '',
      ]);
    const c = r.liveCopy;
    if (c)
      rows.push([
        `${kind} live COPY`,
        String(c.rows),
        String(c.seconds),
        String(c.rowsPerSecond),
        ratio?.liveCopyOfCopy == null ? '' : String(ratio.liveCopyOfCopy),
        '1',
        `(commit ${c.commitSeconds})`,
        '',
        '',
        '',
        String(c.postgresCpuSeconds),
        '',
      ]);
    const f = r.firstRowsPreview;
    if (f)
      rows.push([
        `${kind} first-rows preview`,
        String(f.counts?.read ?? (f.available === false ? 'n/a' : '')),
        String(f.seconds),
        '',
        '',
        '',
        '',
        ...watched(f),
      ]);
    const p = r.preview;
    if (p)
      rows.push([
        `${kind} preview`,
        String(p.counts?.read ?? ''),
        String(p.seconds),
        String(Math.round((p.counts?.read ?? 0) / p.seconds)),
        ratio ? `(${ratio.previewOfRun} of run)` : '',
        '',
        '',
        ...watched(p),
      ]);
    const u = r.run;
    if (u)
      rows.push([
        `${kind} run`,
        String(u.counts?.read ?? ''),
        String(u.serviceSeconds),
        String(u.rowsPerSecond.service),
        ratio ? `${ratio.runOfCopy.service} (wall ${ratio.runOfCopy.wall})` : '',
        ratio?.runOfLiveCopy ? `${ratio.runOfLiveCopy.service} (wall ${ratio.runOfLiveCopy.wall})` : '',
        String(u.wallSeconds),
        ...watched(u),
      ]);
    const d = r.undo;
    if (d)
      rows.push([
        `${kind} undo`,
        String(d.counts?.read ?? ''),
        String(d.serviceSeconds),
        String(d.rowsPerSecond.service),
        ratio?.undoOfRun ? `(${ratio.undoOfRun.service} of run)` : '',
        '',
        String(d.wallSeconds),
        ...watched(d),
      ]);
  }
  if (rows.length > 1) {
    const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
    out.push('', ...rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')));
  }
  for (const kind of Object.keys(FILES)) {
    const r = results[kind];
    if (!r?.run) continue;
    out.push(
      '',
      `${kind}: run ${JSON.stringify(r.run.counts)}; preview's counts equal: ${r.countsEqual?.previewAndRun}; store as the file says: ${r.verification?.ok}`,
    );
    if (!r.run.finishedAtBelievable)
      out.push(
        `  (the run's time is taken to the poll that saw it done: its finishedAt is ${r.run.recordedSeconds} s after its startedAt)`,
      );
    for (const a of r.run.postgresActivity?.top?.slice(0, 5) ?? []) out.push(`  ${String(a.share).padStart(5)}  ${a.query}`);
    if (r.undo) {
      out.push(
        `${kind}: undo ${r.undo.runStatus} ${JSON.stringify(r.undo.counts)}; counts as expected: ${r.undo.countsEqual?.undoAndRun}; catalogue as before the run: ${r.undoVerification?.ok}`,
      );
      if (r.undo.finishedAtBelievable === false)
        out.push(
          `  (the undo's time is taken to the poll that saw it done: its finishedAt is ${r.undo.recordedSeconds} s after its startedAt)`,
        );
      for (const a of r.undo.postgresActivity?.top?.slice(0, 5) ?? []) out.push(`  ${String(a.share).padStart(5)}  ${a.query}`);
    }
  }
  out.push('', ...results.aims.map((a) => `${a.met ? 'MET   ' : 'MISSED'}  ${a.name}: ${a.value} (aim ${a.target})`), '');
  process.stdout.write(out.join('\n') + '\n');
}

void run(main);
