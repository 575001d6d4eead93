// `npm run bench`: throughput and latency of the built service against a bare-Fastify ceiling,
// all in one run on this machine. See bench/README.md.
//
// Options (also as environment variables): --seconds N (BENCH_SECONDS, default 10),
// --warmup N (BENCH_WARMUP_SECONDS, default 2), --connections N (BENCH_CONNECTIONS, default 50),
// --only mint,list,listIdentity,detail,listUncached (default all; the ceiling always runs),
// --telemetry (also the catalogue and mint scenarios on fresh pairs of instances, one with traces and metrics
// on and one without, measured alternately; see bench/README.md), --telemetry-aa (the same with telemetry off on
// both sides of each pair: the method's own bias, which should read 1), --telemetry-rounds N (BENCH_TELEMETRY_ROUNDS,
// default 3: pairs of fresh instances), --telemetry-only (the pairs alone: neither the ceiling nor the bench's own
// instance is measured),
// --update-reference (also replace bench/results/bench-reference.json with this run's results).
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import {
  assertBuilt,
  backgroundCpuPercent,
  cleanupStack,
  createBenchStore,
  createDatabase,
  freePort,
  getJson,
  gitCommit,
  load,
  log,
  machineInfo,
  mintToken,
  pinToProcessors,
  processCpuSeconds,
  scenarioRequests,
  scrapeEvery,
  startCeiling,
  startOtlpSink,
  startService,
  UPDATE_REFERENCE_OPTION,
  writeResults,
} from './lib.js';

const AIMS = { listRatio: 0.3, mintRatio: 0.1, p99Ms: 25 };

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: process.env.BENCH_SECONDS ?? '10' },
    warmup: { type: 'string', default: process.env.BENCH_WARMUP_SECONDS ?? '2' },
    connections: { type: 'string', default: process.env.BENCH_CONNECTIONS ?? '50' },
    only: { type: 'string', default: 'mint,list,listIdentity,detail,listUncached' },
    telemetry: { type: 'boolean', default: false },
    'telemetry-aa': { type: 'boolean', default: false },
    'telemetry-rounds': { type: 'string', default: process.env.BENCH_TELEMETRY_ROUNDS ?? '3' },
    'telemetry-only': { type: 'boolean', default: false },
    ...UPDATE_REFERENCE_OPTION,
  },
});
const settings = { seconds: Number(args.seconds), warmupSeconds: Number(args.warmup), connections: Number(args.connections) };
const only = new Set(args.only.split(',').map((name) => name.trim()));
const telemetryOnly = args['telemetry-only'];
const compareTelemetryToo = args.telemetry || args['telemetry-aa'] || telemetryOnly;

const { cleanups, run } = cleanupStack();

async function main() {
  assertBuilt();
  const startedAt = new Date();
  const database = await createDatabase();
  cleanups.push(() => database.drop());
  log(`database ${database.name} (PostgreSQL ${database.serverVersion})`);

  const service = await startService(database.url);
  cleanups.push(() => service.stop());
  log(`service on ${service.base}`);

  const store = await createBenchStore(database.url);
  log(`store ${store.storeId}: ${JSON.stringify(store.seeded)}`);
  const token = await mintToken(service.base, store.apiKey);
  const page = await getJson(service.base, '/v1/catalogue/products', token);
  if (!Array.isArray(page.items) || page.items.length === 0) throw new Error('the seeded store lists no products');
  const slug = page.items[0].slug;
  await getJson(service.base, `/v1/catalogue/products/${encodeURIComponent(slug)}`, token);
  const requests = scenarioRequests({ base: service.base, apiKey: store.apiKey, token, slug });

  const scenarios = {};
  const measure = async (name, title, request, run) => {
    log(`${title}: ${settings.warmupSeconds} s warm-up, ${settings.seconds} s at ${settings.connections} connections`);
    const otherCpu = await backgroundCpuPercent();
    const result = await run();
    scenarios[name] = {
      title,
      method: request.method,
      path: new URL(request.url).pathname,
      backgroundCpuPercentBefore: otherCpu,
      ...result,
    };
  };

  const serviceScenarios = ['mint', 'list', 'listIdentity', 'detail'].filter((name) => only.has(name));
  if (!telemetryOnly) {
    // (a) the ceiling, measured while the service idles (it is started, but receives nothing).
    const ceiling = await startCeiling();
    cleanups.push(() => ceiling.stop());
    const ceilingRequest = { url: `${ceiling.base}/hello`, method: 'GET', headers: {} };
    await measure('ceiling', 'GET /hello on bare Fastify (ceiling)', ceilingRequest, () => load(ceilingRequest, settings));
    await ceiling.stop();
    cleanups.pop();

    // One warm-up pass over every scenario first, so that none is measured while the process is still
    // compiling or filling caches that a later one then enjoys (order would otherwise skew the figures).
    for (const name of serviceScenarios) await load(requests[name], { ...settings, seconds: settings.warmupSeconds, warmupSeconds: 0 });
    for (const name of serviceScenarios) {
      await measure(name, requests[name].title, requests[name], () => load(requests[name], settings));
    }

    // The same list with the catalogue cache off: what every cache miss costs (one PostgreSQL query per page).
    if (only.has('listUncached')) {
      const uncached = await startService(database.url, { env: { CATALOGUE_CACHE_SECONDS: '0' } });
      cleanups.push(() => uncached.stop());
      const request = {
        ...requests.list,
        title: 'GET /v1/catalogue/products (catalogue cache off)',
        url: requests.list.url.replace(service.base, uncached.base),
      };
      await measure('listUncached', request.title, request, () => load(request, settings));
      await uncached.stop();
      cleanups.pop();
    }
  }

  const telemetry = compareTelemetryToo
    ? await compareTelemetry(database.url, { apiKey: store.apiKey, slug, names: serviceScenarios, control: args['telemetry-aa'] })
    : undefined;

  const serviceOutput = service.output();
  await service.stop();
  cleanups.pop();
  await database.drop();
  cleanups.pop();

  // Ratios and verdicts.
  const ceilingRps = scenarios.ceiling?.rps.mean;
  if (ceilingRps)
    for (const [name, scenario] of Object.entries(scenarios)) {
      if (name !== 'ceiling') scenario.ratioToCeiling = Number((scenario.rps.mean / ceilingRps).toFixed(3));
    }
  const aims = [];
  if (scenarios.list)
    aims.push(
      aim(
        'catalogue list rps >= 30% of ceiling',
        scenarios.list.ratioToCeiling,
        `>= ${AIMS.listRatio}`,
        scenarios.list.ratioToCeiling >= AIMS.listRatio,
      ),
    );
  if (scenarios.mint)
    aims.push(
      aim(
        'mint rps >= 10% of ceiling',
        scenarios.mint.ratioToCeiling,
        `>= ${AIMS.mintRatio}`,
        scenarios.mint.ratioToCeiling >= AIMS.mintRatio,
      ),
    );
  for (const name of ['mint', 'list', 'detail']) {
    if (scenarios[name])
      aims.push(
        aim(`${name} p99 < ${AIMS.p99Ms} ms`, scenarios[name].latencyMs.p99, `< ${AIMS.p99Ms}`, scenarios[name].latencyMs.p99 < AIMS.p99Ms),
      );
  }
  const failures = Object.entries(scenarios)
    .filter(([, s]) => s.non2xx > 0 || s.errors > 0 || s.timeouts > 0)
    .map(
      ([name, s]) => `${name}: non2xx=${s.non2xx} errors=${s.errors} timeouts=${s.timeouts} statusCodes=${JSON.stringify(s.statusCodes)}`,
    );

  const results = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    settings,
    commit: await gitCommit(),
    machine: await machineInfo(database.serverVersion),
    service: {
      rateLimitStore: process.env.REDIS_URL ? 'redis' : 'memory',
      logLevel: process.env.BENCH_LOG_LEVEL || 'warn',
      catalogue: store.seeded,
    },
    scenarios,
    ...(telemetry ? { telemetry } : {}),
    aims,
    ok: failures.length === 0,
    failures,
  };

  printTable(results);
  if (telemetry) printTelemetry(telemetry);
  await writeResults('bench', results, { startedAt, updateReference: args['update-reference'] });
  if (failures.length > 0) {
    process.stderr.write(`\nBENCH FAILED: requests that did not succeed:\n  ${failures.join('\n  ')}\n`);
    const tail = serviceOutput.split('\n').slice(-30).join('\n');
    if (tail.trim()) process.stderr.write(`service output (last lines):\n${tail}\n`);
    process.exitCode = 1;
  }
}

/** Scrapes of the metrics, as often as this, while an instance with telemetry on is measured. */
const SCRAPE_MS = 5000;
/** Pairs of fresh instances, one with telemetry off and one on. */
const TELEMETRY_ROUNDS = Number(args['telemetry-rounds']);
/** A fresh instance's warm-up per scenario: after 2 or 3 s, identical instances still differed by a fifth. */
const TELEMETRY_WARMUP_SECONDS = 5;
/** Each scenario is measured in slices this long, one instance of the pair, then the other, and again. */
const TELEMETRY_SLICE_SECONDS = 2;
/** Slices of each side, per scenario and round. */
const TELEMETRY_SLICES = 5;

/**
 * Telemetry's cost: in each of TELEMETRY_ROUNDS rounds, two fresh instances on the bench's database, one with
 * telemetry off and one on (traces over OTLP to a local sink with the service's default sampler, or the bench's
 * own OTEL_* variables; metrics for Prometheus on METRICS_PORT, read every SCRAPE_MS, and over OTLP). Each scenario
 * is measured in short slices, the two instances in turn (off, on, on, off…), so that what else the shared machine
 * does in a given second weighs on both alike: measured ten seconds at a time, one after the other, identical
 * instances differed by up to a fifth. Fresh pairs, because two identical instances also differ for life (up to a
 * third in requests per second). Besides requests per second, each slice counts the CPU time the instance used
 * (/proc), so that the cost per request is read directly. The bench's first instance idles meanwhile.
 * On a machine of two processors or more, the bench keeps to the first and the measured instances to the second, so
 * that the load and the instance never take turns on one processor, and the two instances meet the same one.
 * With `control`, both instances of each pair run with telemetry off: the method's own bias, which should read 1.
 */
async function compareTelemetry(databaseUrl, { apiKey, slug, names, control }) {
  const processors = availableParallelism();
  const pinned = processors >= 2 && (await pinToProcessors(process.pid, '0'));
  if (pinned) cleanups.push(() => pinToProcessors(process.pid, `0-${processors - 1}`));
  const sink = await startOtlpSink();
  cleanups.push(() => sink.stop());
  // The bench's own OTEL_* variables (a sampler…) go to the instances with telemetry on only.
  const otel = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('OTEL_')));
  const slices = Object.fromEntries(names.map((name) => [name, { off: [], on: [] }]));
  const scrapes = { ok: 0, failed: 0 };
  for (let round = 1; round <= TELEMETRY_ROUNDS; round++) {
    const metricsPort = await freePort();
    const instances = {
      off: await startService(databaseUrl),
      on: await startService(databaseUrl, {
        env: control ? {} : { ...otel, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, METRICS_PORT: String(metricsPort) },
      }),
    };
    const stopInstances = () => Promise.all(Object.values(instances).map((instance) => instance.stop()));
    cleanups.push(stopInstances);
    if (pinned) for (const instance of Object.values(instances)) await pinToProcessors(instance.child.pid, '1');
    const requests = {};
    for (const [side, instance] of Object.entries(instances)) {
      requests[side] = scenarioRequests({ base: instance.base, apiKey, token: await mintToken(instance.base, apiKey), slug });
      for (const name of names) await load(requests[side][name], { ...settings, seconds: TELEMETRY_WARMUP_SECONDS, warmupSeconds: 0 });
    }
    const scraper = control ? undefined : scrapeEvery(`http://127.0.0.1:${metricsPort}/metrics`, SCRAPE_MS);
    for (const name of names) {
      log(
        `telemetry round ${round}/${TELEMETRY_ROUNDS}, ${name}: ${TELEMETRY_SLICES} slices of ${TELEMETRY_SLICE_SECONDS} s on each instance in turn (off ${instances.off.base}, on ${instances.on.base}${control ? ', both off' : ''})`,
      );
      for (let slice = 0; slice < TELEMETRY_SLICES; slice++) {
        for (const side of (round + slice) % 2 === 0 ? ['off', 'on'] : ['on', 'off']) {
          const pid = instances[side].child.pid;
          const cpuBefore = processCpuSeconds(pid);
          const result = await load(requests[side][name], { ...settings, seconds: TELEMETRY_SLICE_SECONDS, warmupSeconds: 0 });
          const cpuAfter = processCpuSeconds(pid);
          slices[name][side].push({
            round,
            requests: result.requests,
            cpuSeconds: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
            p99Ms: result.latencyMs.p99,
            failed: result.non2xx + result.errors + result.timeouts,
          });
        }
      }
    }
    const scraped = scraper?.stop() ?? { ok: 0, failed: 0 };
    scrapes.ok += scraped.ok;
    scrapes.failed += scraped.failed;
    await stopInstances();
    cleanups.pop();
  }
  await sink.stop();
  cleanups.pop();
  if (pinned) await cleanups.pop()();

  const scenarios = Object.fromEntries(
    Object.entries(slices).map(([name, { off, on }]) => {
      const [withoutTelemetry, withTelemetry] = [telemetrySide(off), telemetrySide(on)];
      const ratio = (a, b) => Number((a / b).toFixed(3));
      const sliceRatios = on.map((slice, i) => slice.requests / off[i].requests).sort((a, b) => a - b);
      const rounds = Array.from({ length: TELEMETRY_ROUNDS }, (_, i) => i + 1);
      return [
        name,
        {
          off: withoutTelemetry,
          on: withTelemetry,
          rpsRatio: ratio(withTelemetry.rps, withoutTelemetry.rps),
          cpuPerRequestRatio:
            withTelemetry.cpuMicrosPerRequest && withoutTelemetry.cpuMicrosPerRequest
              ? ratio(withTelemetry.cpuMicrosPerRequest, withoutTelemetry.cpuMicrosPerRequest)
              : null,
          roundRatios: rounds.map((r) =>
            ratio(telemetrySide(on.filter((s) => s.round === r)).rps, telemetrySide(off.filter((s) => s.round === r)).rps),
          ),
          sliceRatios: {
            min: ratio(sliceRatios[0], 1),
            median: ratio(sliceRatios[Math.floor(sliceRatios.length / 2)], 1),
            max: ratio(sliceRatios.at(-1), 1),
          },
        },
      ];
    }),
  );
  return {
    control: Boolean(control),
    pinned,
    env: otel,
    rounds: TELEMETRY_ROUNDS,
    slices: TELEMETRY_SLICES,
    sliceSeconds: TELEMETRY_SLICE_SECONDS,
    scrapeSeconds: SCRAPE_MS / 1000,
    scrapes,
    otlp: sink.received,
    scenarios,
  };
}

/** One side's slices together: requests per second, CPU per request, the slices' mean p99, and the failures. */
function telemetrySide(slices) {
  const requests = slices.reduce((sum, slice) => sum + slice.requests, 0);
  const cpuSeconds = slices.every((slice) => slice.cpuSeconds !== null) ? slices.reduce((sum, slice) => sum + slice.cpuSeconds, 0) : null;
  return {
    rps: Number((requests / (slices.length * TELEMETRY_SLICE_SECONDS)).toFixed(1)),
    cpuMicrosPerRequest: cpuSeconds === null || requests === 0 ? null : Number(((cpuSeconds * 1e6) / requests).toFixed(1)),
    p99Ms: Number((slices.reduce((sum, slice) => sum + slice.p99Ms, 0) / slices.length).toFixed(2)),
    failed: slices.reduce((sum, slice) => sum + slice.failed, 0),
  };
}

function printTelemetry({ control, scenarios, scrapes, otlp }) {
  const rows = [
    [
      control ? 'control (both off)' : 'telemetry',
      'off req/s',
      'on req/s',
      'on / off',
      'by round',
      'slice pairs min med max',
      'CPU µs/req off',
      'on',
      'on / off',
      'p99 ms off',
      'on',
    ],
  ];
  for (const [name, r] of Object.entries(scenarios)) {
    rows.push([
      name,
      r.off.rps.toFixed(0),
      r.on.rps.toFixed(0),
      r.rpsRatio.toFixed(3),
      r.roundRatios.map((ratio) => ratio.toFixed(2)).join(' '),
      [r.sliceRatios.min, r.sliceRatios.median, r.sliceRatios.max].map((ratio) => ratio.toFixed(2)).join(' '),
      String(r.off.cpuMicrosPerRequest ?? '-'),
      String(r.on.cpuMicrosPerRequest ?? '-'),
      r.cpuPerRequestRatio?.toFixed(3) ?? '-',
      String(r.off.p99Ms),
      String(r.on.p99Ms),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  const sent = Object.entries(otlp).map(([path, c]) => `${path} ${c.requests} requests, ${(c.bytes / 1e6).toFixed(1)} MB`);
  process.stdout.write(
    [
      line(rows[0]),
      ...rows.slice(1).map(line),
      `OTLP received: ${sent.join('; ') || 'nothing'}; metrics scrapes: ${scrapes.ok} ok, ${scrapes.failed} failed`,
      '',
    ].join('\n') + '\n',
  );
}

function aim(name, value, target, met) {
  return { name, value, target, met };
}

function printTable({ scenarios, aims, machine, settings: s }) {
  const rows = [['scenario', 'req/s', 'x ceiling', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'non2xx']];
  for (const [name, r] of Object.entries(scenarios)) {
    rows.push(
      [
        name,
        r.rps.mean.toFixed(0),
        name === 'ceiling' ? '1' : r.ratioToCeiling.toFixed(3),
        r.latencyMs.p50,
        r.latencyMs.p90,
        r.latencyMs.p99,
        r.latencyMs.max,
        r.non2xx + r.errors + r.timeouts,
      ].map(String),
    );
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  const out = [
    '',
    `${machine.cpus} x ${machine.cpuModel}, node ${machine.node}, PostgreSQL ${machine.postgres}; ${s.connections} connections, ${s.seconds} s (+${s.warmupSeconds} s warm-up)`,
    line(rows[0]),
    ...rows.slice(1).map(line),
    '',
    ...aims.map((a) => `${a.met ? 'MET   ' : 'MISSED'}  ${a.name}: ${a.value} (aim ${a.target})`),
    '',
  ];
  const busiest = Math.max(...Object.values(scenarios).map((r) => r.backgroundCpuPercentBefore ?? 0));
  if (busiest > 10) {
    out.push(
      `note: other work kept up to ${busiest}% of the machine's CPU busy just before a scenario: absolute numbers are low, ratios less affected.`,
      '',
    );
  }
  process.stdout.write(out.join('\n') + '\n');
}

void run(main);
