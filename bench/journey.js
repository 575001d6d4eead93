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

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: process.env.BENCH_SECONDS ?? '20' },
    warmup: { type: 'string', default: process.env.BENCH_WARMUP_SECONDS ?? '3' },
    shoppers: { type: 'string', default: process.env.BENCH_SHOPPERS ?? '32' },
    ...UPDATE_REFERENCE_OPTION,
  },
});
const settings = { seconds: Number(args.seconds), warmupSeconds: Number(args.warmup), shoppers: Number(args.shoppers) };

/** What shoppers type: both languages, a typo and a prefix, drawn from the demo catalogue's vocabulary. */
const SEARCH_TERMS = ['shirt', 'قميص', 'shoes', 'أحذية', 'watch', 'ساعة', 'shrit', 'حقيبة', 'dress', 'فستان', 'jacket', 'عطر'];

const STEPS = ['mint', 'browse', 'search', 'product', 'addToCart', 'quote', 'fulfilment', 'placeOrder', 'orders'];

const cleanups = [];
async function cleanUp() {
  while (cleanups.length > 0)
    await cleanups
      .pop()()
      .catch((error) => log(`clean-up step failed: ${error.message}`));
}

class Recorder {
  constructor() {
    this.samples = Object.fromEntries(STEPS.map((step) => [step, []]));
    this.failures = Object.fromEntries(STEPS.map((step) => [step, {}]));
    this.journeys = 0;
    this.recording = false;
  }

  record(step, ms, status, ok) {
    if (!this.recording) return;
    if (ok) this.samples[step].push(ms);
    else this.failures[step][status] = (this.failures[step][status] ?? 0) + 1;
  }
}

/** One shopper going through the journey again and again until `until`. */
async function shopper(base, apiKey, recorder, until, index) {
  let round = 0;
  while (Date.now() < until) {
    round += 1;
    const call = async (step, method, path, { token, body, headers = {}, expect = 200 } = {}) => {
      const started = performance.now();
      const response = await fetch(base + path, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body ? { 'content-type': 'application/json' } : {}),
          'accept-encoding': 'gzip, deflate, br',
          ...headers,
        },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      const ms = performance.now() - started;
      const ok = response.status === expect;
      recorder.record(step, ms, response.status, ok);
      if (!ok) throw new Error(`${step}: ${response.status} ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : null;
    };
    try {
      const session = await call('mint', 'POST', '/v1/auth/anonymous', { headers: { 'x-api-key': apiKey }, body: {}, expect: 201 });
      const token = session.accessToken;
      const page = await call('browse', 'GET', '/v1/catalogue/products?limit=20', { token });
      const term = SEARCH_TERMS[(index + round) % SEARCH_TERMS.length];
      const found = await call('search', 'GET', `/v1/search?q=${encodeURIComponent(term)}&limit=20`, { token });
      const candidates = found.items.length > 0 ? found.items : page.items;
      const chosen = candidates[(index * 7 + round) % candidates.length];
      const product = await call('product', 'GET', `/v1/catalogue/products/${encodeURIComponent(chosen.slug)}`, { token });
      const variant = product.variants[round % product.variants.length];
      await call('addToCart', 'POST', '/v1/cart/items', { token, body: { variantId: variant.id, quantity: 1 } });
      const quote = await call('quote', 'POST', '/v1/checkout/quote', { token, body: {} });
      const pickup = quote.options.pickup[0];
      await call('fulfilment', 'POST', '/v1/checkout/fulfilment', { token, body: { type: 'pickup', pickupLocationId: pickup.id } });
      await call('placeOrder', 'POST', '/v1/checkout/orders', {
        token,
        headers: { 'idempotency-key': `bench-${index}-${round}-${session.sessionId}` },
        body: { paymentMethod: 'cash_on_delivery', email: `shopper${index}@bench.example` },
        expect: 201,
      });
      await call('orders', 'GET', '/v1/orders', { token });
      if (recorder.recording) recorder.journeys += 1;
    } catch (error) {
      if (recorder.recording && recorder.lastError === undefined) recorder.lastError = error.message;
    }
  }
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return Number(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)].toFixed(2));
}

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
  const recorder = new Recorder();
  const until = Date.now() + (settings.warmupSeconds + settings.seconds) * 1000;
  const startRecording = setTimeout(() => {
    recorder.recording = true;
    recorder.recordingStartedAt = performance.now();
  }, settings.warmupSeconds * 1000);
  await Promise.all(Array.from({ length: settings.shoppers }, (_, index) => shopper(service.base, store.apiKey, recorder, until, index)));
  clearTimeout(startRecording);
  const measuredSeconds = (performance.now() - recorder.recordingStartedAt) / 1000;

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
  for (const step of STEPS) {
    const sorted = recorder.samples[step].sort((a, b) => a - b);
    const rps = sorted.length / measuredSeconds;
    steps[step] = {
      requests: sorted.length,
      rps: Number(rps.toFixed(1)),
      ratioToCeiling: Number((rps / ceilingRps).toFixed(4)),
      latencyMs: { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: percentile(sorted, 100) },
      failures: recorder.failures[step],
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

for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
main()
  .catch((error) => {
    process.stderr.write(`\nBENCH FAILED: ${error?.stack ?? error}\n`);
    process.exitCode = 1;
  })
  .finally(cleanUp);
