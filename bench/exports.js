// `npm run bench:exports`: the Insights exports at a million rows, on the built service and real
// PostgreSQL. Seeds (or reuses) a pro-plan store with the demo's 18 months of history, then exports one
// builder query of about a million rows (net sales, orders, gross sales and discounts by day × customer
// over all time: a row per customer per day they bought) as CSV and as XLSX through the HTTP API, next to
// PostgreSQL's own `COPY (the same query, labelled as the file shows it) TO STDOUT`, the baseline, read by
// a Node client. Each measurement is repeated (--runs, alternating); rows/s from the service's own
// startedAt/finishedAt and from wall time, the service's RSS sampled every 100 ms, every file downloaded
// and its rows counted, the CSV compared record by record with COPY's output. See bench/README.md.
//
// Options:
//   --orders N               orders of demo history to seed (EXPORTS_BENCH_ORDERS, default 1000000:
//                            about 1.05 million day × customer rows)
//   --sessions-per-order N   storefront sessions per order for `demo seed` (default 1: exports read no sessions)
//   --database-url URL       reuse a database an earlier run kept (--keep-database): no creation, no seeding;
//                            the store is found by its name (Exports Bench)
//   --keep-database          leave the database in place and print its URL
//   --runs N                 measurements of each of COPY, CSV and XLSX (default 3), alternating
//   --formats a,b            csv,xlsx (default both)
//   --query NAME             day-customer (default: read from a rollup) or day-product-customer (no rollup
//                            holds it: read from the orders, lines and refunds themselves)
//   --profile DIR            run the service under bench/profiled-main.js and write a CPU profile of each
//                            export to DIR (summarise one with `node bench/profile.js summarize FILE`)
//   --update-reference       also replace bench/results/exports-reference.json with this run's results
import { parse } from 'csv-parse';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createInflateRaw } from 'node:zlib';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import {
  assertBuilt,
  backgroundCpuPercent,
  busyPercent,
  cleanupStack,
  cpuSecondsOf,
  describeDatabase,
  gitCommit,
  log,
  machineInfo,
  machineTicks,
  memoryOf,
  openDatabase,
  proStore,
  resetPeak,
  ROOT,
  round,
  signIn,
  startService,
  UPDATE_REFERENCE_OPTION,
  withClient,
  writeResults,
} from './lib.js';

const { values: args } = parseArgs({
  options: {
    orders: { type: 'string', default: process.env.EXPORTS_BENCH_ORDERS ?? '1000000' },
    'sessions-per-order': { type: 'string', default: '1' },
    'database-url': { type: 'string' },
    'keep-database': { type: 'boolean', default: false },
    runs: { type: 'string', default: '3' },
    formats: { type: 'string', default: 'csv,xlsx' },
    query: { type: 'string', default: 'day-customer' },
    profile: { type: 'string' },
    ...UPDATE_REFERENCE_OPTION,
  },
});
const FORMATS = args.formats.split(',').map((format) => format.trim());
for (const format of FORMATS) if (!['csv', 'xlsx'].includes(format)) throw new Error(`--formats: unknown format ${format}`);
const settings = {
  orders: Number(args.orders),
  sessionsPerOrder: Number(args['sessions-per-order']),
  reusedDatabase: Boolean(args['database-url']),
  runs: Number(args.runs),
  formats: FORMATS,
  pollMs: 200,
  rssSampleMs: 100,
};

/** The bench's store: its name, and the columns of `stores` the bench reads. */
const STORE = { name: 'Exports Bench', columns: 'id, plan, timezone, currency' };
const SEED_NOTE =
  'demo seed writes the catalogue and the history in bulk, then rebuilds the store’s rollups: its time includes the rebuild';
const COUNTED_TABLES = ['orders', 'order_lines', 'refunds', 'insights_customers', 'insights_customer_sales_daily', 'shoppers'];
/**
 * The export: every customer's sales on every day they bought, over the store's whole history. With the
 * demo's million orders that is about a row per order (a customer rarely orders twice a day; returns and
 * cancellations on later days add rows). Or who bought what, when: a row per product a customer bought
 * on a day, which no rollup holds, so that the export reads the records.
 */
const QUERIES = {
  'day-customer': { measures: ['net_sales', 'orders', 'gross_sales', 'discounts'], dimensions: ['day', 'customer'], last: 'all' },
  'day-product-customer': { measures: ['net_sales', 'orders', 'units_sold'], dimensions: ['day', 'product', 'customer'], last: 'all' },
};
const EXPORT_QUERY = QUERIES[args.query];
if (!EXPORT_QUERY) throw new Error(`--query: unknown query ${args.query} (queries: ${Object.keys(QUERIES).join(', ')})`);
const AIMS = { rows: 1_000_000, csvOfCopy: 0.5, xlsxOfCopy: 0.15, peakRssMB: 300 };

const { cleanups, run } = cleanupStack();

const failures = [];
function fail(message) {
  log(`FAILED: ${message}`);
  failures.push(message);
}

const median = (values) => {
  const sorted = values.filter((value) => typeof value === 'number').sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const MB = 1024 * 1024;

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
    export: null,
    baseline: null,
    copy: null,
    copyUnlabelled: null,
    csv: null,
    xlsx: null,
    verification: null,
    serviceIdleRssMB: null,
    aims: [],
    ok: false,
    failures,
  };
  let service;
  try {
    const database = await openDatabase({
      prefix: 'storefront_exports',
      keyPurpose: 'storefront-exports-bench',
      databaseUrl: args['database-url'],
      keep: args['keep-database'],
      cleanups,
    });
    results.machine = { ...(await machineInfo(database.serverVersion)), backgroundCpuPercentBefore: await backgroundCpuPercent() };
    const store = await proStore(database, results, STORE, {
      orders: settings.orders,
      seedArgs: ['--sessions-per-order', String(settings.sessionsPerOrder)],
      note: SEED_NOTE,
    });
    log(`store ${store.id} (${store.plan}, ${store.timezone}, ${store.currency})`);
    await withClient(database.url, (client) => client.query('analyze'));
    results.database = await describeDatabase(database, store.id, COUNTED_TABLES);
    log(`data: ${JSON.stringify(results.database.rows)}, ${results.database.size}`);

    // The service, with its files (DATA_DIR/files) in a directory of its own, removed at the end.
    const dataDir = await mkdtemp(join(tmpdir(), 'exports-bench-data-'));
    const scratch = await mkdtemp(join(tmpdir(), 'exports-bench-files-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    cleanups.push(() => rm(scratch, { recursive: true, force: true }));
    service = await startService(database.url, {
      env: { DATA_DIR: dataDir },
      ...(args.profile ? { entry: resolve(ROOT, 'bench/profiled-main.js') } : {}),
    });
    cleanups.push(() => service.stop());
    log(`service on ${service.base} (pid ${service.child.pid}, files under ${dataDir})`);
    const admin = await signIn(service.base, database.url, store.id, {
      emailDomain: 'exports-bench.example',
      headers: { 'accept-language': 'en' },
    });
    results.serviceIdleRssMB = round(memoryOf(service.child.pid)?.rss, 1);

    // What the export is: its rows as the builder counts them, its range and its columns.
    const refused = await admin.call('POST', '/admin/insights/builder/run', EXPORT_QUERY);
    if (refused.status !== 422)
      throw new Error(`the builder answered ${refused.status} to the export's query: ${JSON.stringify(refused.body)}`);
    const rowCount = refused.body.details?.rowCount ?? refused.body.rowCount;
    const top = await admin.call('POST', '/admin/insights/builder/run', { ...EXPORT_QUERY, limit: 1 });
    if (top.status !== 200) throw new Error(`the builder answered ${top.status} to the top row: ${JSON.stringify(top.body)}`);
    const calendar = await admin.getJson('/admin/insights/settings');
    results.export = {
      body: { source: { builder: EXPORT_QUERY }, format: '…' },
      rowCount,
      range: top.body.range,
      columns: top.body.columns.map((column) => column.name),
      note: 'rowCount as the builder counts it (its over_row_limit refusal)',
    };
    log(`export: ${rowCount} rows (${top.body.range.from} … ${top.body.range.to}, ${top.body.range.timezone})`);

    // The baseline: the statement the service runs for this export, captured from the built query
    // engine, labelled and formatted as the file shows it, as PostgreSQL's own COPY … TO STDOUT.
    const statement = await captureExportStatement(store.id, top.body.range, calendar.weekStartsOn);
    const headers = await headerRow(top.body.columns, 'en', calendar.currency);
    const baseline = copyStatements(statement, store.id, top.body.columns, headers, calendar.currency);
    results.baseline = {
      client: 'pg-copy-streams (COPY … TO STDOUT, CSV with a header), written to a file as the service writes its own',
      serviceStatement: inlined(statement.sql, statement.parameters),
      labelled: baseline.labelled,
      unlabelled: baseline.unlabelled,
      plan: await withClient(database.url, async (client) =>
        (await client.query(`explain ${baseline.query}`)).rows.map((row) => row['QUERY PLAN']),
      ),
    };

    // A warm-up COPY (discarded: it reads the tables into the cache for every measurement after it);
    // its output is what the service's CSV is compared with.
    log('warm-up: COPY of the labelled statement (discarded; its output is kept to compare the CSV with)');
    const reference = join(scratch, 'copy-reference.csv');
    const warm = await runCopy(database.url, baseline.labelled, reference);
    log(`warm-up COPY: ${warm.rows} rows in ${warm.seconds} s`);

    const runs = { copy: [], copyUnlabelled: [], csv: [], xlsx: [] };
    let firstCsv = null;
    for (let run = 0; run < settings.runs; run++) {
      const order = run % 2 === 0 ? ['copy', ...FORMATS] : [...FORMATS].reverse().concat('copy');
      for (const what of order) {
        if (what === 'copy') {
          for (const [name, sqlText] of [
            ['copy', baseline.labelled],
            ['copyUnlabelled', baseline.unlabelled],
          ]) {
            const busy = await backgroundCpuPercent();
            const measured = await runCopy(database.url, sqlText, join(scratch, `${name}.csv`));
            measured.backgroundCpuPercentBefore = busy;
            runs[name].push(measured);
            log(
              `run ${run + 1} ${name.padEnd(14)} ${measured.rows} rows in ${measured.seconds} s: ${measured.rowsPerSecond} rows/s (PostgreSQL backend CPU ${measured.postgresCpuSeconds} s)`,
            );
          }
          continue;
        }
        const busy = await backgroundCpuPercent();
        if (args.profile) await profiler(service.child, { cmd: 'start' }, 'started');
        const measured = await runExport(admin, service.child.pid, what, scratch);
        if (args.profile) {
          const file = resolve(args.profile, `exports-${what}-run${run + 1}-${Date.now()}.cpuprofile`);
          await profiler(service.child, { cmd: 'stop', file }, 'stopped');
          measured.cpuProfile = file;
          log(`CPU profile: ${file}`);
        }
        measured.backgroundCpuPercentBefore = busy;
        runs[what].push(measured);
        if (what === 'csv' && !firstCsv) firstCsv = measured.path;
        else await rm(measured.path, { force: true });
        delete measured.path;
        log(
          `run ${run + 1} ${what.padEnd(14)} ${measured.rows} rows: service ${measured.serviceSeconds} s (${measured.rowsPerSecond.service} rows/s), wall ${measured.wallSeconds} s (${measured.rowsPerSecond.wall} rows/s); peak RSS ${measured.peakRssMB} MB (before ${measured.rssBeforeMB} MB); ${round(measured.bytes / MB, 1)} MB, ${measured.fileRows} rows in the file`,
        );
      }
    }
    for (const [name, list] of Object.entries(runs)) {
      if (list.length === 0) continue;
      results[name] = name.startsWith('copy') ? summariseCopy(list) : summariseExport(list);
    }
    if (firstCsv) {
      log('comparing the service’s CSV with COPY’s output, record by record');
      results.verification = { csvEqualsCopy: await compareCsv(firstCsv, reference) };
      const v = results.verification.csvEqualsCopy;
      log(v.equal ? `equal: ${v.service.records} records` : `DIFFERENT: ${JSON.stringify(v)}`);
      if (!v.equal) fail(`the service's CSV differs from COPY's output of the same query: ${JSON.stringify(v).slice(0, 500)}`);
    }
  } catch (error) {
    fail(error?.stack ?? String(error));
    if (service) log(`service output (last lines):\n${service.output().split('\n').slice(-30).join('\n')}`);
  } finally {
    results.finishedAt = new Date().toISOString();
    results.ratios = ratios(results);
    results.aims = aims(results);
    results.ok = failures.length === 0;
    printTable(results);
    await writeResults('exports', results, { startedAt, updateReference: args['update-reference'] });
    if (!results.ok) {
      process.stderr.write(`\nBENCH FAILED:\n  ${failures.join('\n  ')}\n`);
      process.exitCode = 1;
    }
  }
}

// --- the baseline's SQL ----------------------------------------------------------------------------

/**
 * The statement the service's query engine groups the export's rows with, as the build compiles it
 * (QueryEngine's plan and select of the query's one part, run on a Kysely that only compiles): the rows
 * without labels, which the baseline joins itself as the file shows them (QueryEngine.stream may join
 * them too, or DimensionValues look them up: that is the service's business, not the baseline's).
 */
async function captureExportStatement(storeId, range, weekStartsOn) {
  const { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } = await import('kysely');
  const dist = (path) => import(pathToFileURL(resolve(ROOT, 'dist/src', path)).href);
  const { QueryEngine } = await dist('insights/query/query-engine.js');
  const { measureNamed } = await dist('insights/definitions/measures.js');
  const db = new Kysely({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  const engine = new QueryEngine({ getKysely: () => db });
  const spec = {
    storeId,
    measures: EXPORT_QUERY.measures.map((name) => measureNamed(name)),
    dimensions: EXPORT_QUERY.dimensions,
    filters: [],
    range: { from: range.from, to: range.to },
    weekStartsOn,
    // the builder's default with a time grain: time in order (then the other dimensions)
    sort: undefined,
  };
  // private methods of the compiled class: if they are renamed, this is where the bench breaks
  const parts = engine.plan(spec);
  if (parts.length !== 1) throw new Error(`expected the export's measures from one source, the engine planned ${parts.length}`);
  const compiled = engine.select(spec, parts[0]).compile(db);
  return { sql: compiled.sql, parameters: [...compiled.parameters] };
}

/** A statement with its parameters written in as literals (COPY takes no parameters). */
function inlined(sqlText, parameters) {
  const literal = (value) => {
    if (value === null || value === undefined) return 'null';
    if (typeof value === 'number' || typeof value === 'bigint') return String(value);
    if (typeof value === 'boolean') return value ? 'true' : 'false';
    if (Array.isArray(value)) throw new Error('an array parameter: the export statement has none today, write it in by hand');
    return pg.Client.prototype.escapeLiteral(String(value));
  };
  return sqlText.replace(/\$(\d+)\b/g, (_, index) => literal(parameters[Number(index) - 1]));
}

/** The header row the file has: the build's own headerOf, in the file's language. */
async function headerRow(columns, language, currency) {
  const { headerOf } = await import(pathToFileURL(resolve(ROOT, 'dist/src/insights/exports/report-file.js')).href);
  return columns.map((column) => headerOf(column, language, currency));
}

/**
 * COPY statements of the export's statement: `labelled` gives what the file shows (dates, the customer
 * as the service labels it, `Name <email>` or the email, money in the currency's major unit), in the
 * service's order, under the file's header; `unlabelled` is the statement as it is (ids, minor units).
 */
function copyStatements(statement, storeId, columns, headers, currency) {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
  const inner = inlined(statement.sql, statement.parameters);
  const store = pg.Client.prototype.escapeLiteral(storeId);
  const ident = (name) => pg.Client.prototype.escapeIdentifier(name);
  const dimensions = columns.filter((column) => column.kind === 'dimension').map((column) => column.name);
  const select = columns.map((column, index) => {
    let value;
    if (column.name === 'customer') value = `coalesce(label.name, q.customer)`;
    else if (column.name === 'product') value = `coalesce(product_label.name, q.product)`;
    else if (column.kind === 'measure' && column.type === 'money')
      value = `round(q.${ident(column.name)}::numeric / ${10 ** digits}, ${digits})`;
    else value = `q.${ident(column.name)}`;
    return `${value} as ${ident(headers[index])}`;
  });
  // the product dimension's label, in the file's language (English), as labelJoin gives it
  const productLabel = dimensions.includes('product')
    ? `left join lateral (select p.name_en as name from products p where p.store_id = ${store} and p.id = q.product::uuid) product_label on true`
    : '';
  const query = `select ${select.join(',\n         ')}
  from (${inner}) q
  left join lateral (
    -- the customer dimension's label, as DimensionValues labels a batch (insights_customers by id, the shopper's name)
    select coalesce(nullif(trim(s.first_name || ' ' || s.last_name), '') || ' <' || c.email || '>', c.email) as name
    from insights_customers c
    left join shoppers s on s.store_id = c.store_id and s.email_normalized = c.email
    where c.store_id = ${store} and c.id = q.customer::bigint
  ) label on true
  ${productLabel}
  order by ${dimensions.map((name) => `q.${ident(name)}`).join(', ')}`;
  return {
    query,
    labelled: `copy (${query}) to stdout with (format csv, header)`,
    unlabelled: `copy (${inner}) to stdout with (format csv, header)`,
  };
}

/** A message to bench/profiled-main.js and its answer. */
async function profiler(child, message, expected) {
  const answer = new Promise((done, failed) => {
    const on = (reply) => {
      if (reply?.event === expected) done(reply);
      else if (reply?.event === 'error') failed(new Error(reply.message));
      else return;
      child.off('message', on);
    };
    child.on('message', on);
  });
  child.send(message);
  return answer;
}

// --- measuring -------------------------------------------------------------------------------------

/** COPY … TO STDOUT through pg-copy-streams into a file; rows counted from its line ends (less the header). */
async function runCopy(url, sqlText, path) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const backend = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
    const cpuBefore = cpuSecondsOf(backend);
    const ticks = machineTicks();
    let lines = 0;
    let bytes = 0;
    const counter = new Transform({
      transform(chunk, _encoding, done) {
        bytes += chunk.length;
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
        done(null, chunk);
      },
    });
    const started = performance.now();
    await pipeline(client.query(copyTo(sqlText)), counter, createWriteStream(path));
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuSecondsOf(backend);
    const rows = lines - 1;
    return {
      rows,
      bytes,
      seconds: round(seconds, 3),
      rowsPerSecond: Math.round(rows / seconds),
      postgresCpuSeconds: cpuBefore === null || cpuAfter === null ? null : round(cpuAfter - cpuBefore),
      machineBusyPercent: busyPercent(ticks, machineTicks()),
    };
  } finally {
    await client.end();
  }
}

/**
 * One export through the API: POST /exports, GET /exports/{id} every 200 ms until it is done, the
 * service's RSS every 100 ms meanwhile (and its VmHWM, reset before), then the file downloaded and
 * its rows counted.
 */
async function runExport(admin, pid, format, scratch) {
  const rssBefore = memoryOf(pid);
  const peakReset = resetPeak(pid);
  const cpuBefore = cpuSecondsOf(pid);
  const ticks = machineTicks();
  let peak = rssBefore?.rss ?? 0;
  const samples = [];
  const sampler = setInterval(() => {
    const memory = memoryOf(pid);
    if (!memory) return;
    peak = Math.max(peak, memory.rss);
    samples.push(memory.rss);
  }, settings.rssSampleMs);
  const started = performance.now();
  let doc;
  try {
    const created = await admin.call('POST', '/admin/insights/exports', { source: { builder: EXPORT_QUERY }, format });
    if (created.status !== 202) throw new Error(`POST /exports answered ${created.status}: ${JSON.stringify(created.body)}`);
    doc = created.body;
    let loggedAt = performance.now();
    while (doc.status === 'queued' || doc.status === 'running') {
      await new Promise((done) => setTimeout(done, settings.pollMs));
      doc = await admin.getJson(`/admin/insights/exports/${doc.id}`);
      if (performance.now() - loggedAt > 15_000) {
        loggedAt = performance.now();
        log(`  ${format}: ${doc.status}, ${doc.progress.rows} of ${doc.progress.totalRows} rows (${doc.progress.percent}%)`);
      }
    }
  } finally {
    clearInterval(sampler);
  }
  const wallSeconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuSecondsOf(pid);
  const busy = busyPercent(ticks, machineTicks());
  const after = memoryOf(pid);
  if (doc.status !== 'succeeded') throw new Error(`the ${format} export ${doc.status}: ${JSON.stringify(doc.error)}`);
  const serviceSeconds = (Date.parse(doc.finishedAt) - Date.parse(doc.startedAt)) / 1000;
  const rows = doc.progress.rows;

  // The file: downloaded, its size checked against what the export says, its rows counted.
  const path = join(scratch, `export-${doc.id}.${format}`);
  const downloadStarted = performance.now();
  const response = await fetch(`${admin.base}/admin/insights/exports/${doc.id}/file`, {
    headers: { authorization: `Bearer ${await admin.token()}` },
  });
  if (response.status !== 200) throw new Error(`GET /exports/${doc.id}/file answered ${response.status}`);
  await pipeline(Readable.fromWeb(response.body), createWriteStream(path));
  const downloadSeconds = (performance.now() - downloadStarted) / 1000;
  const bytes = (await stat(path)).size;
  if (bytes !== doc.file.bytes || String(bytes) !== response.headers.get('content-length')) {
    fail(
      `${format}: the file has ${bytes} bytes, the export says ${doc.file.bytes}, content-length ${response.headers.get('content-length')}`,
    );
  }
  const counted = format === 'csv' ? await csvRows(path) : await xlsxRows(path);
  if (counted.rows !== rows) fail(`${format}: the file has ${counted.rows} data rows, the export says ${rows}`);
  const serviceCpu = cpuBefore === null || cpuAfter === null ? null : round(cpuAfter - cpuBefore);
  return {
    id: doc.id,
    rows,
    fileRows: counted.rows,
    ...(counted.sheets ? { sheets: counted.sheets } : {}),
    bytes,
    serviceSeconds: round(serviceSeconds, 3),
    wallSeconds: round(wallSeconds, 3),
    rowsPerSecond: { service: Math.round(rows / serviceSeconds), wall: Math.round(rows / wallSeconds) },
    startedAt: doc.startedAt,
    finishedAt: doc.finishedAt,
    rssBeforeMB: round(rssBefore?.rss, 1),
    peakRssMB: round(Math.max(peak, peakReset && after ? after.hwm : 0), 1),
    peakRssGrowthMB: round(Math.max(peak, peakReset && after ? after.hwm : 0) - (rssBefore?.rss ?? 0), 1),
    peakRssSampledMB: round(peak, 1),
    vmHwmMB: peakReset && after ? round(after.hwm, 1) : null,
    vmHwmReset: peakReset,
    rssAfterMB: round(after?.rss, 1),
    rssSamples: samples.length,
    serviceCpuSeconds: serviceCpu,
    serviceCpuOfWall: serviceCpu === null ? null : round(serviceCpu / wallSeconds, 2),
    machineBusyPercent: busy,
    downloadSeconds: round(downloadSeconds, 2),
    path,
  };
}

/** Data records of a CSV file (the header aside), parsed as RFC 4180. */
async function csvRows(path) {
  let records = 0;
  await pipeline(createReadStream(path), parse({ bom: true }), async function* (source) {
    for await (const record of source) {
      void record;
      records += 1;
    }
  });
  return { rows: records - 1 };
}

/**
 * Data rows of an XLSX file: its worksheets' `<row ` elements less each sheet's header, read from the zip
 * (central directory, then each worksheet inflated as a stream), without building the workbook.
 */
async function xlsxRows(path) {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const tailLength = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, size - tailLength);
    const end = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (end < 0) throw new Error(`${path}: no zip end of central directory`);
    const entries = tail.readUInt16LE(end + 10);
    const directorySize = tail.readUInt32LE(end + 12);
    const directoryOffset = tail.readUInt32LE(end + 16);
    const directory = Buffer.alloc(directorySize);
    await handle.read(directory, 0, directorySize, directoryOffset);
    const sheets = [];
    for (let at = 0, i = 0; i < entries; i++) {
      const method = directory.readUInt16LE(at + 10);
      const compressed = directory.readUInt32LE(at + 20);
      const nameLength = directory.readUInt16LE(at + 28);
      const extraLength = directory.readUInt16LE(at + 30);
      const commentLength = directory.readUInt16LE(at + 32);
      const local = directory.readUInt32LE(at + 42);
      const name = directory.toString('utf8', at + 46, at + 46 + nameLength);
      if (/^xl\/worksheets\/sheet\d+\.xml$/.test(name)) sheets.push({ name, method, compressed, local });
      at += 46 + nameLength + extraLength + commentLength;
    }
    let rows = 0;
    for (const sheet of sheets) {
      const header = Buffer.alloc(30);
      await handle.read(header, 0, 30, sheet.local);
      const start = sheet.local + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
      const data = createReadStream(path, { start, end: start + sheet.compressed - 1 });
      const tag = Buffer.from('<row ');
      let count = 0;
      let carry = Buffer.alloc(0);
      const inflated = sheet.method === 8 ? data.pipe(createInflateRaw()) : data;
      for await (const chunk of inflated) {
        const text = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
        for (let at = text.indexOf(tag); at !== -1; at = text.indexOf(tag, at + tag.length)) count += 1;
        carry = text.subarray(Math.max(0, text.length - (tag.length - 1)));
      }
      rows += count - 1; // each sheet's header row
    }
    return { rows, sheets: sheets.length };
  } finally {
    await handle.close();
  }
}

/** The service's CSV against COPY's output, record by record (a digest of each file's records, and the first few). */
async function compareCsv(servicePath, copyPath) {
  const digestOf = async (path) => {
    const hash = createHash('sha256');
    const first = [];
    let records = 0;
    await pipeline(createReadStream(path), parse({ bom: true }), async function* (source) {
      for await (const record of source) {
        hash.update(JSON.stringify(record));
        if (records < 3) first.push(record);
        records += 1;
      }
    });
    return { records, sha256: hash.digest('hex'), first };
  };
  const service = await digestOf(servicePath);
  const copy = await digestOf(copyPath);
  return { equal: service.sha256 === copy.sha256 && service.records === copy.records, service, copy };
}

// --- summaries, aims and the table ------------------------------------------------------------------

function summariseCopy(runs) {
  return {
    rows: runs[0].rows,
    bytes: runs[0].bytes,
    rowsPerSecond: { median: median(runs.map((run) => run.rowsPerSecond)) },
    seconds: { median: round(median(runs.map((run) => run.seconds)), 3) },
    postgresCpuSeconds: { median: median(runs.map((run) => run.postgresCpuSeconds)) },
    runs,
  };
}

function summariseExport(runs) {
  return {
    rows: runs[0].rows,
    bytes: runs[0].bytes,
    sheets: runs[0].sheets,
    rowsPerSecond: {
      service: median(runs.map((run) => run.rowsPerSecond.service)),
      wall: median(runs.map((run) => run.rowsPerSecond.wall)),
    },
    seconds: {
      service: round(median(runs.map((run) => run.serviceSeconds)), 3),
      wall: round(median(runs.map((run) => run.wallSeconds)), 3),
    },
    peakRssMB: { max: Math.max(...runs.map((run) => run.peakRssMB)), median: median(runs.map((run) => run.peakRssMB)) },
    rssBeforeMB: { first: runs[0].rssBeforeMB, median: median(runs.map((run) => run.rssBeforeMB)) },
    peakRssGrowthMB: { max: Math.max(...runs.map((run) => run.peakRssGrowthMB)), median: median(runs.map((run) => run.peakRssGrowthMB)) },
    serviceCpuOfWall: { median: median(runs.map((run) => run.serviceCpuOfWall)) },
    runs,
  };
}

function ratios(results) {
  const copy = results.copy?.rowsPerSecond.median;
  if (!copy) return null;
  const of = (format) =>
    results[format]
      ? {
          service: round(results[format].rowsPerSecond.service / copy, 3),
          wall: round(results[format].rowsPerSecond.wall / copy, 3),
        }
      : null;
  return {
    note: 'median rows/s of the export (by the service’s own startedAt → finishedAt, and by wall time from POST until GET /exports/{id} said succeeded) ÷ median rows/s of COPY',
    csv: of('csv'),
    xlsx: of('xlsx'),
    copyUnlabelled: results.copyUnlabelled ? round(results.copyUnlabelled.rowsPerSecond.median / copy, 3) : null,
  };
}

function aims(results) {
  const list = [];
  const aim = (name, value, target, met) => list.push({ name, value, target, met });
  if (results.export) {
    const rows = results.csv?.rows ?? results.xlsx?.rows ?? results.export.rowCount;
    aim(`the export has at least ${AIMS.rows.toLocaleString('en')} rows`, rows, `>= ${AIMS.rows}`, rows >= AIMS.rows);
  }
  if (results.ratios?.csv) {
    const value = results.ratios.csv.service;
    aim(`CSV rows/s >= ${AIMS.csvOfCopy * 100}% of COPY's`, value, `>= ${AIMS.csvOfCopy}`, value >= AIMS.csvOfCopy);
  }
  if (results.ratios?.xlsx) {
    const value = results.ratios.xlsx.service;
    aim(`XLSX rows/s >= ${AIMS.xlsxOfCopy * 100}% of COPY's`, value, `>= ${AIMS.xlsxOfCopy}`, value >= AIMS.xlsxOfCopy);
  }
  for (const format of ['csv', 'xlsx']) {
    if (!results[format]) continue;
    const value = results[format].peakRssMB.max;
    aim(`${format.toUpperCase()} peak RSS < ${AIMS.peakRssMB} MB (every run)`, value, `< ${AIMS.peakRssMB}`, value < AIMS.peakRssMB);
  }
  return list;
}

function printTable(results) {
  const out = [''];
  const m = results.machine;
  if (m)
    out.push(`${m.cpus} x ${m.cpuModel}, node ${m.node}, PostgreSQL ${m.postgres}; background CPU ${m.backgroundCpuPercentBefore}% before`);
  if (results.database) out.push(`data: ${JSON.stringify(results.database.rows)}, database ${results.database.size}`);
  if (results.seed) out.push(`seed: ${results.seed.seconds} s (demo seed ${results.seed.arguments.join(' ')})`);
  if (results.export) out.push(`export: ${results.export.rowCount} rows, ${JSON.stringify(EXPORT_QUERY)}`);
  if (results.serviceIdleRssMB) out.push(`service RSS after start and sign-in, before any export: ${results.serviceIdleRssMB} MB`);
  const rows = [['', 'rows/s (median)', 'wall rows/s', 'of COPY', 'seconds', 'peak RSS MB', 'RSS before', 'growth', 'MB', 'runs rows/s']];
  const mb = (bytes) => (bytes ? String(round(bytes / MB, 1)) : '');
  for (const name of ['copy', 'copyUnlabelled']) {
    const r = results[name];
    if (!r) continue;
    rows.push([
      name === 'copy' ? 'COPY (labelled)' : 'COPY (unlabelled)',
      String(r.rowsPerSecond.median),
      '',
      name === 'copy' ? '1' : String(results.ratios?.copyUnlabelled ?? ''),
      String(r.seconds.median),
      '',
      '',
      '',
      mb(r.bytes),
      r.runs.map((run) => run.rowsPerSecond).join(' '),
    ]);
  }
  for (const format of ['csv', 'xlsx']) {
    const r = results[format];
    if (!r) continue;
    rows.push([
      format.toUpperCase(),
      String(r.rowsPerSecond.service),
      String(r.rowsPerSecond.wall),
      results.ratios?.[format] ? `${results.ratios[format].service} (wall ${results.ratios[format].wall})` : '',
      String(r.seconds.service),
      String(r.peakRssMB.max),
      String(r.rssBeforeMB.median),
      String(r.peakRssGrowthMB.max),
      mb(r.bytes),
      r.runs.map((run) => run.rowsPerSecond.service).join(' '),
    ]);
  }
  if (rows.length > 1) {
    const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
    out.push('', ...rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')));
  }
  if (results.verification) out.push('', `CSV equals COPY's output record by record: ${results.verification.csvEqualsCopy.equal}`);
  out.push('', ...results.aims.map((a) => `${a.met ? 'MET   ' : 'MISSED'}  ${a.name}: ${a.value} (aim ${a.target})`), '');
  process.stdout.write(out.join('\n') + '\n');
}

void run(main);
