// `npm run bench:journey`: a shopper's whole journey under load against the built service on real
// PostgreSQL: mint, browse, search, product, add to cart, quote, choose pickup, place the order, list
// orders. Throughput and latency per step, next to a bare-Fastify ceiling measured in the same run.
// See bench/README.md.
//
// Options (also as environment variables): --seconds N (BENCH_SECONDS, default 20),
// --warmup N (BENCH_WARMUP_SECONDS, default 3), --shoppers N (BENCH_SHOPPERS, default 32: concurrent
// journeys; fetch keeps one connection alive per shopper), --update-reference (also replace
// bench/results/journey-reference.json with this run's results).
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import {
  assertBuilt,
  cleanupStack,
  createBenchStore,
  createDatabase,
  getJson,
  load,
  log,
  mintToken,
  startCeiling,
  startService,
  UPDATE_REFERENCE_OPTION,
  withClient,
  writeResults,
} from './lib.js';
import { runJourneys, stepSummaries } from './journey-load.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: process.env.BENCH_SECONDS ?? '20' },
    warmup: { type: 'string', default: process.env.BENCH_WARMUP_SECONDS ?? '3' },
    shoppers: { type: 'string', default: process.env.BENCH_SHOPPERS ?? '32' },
    ...UPDATE_REFERENCE_OPTION,
  },
});
const settings = { seconds: Number(args.seconds), warmupSeconds: Number(args.warmup), shoppers: Number(args.shoppers) };

const { cleanups, run } = cleanupStack();

async function main() {
  assertBuilt();
  const startedAt = new Date();
  const database = await createDatabase('storefront_journey');
  cleanups.push(() => database.drop());
  const service = await startService(database.url);
  cleanups.push(() => service.stop());
  const store = await createBenchStore(database.url);
  // Stock that lasts the run: the journey measures checkout, not refusals for sold-out variants.
  await withClient(database.url, (client) =>
    client.query('update product_variants set stock = 1000000 where store_id = $1', [store.storeId]),
  );
  log(`store ${store.storeId} seeded; service on ${service.base}`);
  await getJson(service.base, '/v1/catalogue/products', await mintToken(service.base, store.apiKey));

  const ceiling = await startCeiling();
  cleanups.push(() => ceiling.stop());
  log(`ceiling: GET /hello on bare Fastify, ${settings.seconds} s at ${settings.shoppers} connections`);
  const ceilingResult = await load(
    { url: `${ceiling.base}/hello`, method: 'GET', headers: {} },
    {
      connections: settings.shoppers,
      seconds: settings.seconds,
      warmupSeconds: settings.warmupSeconds,
    },
  );
  await ceiling.stop();
  cleanups.pop();

  log(`journey: ${settings.shoppers} concurrent shoppers, ${settings.warmupSeconds} s warm-up, ${settings.seconds} s measured`);
  const { recorder, measuredSeconds } = await runJourneys(service.base, store.apiKey, settings);

  const orders = await withClient(database.url, async (client) =>
    Number(
      (await client.query('select count(*) from orders where store_id = $1 and session_id is not null', [store.storeId])).rows[0].count,
    ),
  );
  const serviceOutput = service.output();
  await service.stop();
  cleanups.pop();
  await database.drop();
  cleanups.pop();

  const ceilingRps = ceilingResult.rps.mean;
  const steps = {};
  for (const [step, { requests, rps, latencyMs, failures }] of Object.entries(stepSummaries(recorder, measuredSeconds))) {
    steps[step] = {
      requests,
      rps: Number(rps.toFixed(1)),
      ratioToCeiling: Number((rps / ceilingRps).toFixed(4)),
      latencyMs,
      failures,
    };
  }
  const failures = Object.entries(steps).filter(([, s]) => Object.keys(s.failures).length > 0);
  const results = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    settings: { ...settings, measuredSeconds: Number(measuredSeconds.toFixed(2)) },
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, postgres: database.serverVersion },
    ceiling: { rps: ceilingRps, latencyMs: ceilingResult.latencyMs },
    journeys: {
      completed: recorder.journeys,
      perSecond: Number((recorder.journeys / measuredSeconds).toFixed(1)),
      ordersPlacedInRun: orders,
    },
    steps,
    ok: failures.length === 0,
    firstError: recorder.lastError ?? null,
  };
  await writeResults('journey', results, { startedAt, updateReference: args['update-reference'] });

  const rows = [['step', 'req/s', 'x ceiling', 'p50 ms', 'p95 ms', 'p99 ms', 'failed']];
  rows.push(['ceiling', ceilingRps.toFixed(0), '1', String(ceilingResult.latencyMs.p50), '', String(ceilingResult.latencyMs.p99), '0']);
  for (const [step, s] of Object.entries(steps)) {
    const failed = Object.values(s.failures).reduce((sum, count) => sum + count, 0);
    rows.push([
      step,
      s.rps.toFixed(1),
      s.ratioToCeiling.toFixed(4),
      String(s.latencyMs.p50),
      String(s.latencyMs.p95),
      String(s.latencyMs.p99),
      String(failed),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  process.stdout.write(
    ['', `journey: ${results.journeys.perSecond} complete journeys/s, ${settings.shoppers} shoppers`, ...rows.map(line), ''].join('\n') +
      '\n',
  );
  if (!results.ok) {
    process.stderr.write(`\nBENCH FAILED: some steps did not succeed; first error: ${results.firstError}\n`);
    process.stderr.write(`service output (last lines):\n${serviceOutput.split('\n').slice(-20).join('\n')}\n`);
    process.exitCode = 1;
  }
}

void run(main);
