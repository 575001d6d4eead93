// `npm run bench:insights`: Insights on a big store, on the built service and real PostgreSQL. Seeds a
// pro-plan store with the demo's 18 months of history (1,000,000 orders by default), times the backfill
// (`insights rebuild`), then measures: a naive one-query overview over the raw records (the baseline,
// whose figures must equal the service's), all sixteen reports over the last 366 days with and without
// the previous period, the builder and its over_row_limit refusal, how soon a new order shows in the
// figures, and what the change capture costs order placement. See bench/README.md.
//
// Options (also as environment variables where named):
//   --orders N               orders of demo history to seed (INSIGHTS_BENCH_ORDERS, default 1000000)
//   --seed-args "…"          more arguments for `demo seed`, e.g. --seed-args="--sessions-per-order 8"
//   --database-url URL       reuse a database an earlier run kept: no creation, no seeding; the store is
//                            found by its name (Insights Bench); the rollups are still rebuilt and timed
//   --keep-database          leave the database in place and print its URL
//   --seconds N              measured seconds per report, builder and refusal (BENCH_SECONDS, default 5)
//   --warmup N               warm-up seconds before each of them (BENCH_WARMUP_SECONDS, default 1)
//   --freshness-orders N     orders placed one at a time to time their way into the figures (default 20)
//   --maintenance-seconds N  measured seconds of each journey run (default 20; 3 s warm-up each)
//   --maintenance-runs N     runs with the change capture on, and as many with it off (default 2)
//   --shoppers N             concurrent shoppers of the journey runs (BENCH_SHOPPERS, default 32)
//   --only a,b               baseline,reports,builder,records,freshness,maintenance (default all)
//   --update-reference       also replace bench/results/insights-reference.json with this run's results
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { STEPS, runJourneys, stepSummaries } from './journey-load.js';
import {
  assertBuilt,
  backgroundCpuPercent,
  cleanupStack,
  CLI,
  cli,
  cliStreaming,
  describeDatabase,
  gitCommit,
  log,
  machineInfo,
  mintToken,
  openDatabase,
  proStore,
  requestJson,
  ROOT,
  round,
  serviceEnv,
  signIn,
  startService,
  UPDATE_REFERENCE_OPTION,
  withClient,
  writeResults,
} from './lib.js';

const PARTS = ['baseline', 'reports', 'builder', 'records', 'freshness', 'maintenance'];
const { values: args } = parseArgs({
  options: {
    orders: { type: 'string', default: process.env.INSIGHTS_BENCH_ORDERS ?? '1000000' },
    'seed-args': { type: 'string', default: '' },
    'database-url': { type: 'string' },
    'keep-database': { type: 'boolean', default: false },
    seconds: { type: 'string', default: process.env.BENCH_SECONDS ?? '5' },
    warmup: { type: 'string', default: process.env.BENCH_WARMUP_SECONDS ?? '1' },
    'freshness-orders': { type: 'string', default: '20' },
    'maintenance-seconds': { type: 'string', default: '20' },
    'maintenance-runs': { type: 'string', default: '2' },
    shoppers: { type: 'string', default: process.env.BENCH_SHOPPERS ?? '32' },
    only: { type: 'string', default: PARTS.join(',') },
    ...UPDATE_REFERENCE_OPTION,
  },
});
const settings = {
  orders: Number(args.orders),
  seedArgs: args['seed-args'].trim(),
  reusedDatabase: Boolean(args['database-url']),
  seconds: Number(args.seconds),
  warmupSeconds: Number(args.warmup),
  freshnessOrders: Number(args['freshness-orders']),
  maintenanceSeconds: Number(args['maintenance-seconds']),
  maintenanceWarmupSeconds: 3,
  maintenanceRuns: Number(args['maintenance-runs']),
  shoppers: Number(args.shoppers),
  range: 'last=366',
};
const only = new Set(args.only.split(',').map((part) => part.trim()));
for (const part of only) if (!PARTS.includes(part)) throw new Error(`--only: unknown part ${part} (parts: ${PARTS.join(', ')})`);

/** The bench's store: its name, and the columns of `stores` the bench reads. */
const STORE = { name: 'Insights Bench', columns: 'id, plan, timezone' };
const SEED_NOTE =
  'demo seed writes the catalogue and the history in bulk, then rebuilds the store’s rollups itself: its time includes one rebuild';
/** Rows of what the figures come from and of the rollups (with the database's size, in the results). */
const COUNTED_TABLES = [
  'orders',
  'order_lines',
  'refunds',
  'payments',
  'searches',
  'storefront_events',
  'insights_sales_daily',
  'insights_products_daily',
  'insights_customers_daily',
  'insights_customer_sales_daily',
];
/** Every built-in report, from the build's own declarations. */
assertBuilt();
const { REPORT_NAMES: REPORTS } = await import('../dist/src/insights/definitions/reports.js');
/** The overview's headline figures the baseline recomputes. */
const HEADLINE = [
  'gross_sales',
  'discounts',
  'returns',
  'net_sales',
  'shipping',
  'taxes',
  'total_sales',
  'orders',
  'average_order_value',
  'customers',
];
const AIMS = {
  overviewP50Ms: 50,
  baselineRatio: 20,
  reportP95Ms: 150,
  refusalP95Ms: 200,
  recordsRefusalP95Ms: 2000,
  recordsAnswerP95Ms: 1000,
  freshnessP95Seconds: 60,
  maintenanceCost: 0.1,
};
/**
 * Sessions per order for the demo's storefront sessions, when `demo seed` can be told (its default, 33,
 * would be 33 million sessions at a million orders). A day's carts are about 4 per order (1.5–1.9
 * checkouts per order, 1.8–2.3 carts per checkout), so 5 is about the fewest that keeps the deeper
 * steps of the funnel as the default writes them; only the sessions that never reach a cart shrink.
 */
const SESSIONS_PER_ORDER = 5;
const BUILDER_QUERY = { measures: ['net_sales', 'units_sold'], dimensions: ['month', 'category', 'brand'], last: 366 };
const OVER_LIMIT_QUERY = { measures: ['net_sales'], dimensions: ['day', 'product'], last: 366 };
/** Who bought what, when, over a year: no rollup holds it, and it has far more than 5,000 rows. */
const RECORDS_HEAVY_QUERY = { measures: ['net_sales'], dimensions: ['day', 'product', 'customer'], last: 366 };
/** The same question narrowed to one category and 30 days (the category is chosen from the data: see narrowCategory). */
const RECORDS_NARROW_DAYS = 30;

const { cleanups, run } = cleanupStack();

const failures = [];
function fail(message) {
  log(`FAILED: ${message}`);
  failures.push(message);
}

function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p) => (sorted.length === 0 ? null : round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]));
  return { p50: at(50), p95: at(95), p99: at(99), max: at(100) };
}

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
    rebuild: null,
    baseline: null,
    reports: null,
    overviewAt8Connections: null,
    builder: null,
    refusal: null,
    freshness: null,
    maintenance: null,
    aims: [],
    ok: false,
    failures,
  };
  let service;
  try {
    // --- the database, the store and its history ---
    const database = await openDatabase({
      prefix: 'storefront_insights',
      keyPurpose: 'storefront-insights-bench',
      databaseUrl: args['database-url'],
      keep: args['keep-database'],
      cleanups,
    });
    results.machine = { ...(await machineInfo(database.serverVersion)), backgroundCpuPercentBefore: await backgroundCpuPercent() };
    const store = await proStore(database, results, STORE, { orders: settings.orders, seedArgs: await seedArguments(), note: SEED_NOTE });
    log(`store ${store.id} (${store.plan}, ${store.timezone})`);

    log('insights rebuild: the backfill of the store’s rollups from its records');
    const rebuildStarted = performance.now();
    const rebuilt = await cliStreaming(database.url, ['insights', 'rebuild', '--store', store.id], 'rebuild');
    results.rebuild = { seconds: round((performance.now() - rebuildStarted) / 1000, 1), rebuiltInMs: rebuilt.rebuiltInMs };
    log(`rebuilt in ${results.rebuild.seconds} s (${rebuilt.rebuiltInMs} ms inside the command)`);
    const analyzeStarted = performance.now();
    await withClient(database.url, (client) => client.query('analyze'));
    results.rebuild.analyzeSeconds = round((performance.now() - analyzeStarted) / 1000, 1);
    results.database = await describeDatabase(database, store.id, COUNTED_TABLES);
    log(`data: ${JSON.stringify(results.database.rows)}`);

    // --- the service and a signed-in owner ---
    service = await startService(database.url);
    cleanups.push(() => service.stop());
    log(`service on ${service.base}`);
    const admin = await signIn(service.base, database.url, store.id, {
      emailDomain: 'insights-bench.example',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    const overview = await admin.getJson('/admin/insights/reports/overview?last=366');
    const range = overview.range;
    log(`range ${range.from} … ${range.to} (${range.timezone}): ${overview.totals.orders} orders`);

    // How busy the machine is with other work just before each part (1 s while the bench sends nothing).
    const busy = {};
    results.machine.backgroundCpuPercentBeforeEach = busy;
    if (only.has('baseline')) {
      busy.baseline = await backgroundCpuPercent();
      results.baseline = await baseline(database.url, store.id, range, overview);
    }
    if (only.has('reports')) {
      busy.reports = await backgroundCpuPercent();
      results.reports = await measureReports(admin);
      log('overview at 8 connections');
      results.overviewAt8Connections = await measureLoad(admin, admin.request('GET', '/admin/insights/reports/overview?last=366'), {
        connections: 8,
        name: 'overview (8 connections)',
      });
    }
    if (only.has('builder')) {
      busy.builder = await backgroundCpuPercent();
      results.builder = await measureBuilder(admin);
      results.refusal = await measureRefusal(admin);
    }
    if (only.has('records')) {
      busy.records = await backgroundCpuPercent();
      results.records = await measureRecords(admin, database.url, store.id, range);
    }
    let apiKey;
    if (only.has('freshness') || only.has('maintenance')) {
      const issued = await cli(database.url, ['key', 'issue', '--store', store.id, '--rate-limit', '9999999']);
      apiKey = issued.apiKey.key;
      // Stock that lasts: these measure checkout and the figures, not refusals of sold-out variants.
      await withClient(database.url, (client) =>
        client.query('update product_variants set stock = 1000000 where store_id = $1 and stock < 1000000', [store.id]),
      );
    }
    if (only.has('freshness')) {
      busy.freshness = await backgroundCpuPercent();
      results.freshness = await freshness(service.base, apiKey, admin);
    }
    if (only.has('maintenance')) results.maintenance = await maintenance(service.base, apiKey, database.url, store.id);
  } catch (error) {
    fail(error?.stack ?? String(error));
    if (service) log(`service output (last lines):\n${service.output().split('\n').slice(-30).join('\n')}`);
  } finally {
    results.finishedAt = new Date().toISOString();
    results.aims = aims(results);
    results.ok = failures.length === 0;
    printTable(results);
    await writeResults('insights', results, { startedAt, updateReference: args['update-reference'] });
    if (!results.ok) {
      process.stderr.write(`\nBENCH FAILED:\n  ${failures.join('\n  ')}\n`);
      if (service) {
        const tail = service.output().split('\n').slice(-30).join('\n');
        if (tail.trim()) process.stderr.write(`service output (last lines):\n${tail}\n`);
      }
      process.exitCode = 1;
    }
  }
}

// --- set-up ----------------------------------------------------------------------------------------

/**
 * --seed-args, plus a smaller number of storefront sessions per order when `demo seed` takes one (its
 * usage names `--sessions-per-order`, or `--conversion`) and --seed-args does not set it.
 */
async function seedArguments() {
  // The usage is answered before any database is opened: this URL is never connected to.
  const usageOnlyUrl = 'postgres://usage-only@127.0.0.1:1/none';
  const given = settings.seedArgs ? settings.seedArgs.split(/\s+/) : [];
  const usage = await new Promise((done) => {
    const child = spawn(process.execPath, [CLI, 'demo', 'seed'], { cwd: ROOT, env: serviceEnv(usageOnlyUrl) });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('close', () => done(out));
  });
  const gives = (option) => given.some((arg) => arg === option || arg.startsWith(`${option}=`));
  const extra = [];
  if (/--sessions-per-order\b/.test(usage) && !gives('--sessions-per-order')) {
    extra.push('--sessions-per-order', String(SESSIONS_PER_ORDER));
  } else if (/--conversion\b/.test(usage) && !gives('--conversion')) {
    // One order in SESSIONS_PER_ORDER sessions, as a percentage or a ratio, whichever the usage names.
    const placeholder = /--conversion\s+([^\]\s]+)/.exec(usage)?.[1] ?? '';
    extra.push('--conversion', /PERCENT|PCT|%/i.test(placeholder) ? String(100 / SESSIONS_PER_ORDER) : String(1 / SESSIONS_PER_ORDER));
  }
  if (extra.length > 0) log(`demo seed takes ${extra[0]}: ${extra.join(' ')} (--seed-args="${extra[0]} …" to choose)`);
  return [...given, ...extra];
}

// --- measuring -------------------------------------------------------------------------------------

/**
 * autocannon on one request for `warmupSeconds` (discarded) and `seconds`, every response's time kept
 * (autocannon's own percentiles have no p95). A request slower than the window is timed alone until
 * there are 3 samples. Every answer must have the expected status, else the run fails.
 */
async function measureLoad(admin, request, { connections = 1, name = request.path } = {}) {
  const headers = {
    authorization: `Bearer ${await admin.token()}`,
    'accept-encoding': 'gzip, deflate, br',
    ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  const options = {
    url: admin.base + request.path,
    method: request.method,
    headers,
    body: request.body,
    connections,
    pipelining: 1,
    timeout: 120,
  };
  const run = (seconds) =>
    new Promise((done, failed) => {
      const times = [];
      const statuses = {};
      const instance = autocannon({ ...options, duration: seconds }, (error, result) =>
        error ? failed(error) : done({ result, times, statuses }),
      );
      instance.on('response', (_client, status, _bytes, ms) => {
        times.push(ms);
        statuses[status] = (statuses[status] ?? 0) + 1;
      });
    });
  if (settings.warmupSeconds > 0) await run(settings.warmupSeconds);
  const { result, times, statuses } = await run(settings.seconds);
  while (times.length < 3) {
    const started = performance.now();
    const response = await fetch(options.url, { method: options.method, headers, body: options.body });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  }
  const unexpected = Object.entries(statuses).filter(([status]) => Number(status) !== request.expectStatus);
  if (unexpected.length > 0 || result.errors > 0 || result.timeouts > 0) {
    fail(
      `${name}: expected ${request.expectStatus}, got ${JSON.stringify(statuses)}, errors ${result.errors}, timeouts ${result.timeouts}`,
    );
  }
  return {
    connections,
    durationSeconds: settings.seconds,
    requests: times.length,
    rps: round(result.requests.average, 1),
    latencyMs: { mean: round(times.reduce((a, b) => a + b, 0) / times.length), ...percentiles(times) },
    statusCodes: statuses,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
/** Every report over the last 366 days, alone and with the previous period. */
async function measureReports(admin) {
  const reports = {};
  for (const name of REPORTS) {
    reports[name] = {};
    for (const [variant, query] of [
      ['plain', 'last=366'],
      ['compare', 'last=366&compare=previous_period'],
    ]) {
      const path = `/admin/insights/reports/${name}?${query}`;
      const first = await admin.call('GET', path);
      if (first.status !== 200) {
        fail(`GET ${path} answered ${first.status}: ${JSON.stringify(first.body).slice(0, 300)}`);
        continue;
      }
      const measured = await measureLoad(admin, admin.request('GET', path), { name: `${name} (${variant})` });
      reports[name][variant] = {
        path,
        rows: first.body.rows.length,
        seriesPoints: first.body.series.length,
        firstRequestMs: round(first.ms),
        ...measured,
      };
      log(
        `${name.padEnd(16)} ${variant.padEnd(8)} p50 ${measured.latencyMs.p50} ms  p95 ${measured.latencyMs.p95} ms  p99 ${measured.latencyMs.p99} ms  (${measured.requests} requests)`,
      );
    }
  }
  return reports;
}

async function measureBuilder(admin) {
  const first = await admin.call('POST', '/admin/insights/builder/run', BUILDER_QUERY);
  if (first.status !== 200) {
    fail(`builder answered ${first.status}: ${JSON.stringify(first.body).slice(0, 300)}`);
    return null;
  }
  const measured = await measureLoad(admin, admin.request('POST', '/admin/insights/builder/run', BUILDER_QUERY), { name: 'builder' });
  log(
    `builder (month × category × brand): ${first.body.rowCount} rows, p50 ${measured.latencyMs.p50} ms, p95 ${measured.latencyMs.p95} ms`,
  );
  return { body: BUILDER_QUERY, rows: first.body.rowCount, firstRequestMs: round(first.ms), ...measured };
}

/**
 * The refusal of a query over 5,000 rows, next to the same query answered as its top 5,000 rows (every
 * row computed, sorted and sent): a refusal from a count costs a fraction of the latter.
 */
async function measureRefusal(admin) {
  const first = await admin.call('POST', '/admin/insights/builder/run', OVER_LIMIT_QUERY);
  if (first.status !== 422 || first.body?.code !== 'over_row_limit') {
    fail(`a query over 5,000 rows answered ${first.status}: ${JSON.stringify(first.body).slice(0, 300)}`);
    return null;
  }
  const rowCount = first.body.details?.rowCount ?? first.body.rowCount;
  const refused = await measureLoad(admin, admin.request('POST', '/admin/insights/builder/run', OVER_LIMIT_QUERY, 422), {
    name: 'refusal',
  });
  log(`refusal (day × product, ${rowCount} rows): p50 ${refused.latencyMs.p50} ms, p95 ${refused.latencyMs.p95} ms`);
  const topN = { ...OVER_LIMIT_QUERY, limit: 5000 };
  const answered = await measureLoad(admin, admin.request('POST', '/admin/insights/builder/run', topN), { name: 'top 5000 rows' });
  log(`the same as its top 5,000 rows: p50 ${answered.latencyMs.p50} ms`);
  return {
    body: OVER_LIMIT_QUERY,
    rowCount,
    code: first.body.code,
    ...refused,
    answeredTop5000: { body: topN, latencyMs: answered.latencyMs, rps: answered.rps, requests: answered.requests },
    refusedToAnsweredP50: round(refused.latencyMs.p50 / answered.latencyMs.p50, 3),
  };
}

/**
 * Questions no rollup holds, answered from the orders, lines and refunds themselves: a year of who
 * bought what when (refused, from a count or the time limit, never answered), and the same question
 * narrowed to one category and 30 days (answered, under 5,000 rows).
 */
async function measureRecords(admin, databaseUrl, storeId, range) {
  const path = '/admin/insights/builder/run';
  const first = await admin.call('POST', path, RECORDS_HEAVY_QUERY);
  if (first.status !== 422 || !['over_row_limit', 'query_too_heavy'].includes(first.body?.code)) {
    fail(`a year of day × product × customer answered ${first.status}: ${JSON.stringify(first.body).slice(0, 300)}`);
    return null;
  }
  const heavy = await measureLoad(admin, admin.request('POST', path, RECORDS_HEAVY_QUERY, 422), { name: 'records: a year refused' });
  log(
    `records: a year of day × product × customer: 422 ${first.body.code}${first.body.rowCount ? ` (${first.body.rowCount} rows)` : ''}, p50 ${heavy.latencyMs.p50} ms, p95 ${heavy.latencyMs.p95} ms`,
  );
  const category = await narrowCategory(databaseUrl, storeId, range.to);
  const narrowQuery = {
    measures: ['net_sales', 'orders', 'units_sold'],
    dimensions: ['day', 'product', 'customer'],
    last: RECORDS_NARROW_DAYS,
    filters: [{ dimension: 'category', op: 'in', values: [category.id] }],
  };
  const answer = await admin.call('POST', path, narrowQuery);
  if (answer.status !== 200) {
    fail(
      `one category's ${RECORDS_NARROW_DAYS} days by day × product × customer answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`,
    );
    return { heavy: { body: RECORDS_HEAVY_QUERY, code: first.body.code, rowCount: first.body.rowCount ?? null, ...heavy } };
  }
  const narrow = await measureLoad(admin, admin.request('POST', path, narrowQuery), { name: 'records: one category, 30 days' });
  log(
    `records: one category (${category.name}), ${RECORDS_NARROW_DAYS} days, day × product × customer: ${answer.body.rowCount} rows, p50 ${narrow.latencyMs.p50} ms, p95 ${narrow.latencyMs.p95} ms`,
  );
  return {
    heavy: { body: RECORDS_HEAVY_QUERY, code: first.body.code, rowCount: first.body.rowCount ?? null, ...heavy },
    narrow: { body: narrowQuery, category: category.name, rows: answer.body.rowCount, ...narrow },
  };
}

/**
 * The category whose last RECORDS_NARROW_DAYS days, by day × product × customer, come closest under
 * 5,000 rows (counted here in SQL from the placed lines), so the narrow question is a real answer.
 */
async function narrowCategory(databaseUrl, storeId, lastDay) {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query(
      `select c.id, c.name_en as name, count(distinct ((o.placed_at at time zone s.timezone)::date, l.product_id, lower(o.email)))::int as rows
       from orders o join stores s on s.id = o.store_id join order_lines l on l.order_id = o.id join categories c on c.id = l.category_id
       where o.store_id = $1 and o.placed_at >= (($2::date - ${RECORDS_NARROW_DAYS - 1})::timestamp at time zone s.timezone)
       group by 1, 2 order by (count(distinct ((o.placed_at at time zone s.timezone)::date, l.product_id, lower(o.email))) < 4500) desc, 3 desc
       limit 1`,
      [storeId, lastDay],
    );
    return rows[0];
  });
}

// --- the naive baseline ----------------------------------------------------------------------------

/**
 * The overview's headline figures as someone without rollups computes them: one statement over the raw
 * orders, order lines and refunds, from the written definitions (contract section 8): goods, discounts
 * and shipping without tax on the order's local day; returns valued as what was paid back for the
 * returned units less their share of the line's tax (rounded half up cumulatively over the line's
 * refunds) on the refund's local day; refunded shipping split into its tax share and the rest; a
 * cancellation returns the whole order (goods, shipping, taxes) on the day it was cancelled.
 * $1 store, $2 first day, $3 last day (inclusive, local), $4 time zone.
 */
const BASELINE_SQL = `
with bounds as (
  select ($2::date::timestamp at time zone $4) as lo, (($3::date + 1)::timestamp at time zone $4) as hi
), concerned as (
  select o.id, o.placed_at, o.cancelled_at, lower(o.email) as customer, o.prices_include_tax, o.tax_rate_bps::bigint as rate,
         o.discount_total::bigint as discount_total, o.shipping_total::bigint as shipping_total, o.tax_total::bigint as tax_total,
         coalesce(sum(l.line_total - case when o.prices_include_tax then l.tax_amount else 0 end), 0)::bigint as gross,
         o.tax_total - coalesce(sum(l.tax_amount), 0)::bigint as shipping_tax
  from orders o cross join bounds b
  left join order_lines l on l.order_id = o.id
  where o.store_id = $1
    and ((o.placed_at >= b.lo and o.placed_at < b.hi) or (o.cancelled_at >= b.lo and o.cancelled_at < b.hi)
         or exists (select 1 from refunds r where r.order_id = o.id and r.reason = 'return' and r.shipping_amount > 0
                    and r.created_at >= b.lo and r.created_at < b.hi))
  group by o.id
), money as (
  select c.*,
         case when prices_include_tax then discount_total - (2 * discount_total * rate + 10000 + rate) / (2 * (10000 + rate))
              else discount_total end as discounts,
         case when prices_include_tax then shipping_total - shipping_tax else shipping_total end as shipping_value,
         case when prices_include_tax then shipping_total else shipping_total + shipping_tax end as shipping_paid
  from concerned c
), returned as (
  select rl.amount::bigint as amount, rl.quantity::bigint as quantity, l.quantity::bigint as ordered,
         l.tax_amount::bigint as line_tax,
         coalesce((select sum(p.quantity) from refund_lines p join refunds pr on pr.id = p.refund_id
                   where p.order_line_id = rl.order_line_id and (pr.created_at, pr.id) < (r.created_at, r.id)), 0)::bigint as before
  from refunds r cross join bounds b
  join refund_lines rl on rl.refund_id = r.id
  join order_lines l on l.id = rl.order_line_id
  join orders o on o.id = r.order_id
  where r.store_id = $1 and r.reason = 'return' and r.created_at >= b.lo and r.created_at < b.hi
), facts as (
  select m.gross, m.discounts, 0::bigint as returns, m.shipping_value as shipping, m.tax_total as taxes_collected,
         0::bigint as taxes_refunded, 1 as placed, m.customer
  from money m cross join bounds b where m.placed_at >= b.lo and m.placed_at < b.hi
  union all
  select 0, 0, m.gross - m.discounts, -m.shipping_value, 0, m.tax_total, 0, null
  from money m cross join bounds b where m.cancelled_at >= b.lo and m.cancelled_at < b.hi
  union all
  select 0, 0, x.amount - t.part, 0, 0, t.part, 0, null
  from returned x
  cross join lateral (select (2 * x.line_tax * (x.before + x.quantity) + x.ordered) / (2 * x.ordered)
                             - (2 * x.line_tax * x.before + x.ordered) / (2 * x.ordered) as part) t
  union all
  select 0, 0, 0, -(r.shipping_amount - t.part), 0, t.part, 0, null
  from refunds r cross join bounds b
  join money m on m.id = r.order_id
  cross join lateral (select case when m.shipping_paid = 0 then 0
                                  else (2 * r.shipping_amount * m.shipping_tax + m.shipping_paid) / (2 * m.shipping_paid) end as part) t
  where r.store_id = $1 and r.reason = 'return' and r.shipping_amount > 0 and r.created_at >= b.lo and r.created_at < b.hi
)
select sum(gross) as gross_sales, sum(discounts) as discounts, sum(returns) as returns,
       sum(gross - discounts - returns) as net_sales, sum(shipping) as shipping, sum(taxes_collected - taxes_refunded) as taxes,
       sum(gross - discounts - returns + shipping + taxes_collected - taxes_refunded) as total_sales,
       count(*) filter (where placed = 1) as orders,
       round(sum(gross - discounts)::numeric / nullif(count(*) filter (where placed = 1), 0)) as average_order_value,
       count(distinct customer) as customers
from facts`;

async function baseline(url, storeId, range, overview) {
  log(`baseline: the overview's headline figures in one query over the raw records, 1 warm-up + 5 runs, with JIT as configured and off`);
  return withClient(url, async (client) => {
    const params = [storeId, range.from, range.to, range.timezone];
    // With JIT as the server is configured, and without it (compiling can cost more than it saves on
    // a small store): the baseline is the faster of the two, the fairer comparison for the rollups.
    const settingsTried = {};
    let figures;
    for (const jit of ['configured', 'off']) {
      await client.query(jit === 'off' ? 'set jit = off' : 'reset jit');
      await client.query(BASELINE_SQL, params);
      const runsMs = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const { rows } = await client.query(BASELINE_SQL, params);
        runsMs.push(round(performance.now() - started));
        figures = Object.fromEntries(HEADLINE.map((name) => [name, rows[0][name] === null ? null : Number(rows[0][name])]));
      }
      settingsTried[jit] = { runsMs, p50: percentiles(runsMs).p50 };
    }
    const jit = settingsTried.off.p50 < settingsTried.configured.p50 ? 'off' : 'configured';
    const { runsMs, p50 } = settingsTried[jit];
    await client.query(jit === 'off' ? 'set jit = off' : 'reset jit');
    const service = Object.fromEntries(HEADLINE.map((name) => [name, overview.totals[name]]));
    const differences = HEADLINE.filter((name) => figures[name] !== service[name]).map((name) => ({
      figure: name,
      baseline: figures[name],
      service: service[name],
      difference: figures[name] - service[name],
    }));
    log(
      `baseline p50 ${p50} ms (JIT ${jit}; ${settingsTried.configured.p50} ms with JIT as configured, ${settingsTried.off.p50} ms off); figures ${differences.length === 0 ? 'equal the overview’s' : `DIFFER: ${JSON.stringify(differences)}`}`,
    );
    const { rows: plan } = await client.query(`explain (analyze, buffers, format text) ${BASELINE_SQL}`, params);
    return {
      range,
      jit,
      runsMs,
      latencyMs: { p50, min: Math.min(...runsMs), max: Math.max(...runsMs) },
      byJit: settingsTried,
      figures,
      serviceFigures: service,
      matches: differences.length === 0,
      differences,
      sql: BASELINE_SQL.trim(),
      explainAnalyze: plan.map((row) => row['QUERY PLAN']),
    };
  });
}

// --- freshness -------------------------------------------------------------------------------------

/**
 * Orders placed one at a time through the storefront (mint, add to cart, quote, pickup, cash on
 * delivery with an Idempotency-Key); for each, the seconds from its 201 until GET /status shows it (the
 * orders source counts it and nothing is pending, lagSeconds 0) and until the overview of last=1 does.
 */
async function freshness(base, apiKey, admin) {
  log(`freshness: ${settings.freshnessOrders} orders, one at a time, each until the figures show it`);
  const token = await mintToken(base, apiKey);
  const page = await requestJson(base, 'GET', '/v1/catalogue/products?limit=20', { token });
  const product = await requestJson(base, 'GET', `/v1/catalogue/products/${encodeURIComponent(page.items[0].slug)}`, { token });
  const variantId = product.variants[0].id;
  const samples = [];
  const ordersOf = (status) => status.sources.find((source) => source.name === 'orders').rows;
  for (let i = 0; i < settings.freshnessOrders; i++) {
    const statusBefore = await admin.getJson('/admin/insights/status');
    const overviewBefore = await admin.getJson('/admin/insights/reports/overview?last=1');
    const session = await requestJson(base, 'POST', '/v1/auth/anonymous', { headers: { 'x-api-key': apiKey }, body: {}, expect: 201 });
    const shopper = session.accessToken;
    await requestJson(base, 'POST', '/v1/cart/items', { token: shopper, body: { variantId, quantity: 1 } });
    const quote = await requestJson(base, 'POST', '/v1/checkout/quote', { token: shopper, body: {} });
    await requestJson(base, 'POST', '/v1/checkout/fulfilment', {
      token: shopper,
      body: { type: 'pickup', pickupLocationId: quote.options.pickup[0].id },
    });
    await requestJson(base, 'POST', '/v1/checkout/orders', {
      token: shopper,
      headers: { 'idempotency-key': `insights-bench-${i}-${session.sessionId}` },
      body: { paymentMethod: 'cash_on_delivery', email: `fresh${i}@insights-bench.example` },
      expect: 201,
    });
    const placed = performance.now();
    let statusSeconds = null;
    let overviewSeconds = null;
    while ((statusSeconds === null || overviewSeconds === null) && performance.now() - placed < 120_000) {
      await new Promise((done) => setTimeout(done, 200));
      if (statusSeconds === null) {
        const status = await admin.getJson('/admin/insights/status');
        if (status.lagSeconds === 0 && ordersOf(status) > ordersOf(statusBefore)) statusSeconds = (performance.now() - placed) / 1000;
      }
      if (overviewSeconds === null) {
        const overview = await admin.getJson('/admin/insights/reports/overview?last=1');
        if (overview.totals.orders > overviewBefore.totals.orders) overviewSeconds = (performance.now() - placed) / 1000;
      }
    }
    samples.push({ statusSeconds: round(statusSeconds), overviewSeconds: round(overviewSeconds) });
    log(`order ${i + 1}: in the status after ${round(statusSeconds)} s, in the overview after ${round(overviewSeconds)} s`);
  }
  // Not shown within 2 minutes: counted as 2 minutes (and the aim is missed).
  const seconds = (key) => samples.map((sample) => sample[key] ?? 120);
  const overview = percentiles(seconds('overviewSeconds'));
  const status = percentiles(seconds('statusSeconds'));
  return {
    orders: samples.length,
    notShownWithin120Seconds: samples.filter((sample) => sample.statusSeconds === null || sample.overviewSeconds === null).length,
    overviewSeconds: overview,
    statusSeconds: status,
    samples,
    note: 'a new order is due for folding 5 s after it is placed (insights_orders_inserted), then folded within INSIGHTS_FOLD_SECONDS (5 s by default); polled every 200 ms',
  };
}

// --- maintenance cost ------------------------------------------------------------------------------

/**
 * The journey of bench/journey.js at its default concurrency, alternately with Insights' change-capture
 * triggers enabled and disabled (on, off, off, on, …: drift over the run weighs on both alike). Before
 * each run the pending changes are drained, so that no run folds another's backlog; how long the backlog
 * of an "on" run takes to fold is recorded too.
 */
async function maintenance(base, apiKey, url, storeId) {
  const triggers = await withClient(
    url,
    async (client) =>
      (
        await client.query(
          `select c.relname as table, t.tgname as trigger from pg_trigger t join pg_class c on c.oid = t.tgrelid
           where not t.tgisinternal and t.tgname like 'insights\\_%' order by 1, 2`,
        )
      ).rows,
  );
  const setTriggers = (enabled) =>
    withClient(url, async (client) => {
      const byTable = Map.groupBy(triggers, (row) => row.table);
      for (const [table, rows] of byTable) {
        const action = rows.map((row) => `${enabled ? 'enable' : 'disable'} trigger ${row.trigger}`).join(', ');
        await client.query(`alter table ${table} ${action}`);
      }
    });
  cleanups.push(() => setTriggers(true));
  const pending = () =>
    withClient(url, async (client) => Number((await client.query('select count(*) as n from insights_pending')).rows[0].n));
  const drain = async () => {
    const started = performance.now();
    while ((await pending()) > 0) {
      if (performance.now() - started > 300_000) throw new Error('insights_pending did not drain within 5 minutes');
      await new Promise((done) => setTimeout(done, 250));
    }
    return round((performance.now() - started) / 1000);
  };
  log(`maintenance: triggers ${triggers.map((row) => `${row.table}.${row.trigger}`).join(', ')}`);

  const order = [];
  for (let i = 0; i < settings.maintenanceRuns; i++) order.push(...(i % 2 === 0 ? [true, false] : [false, true]));
  const runs = [];
  for (const [index, enabled] of order.entries()) {
    await setTriggers(enabled);
    await drain();
    const busy = await backgroundCpuPercent();
    log(
      `maintenance run ${index + 1}/${order.length}: triggers ${enabled ? 'on' : 'off'}, ${settings.shoppers} shoppers, ${settings.maintenanceWarmupSeconds} s + ${settings.maintenanceSeconds} s`,
    );
    const { recorder, measuredSeconds } = await runJourneys(base, apiKey, {
      shoppers: settings.shoppers,
      seconds: settings.maintenanceSeconds,
      warmupSeconds: settings.maintenanceWarmupSeconds,
    });
    const steps = stepSummaries(recorder, measuredSeconds);
    const pendingAfter = await pending();
    const foldSecondsAfter = enabled ? await drain() : null;
    const failed = STEPS.flatMap((step) => Object.entries(steps[step].failures).map(([status, count]) => `${step} ${status} ×${count}`));
    if (recorder.journeys === 0 && failed.length === 0) failed.push(`no journey completed (${recorder.lastError ?? 'no error recorded'})`);
    if (failed.length > 0)
      fail(`maintenance run ${index + 1} (triggers ${enabled ? 'on' : 'off'}): ${failed.join(', ')}; ${recorder.lastError}`);
    const run = {
      triggers: enabled ? 'on' : 'off',
      backgroundCpuPercentBefore: busy,
      measuredSeconds: round(measuredSeconds),
      journeysPerSecond: round(recorder.journeys / measuredSeconds, 1),
      placeOrderRps: round(steps.placeOrder.rps, 1),
      placeOrderLatencyMs: steps.placeOrder.latencyMs,
      pendingAtEnd: pendingAfter,
      foldSecondsAfter,
      failures: failed,
      firstError: recorder.lastError ?? null,
    };
    runs.push(run);
    log(
      `  ${run.journeysPerSecond} journeys/s, placeOrder ${run.placeOrderRps} req/s (p50 ${run.placeOrderLatencyMs.p50} ms)${enabled ? `, ${pendingAfter} pending at the end, folded in ${foldSecondsAfter} s` : ''}`,
    );
  }
  await setTriggers(true);
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  const of = (enabled, key) => mean(runs.filter((run) => run.triggers === (enabled ? 'on' : 'off')).map((run) => run[key]));
  const summary = {
    placeOrderRps: { on: round(of(true, 'placeOrderRps'), 1), off: round(of(false, 'placeOrderRps'), 1) },
    journeysPerSecond: { on: round(of(true, 'journeysPerSecond'), 1), off: round(of(false, 'journeysPerSecond'), 1) },
  };
  summary.placeOrderRatio = round(summary.placeOrderRps.on / summary.placeOrderRps.off, 3);
  summary.journeysRatio = round(summary.journeysPerSecond.on / summary.journeysPerSecond.off, 3);
  summary.cost = round(1 - summary.placeOrderRatio, 3);
  return {
    triggers: triggers.map((row) => `${row.table}.${row.trigger}`),
    shoppers: settings.shoppers,
    ...summary,
    runs,
    note: 'cost = 1 − placeOrder req/s with the triggers ÷ without (means over the runs); orders placed with them off are not in the rollups until the next rebuild',
  };
}

// --- verdicts and the table ------------------------------------------------------------------------

function aims(results) {
  const list = [];
  const aim = (name, value, target, met) => list.push({ name, value, target, met });
  const overview = results.reports?.overview?.plain;
  if (overview) {
    aim(
      `overview p50 < ${AIMS.overviewP50Ms} ms`,
      overview.latencyMs.p50,
      `< ${AIMS.overviewP50Ms}`,
      overview.latencyMs.p50 < AIMS.overviewP50Ms,
    );
    if (results.baseline) {
      const ratio = round(results.baseline.latencyMs.p50 / overview.latencyMs.p50, 1);
      aim(
        `overview >= ${AIMS.baselineRatio}x faster than the naive baseline (p50)`,
        ratio,
        `>= ${AIMS.baselineRatio}`,
        ratio >= AIMS.baselineRatio,
      );
    }
  }
  if (results.reports) {
    const all = Object.entries(results.reports).flatMap(([name, variants]) =>
      Object.entries(variants).map(([variant, r]) => ({ name: `${name} (${variant})`, p95: r.latencyMs.p95 })),
    );
    const worst = all.reduce((a, b) => (b.p95 > a.p95 ? b : a), all[0]);
    const over = all.filter((r) => !(r.p95 < AIMS.reportP95Ms)).map((r) => `${r.name} ${r.p95}`);
    aim(
      `every report p95 < ${AIMS.reportP95Ms} ms (32: with and without compare)`,
      worst ? `${worst.p95} (${worst.name})${over.length > 1 ? `; over: ${over.join(', ')}` : ''}` : null,
      `< ${AIMS.reportP95Ms}`,
      all.length === REPORTS.length * 2 && over.length === 0,
    );
  }
  if (results.refusal) {
    const p95 = results.refusal.latencyMs.p95;
    aim(`builder over_row_limit refusal p95 < ${AIMS.refusalP95Ms} ms`, p95, `< ${AIMS.refusalP95Ms}`, p95 < AIMS.refusalP95Ms);
  }
  if (results.records?.heavy) {
    const p95 = results.records.heavy.latencyMs.p95;
    aim(
      `records: a year of day × product × customer refused p95 < ${AIMS.recordsRefusalP95Ms} ms`,
      p95,
      `< ${AIMS.recordsRefusalP95Ms}`,
      p95 < AIMS.recordsRefusalP95Ms,
    );
  }
  if (results.records?.narrow) {
    const p95 = results.records.narrow.latencyMs.p95;
    aim(
      `records: one category, ${RECORDS_NARROW_DAYS} days, under 5,000 rows, p95 < ${AIMS.recordsAnswerP95Ms} ms`,
      p95,
      `< ${AIMS.recordsAnswerP95Ms}`,
      p95 < AIMS.recordsAnswerP95Ms,
    );
  }
  if (results.freshness) {
    const p95 = results.freshness.overviewSeconds.p95;
    aim(
      `freshness p95 < ${AIMS.freshnessP95Seconds} s (order placed → in the overview)`,
      p95,
      `< ${AIMS.freshnessP95Seconds}`,
      p95 < AIMS.freshnessP95Seconds,
    );
  }
  if (results.maintenance) {
    const cost = results.maintenance.cost;
    aim(
      `maintenance cost <= ${AIMS.maintenanceCost * 100}% of placeOrder req/s`,
      cost,
      `<= ${AIMS.maintenanceCost}`,
      cost <= AIMS.maintenanceCost,
    );
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
  if (results.rebuild) out.push(`rebuild (backfill): ${results.rebuild.seconds} s; analyze ${results.rebuild.analyzeSeconds} s`);
  if (results.baseline) {
    const b = results.baseline;
    out.push(
      `naive baseline (one query over the raw records): p50 ${b.latencyMs.p50} ms (JIT ${b.jit}); figures ${b.matches ? 'EQUAL the overview totals' : `DIFFER from the overview totals: ${JSON.stringify(b.differences)}`}`,
    );
  }
  const rows = [['report', 'p50 ms', 'p95 ms', 'p99 ms', 'req/s', 'compare p50', 'p95', 'p99', 'req/s']];
  for (const [name, r] of Object.entries(results.reports ?? {})) {
    const cells = (v) => (v ? [v.latencyMs.p50, v.latencyMs.p95, v.latencyMs.p99, v.rps] : ['', '', '', '']);
    rows.push([name, ...cells(r.plain), ...cells(r.compare)].map(String));
  }
  const extra = [
    ['overview @8 conn', results.overviewAt8Connections],
    ['builder 3 dims', results.builder],
    ['refusal (422)', results.refusal],
    ['top 5000 rows', results.refusal?.answeredTop5000],
    ['records: a year (422)', results.records?.heavy],
    ['records: 1 category', results.records?.narrow],
  ];
  for (const [name, r] of extra)
    if (r) rows.push([name, r.latencyMs.p50, r.latencyMs.p95, r.latencyMs.p99, r.rps, '', '', '', ''].map(String));
  if (rows.length > 1) {
    const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
    const line = (row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
    out.push('', ...rows.map(line));
  }
  if (results.refusal)
    out.push(`refusal counted ${results.refusal.rowCount} rows; refusal p50 ÷ top-5000 p50 = ${results.refusal.refusedToAnsweredP50}`);
  if (results.freshness) {
    const f = results.freshness;
    out.push(
      `freshness (${f.orders} orders): in the overview p50 ${f.overviewSeconds.p50} s, p95 ${f.overviewSeconds.p95} s; in the status p50 ${f.statusSeconds.p50} s, p95 ${f.statusSeconds.p95} s`,
    );
  }
  if (results.maintenance) {
    const x = results.maintenance;
    out.push(
      `maintenance (${x.shoppers} shoppers, ${x.runs.length} runs): placeOrder ${x.placeOrderRps.on} req/s with triggers, ${x.placeOrderRps.off} without (x${x.placeOrderRatio}); journeys ${x.journeysPerSecond.on}/s vs ${x.journeysPerSecond.off}/s (x${x.journeysRatio}); cost ${round(x.cost * 100, 1)}%`,
    );
  }
  out.push('', ...results.aims.map((a) => `${a.met ? 'MET   ' : 'MISSED'}  ${a.name}: ${a.value} (aim ${a.target})`), '');
  const samples = [
    m?.backgroundCpuPercentBefore,
    ...Object.values(m?.backgroundCpuPercentBeforeEach ?? {}),
    ...(results.maintenance?.runs ?? []).map((run) => run.backgroundCpuPercentBefore),
  ].filter((value) => typeof value === 'number');
  const busiest = Math.max(0, ...samples);
  if (busiest > 10) {
    out.push(
      `note: other work kept up to ${busiest}% of the machine's CPU busy just before a part: a noisy run, absolute numbers are high.`,
      '',
    );
  }
  process.stdout.write(out.join('\n') + '\n');
}

void run(main);
