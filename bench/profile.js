// Where the time goes. `npm run build` first, then:
//   node bench/profile.js [--scenarios list,mint,detail] [--seconds 10] [--warmup 2] [--connections 50] [--out DIR] [--no-sql]
//                         [--telemetry] [--update-reference]
//   node bench/profile.js summarize FILE.cpuprofile [...]
// For each scenario: the service runs under bench/profiled-main.js, is loaded like in bench/run.js,
// and a CPU profile covers exactly the measured window; the self time is then aggregated by function
// and by package. Then the PostgreSQL side: the exact SQL of the catalogue list, the product detail
// and the mint (captured by running the compiled services against a logging Kysely), EXPLAIN
// (ANALYZE, BUFFERS), and the query's own rate with 1 and with 20 connections, without the service
// (and with 20 as a prepared statement, to show what re-planning at every call costs).
// Writes bench/results/profile-<timestamp>.json (profile-reference.json too with --update-reference); the
// .cpuprofile files go to --out (default: a temp dir)
// and open in Chrome DevTools or speedscope. --telemetry profiles the service with traces (to a local OTLP
// sink; the bench's own OTEL_* variables, a sampler say, are passed on) and metrics on: where their cost goes.
import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import {
  assertBuilt,
  createBenchStore,
  createDatabase,
  freePort,
  getJson,
  load,
  log,
  mintToken,
  ROOT,
  scenarioRequests,
  startOtlpSink,
  startService,
  UPDATE_REFERENCE_OPTION,
  writeResults,
} from './lib.js';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    scenarios: { type: 'string', default: 'list,mint' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    out: { type: 'string', default: resolve(tmpdir(), 'storefront-bench-profiles') },
    top: { type: 'string', default: '25' },
    'no-sql': { type: 'boolean', default: false },
    telemetry: { type: 'boolean', default: false },
    ...UPDATE_REFERENCE_OPTION,
  },
});
const TOP = Number(args.top);

// ---------------------------------------------------------------------------------------------
// .cpuprofile aggregation

/** Which bucket a frame's URL belongs to: a package, node's own modules, the app, or a VM pseudo-frame. */
function areaOf(callFrame) {
  const { url, functionName } = callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:'))
    return url
      .replace(/^node:(internal\/)?/, 'node:')
      .split('/')
      .slice(0, 2)
      .join('/');
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const app = url.indexOf('/dist/src/');
  if (app >= 0)
    return `app:${
      url
        .slice(app + '/dist/src/'.length)
        .split('/')
        .slice(0, -1)
        .join('/') || '.'
    }`;
  if (url.includes('/bench/')) return 'bench';
  return url;
}

function shortUrl(url) {
  if (!url) return '';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + '/node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url.replace(/^file:\/\//, '');
}

export function summariseProfile(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Time per sample: the delta to the next sample (the last one gets the mean).
  const { samples, timeDeltas } = profile;
  const totalUs = profile.endTime - profile.startTime;
  const meanUs = totalUs / Math.max(1, samples.length);
  const selfUs = new Map();
  const inclusiveArea = new Map();
  for (let i = 0; i < samples.length; i += 1) {
    const dt = i + 1 < timeDeltas.length ? Math.max(0, timeDeltas[i + 1]) : meanUs;
    const id = samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const area = areaOf(byId.get(at).callFrame);
      if (area === '(root)') continue;
      if (!seen.has(area)) {
        seen.add(area);
        inclusiveArea.set(area, (inclusiveArea.get(area) ?? 0) + dt);
      }
    }
  }

  const byFunction = new Map();
  const byArea = new Map();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    const name =
      `${callFrame.functionName || '(anonymous)'} ${shortUrl(callFrame.url)}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`.trim();
    const area = areaOf(callFrame);
    const entry = byFunction.get(name) ?? { function: name, area, selfUs: 0 };
    entry.selfUs += us;
    byFunction.set(name, entry);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  const idleUs = byArea.get('(idle)') ?? 0;
  const busyUs = totalUs - idleUs;
  const pct = (us, of) => Number(((100 * us) / Math.max(1, of)).toFixed(1));
  return {
    wallMs: Math.round(totalUs / 1000),
    busyMs: Math.round(busyUs / 1000),
    idlePercent: pct(idleUs, totalUs),
    note: 'percentages are of busy (non-idle) time',
    topFunctionsBySelf: [...byFunction.values()]
      .filter((entry) => entry.area !== '(idle)')
      .sort((a, b) => b.selfUs - a.selfUs)
      .slice(0, TOP)
      .map((entry) => ({
        function: entry.function,
        area: entry.area,
        selfMs: Math.round(entry.selfUs / 1000),
        selfPercent: pct(entry.selfUs, busyUs),
      })),
    selfByArea: [...byArea.entries()]
      .filter(([area]) => area !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([area, us]) => ({ area, selfMs: Math.round(us / 1000), selfPercent: pct(us, busyUs) })),
    inclusiveByArea: [...inclusiveArea.entries()]
      .filter(([area]) => area !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([area, us]) => ({ area, inclusiveMs: Math.round(us / 1000), inclusivePercent: pct(us, busyUs) })),
  };
}

function printSummary(title, summary) {
  const out = [
    `\n## ${title}: ${summary.wallMs} ms profiled, ${summary.busyMs} ms busy (${summary.idlePercent}% idle)`,
    '',
    'self time by function (% of busy):',
  ];
  for (const entry of summary.topFunctionsBySelf)
    out.push(`  ${String(entry.selfPercent).padStart(5)}%  ${String(entry.selfMs).padStart(6)} ms  ${entry.function}`);
  out.push('', 'self time by package / area:');
  for (const entry of summary.selfByArea) out.push(`  ${String(entry.selfPercent).padStart(5)}%  ${entry.area}`);
  out.push('', 'inclusive time by package / area (on the stack):');
  for (const entry of summary.inclusiveByArea) out.push(`  ${String(entry.inclusivePercent).padStart(5)}%  ${entry.area}`);
  process.stdout.write(out.join('\n') + '\n');
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL side

async function captureQueries(databaseUrl, store) {
  const { Kysely, PostgresDialect } = await import('kysely');
  const dist = (path) => import(pathToFileURL(resolve(ROOT, 'dist/src', path)).href);
  const { CatalogueService } = await dist('storefront/catalogue/catalogue.service.js');
  const { SessionService } = await dist('auth/session.service.js');
  const { SessionWriter } = await dist('auth/session-writer.js');
  const { SCOPES } = await dist('auth/access/scopes.js');
  const { loadConfig } = await dist('infra/config/app-config.js');

  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const captured = [];
  const db = new Kysely({
    dialect: new PostgresDialect({ pool }),
    log: (event) => captured.push({ sql: event.query.sql, parameters: event.query.parameters }),
  });
  const em = { fork: () => em, getKysely: () => db, transactional: (work) => work(em) };
  const take = async (work) => {
    captured.length = 0;
    const result = await work();
    return { ...captured.at(-1), result };
  };
  try {
    const catalogue = new CatalogueService(em);
    const list = await take(() => catalogue.listProducts(store.storeId, {}));
    const slug = JSON.parse(list.result.page.body).items[0].slug;
    const detail = await take(() => catalogue.getProduct(store.storeId, slug));
    const sessions = new SessionService(
      em,
      { sign: async () => ({ token: 'x', expiresAt: new Date() }) },
      new SessionWriter(em),
      loadConfig({}),
      // The session_started event goes out apart from the mint, in the recorder's own batched statement.
      { record: () => undefined },
    );
    const mint = await take(() =>
      sessions.mint({ id: store.apiKeyId, storeId: store.storeId, scopes: [...SCOPES], rateLimitPerMinute: 1 }, 'bearer'),
    );
    return {
      list: { sql: list.sql, parameters: list.parameters, responseBytes: list.result.page.body.length },
      detail: { sql: detail.sql, parameters: detail.parameters, responseBytes: detail.result.page.body.length },
      // parameters 0 and 4: the batch's session ids and refresh-token hashes, unique per execution
      mint: { sql: mint.sql, parameters: mint.parameters, writes: true, unique: [0, 4] },
    };
  } finally {
    await db.destroy();
  }
}

/** A write's unique values (session ids, refresh token hashes) must differ at every execution. */
function parametersOf(query) {
  if (!query.writes) return query.parameters;
  const fresh = (value) => (/^[0-9a-f]{64}$/.test(value) ? randomBytes(32).toString('hex') : randomUUID());
  return query.parameters.map((value, index) => (query.unique.includes(index) ? value.map(fresh) : value));
}

async function explainAndTime(databaseUrl, name, query) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let plan;
  try {
    if (query.writes) await client.query('begin');
    // Warm the caches and the plan first, as the service's pool would have.
    for (let i = 0; i < 20; i += 1) await client.query(query.sql, parametersOf(query));
    const { rows } = await client.query(`explain (analyze, buffers, verbose off) ${query.sql}`, parametersOf(query));
    plan = rows.map((row) => row['QUERY PLAN']);
    if (query.writes) await client.query('rollback');
  } finally {
    await client.end();
  }
  const timing = (line) => Number(/([\d.]+) ms/.exec(plan.find((l) => l.startsWith(line)) ?? '')?.[1] ?? NaN);

  // The query's own rate, without the service: 1 connection, then 20 (the service's pool size).
  // Writes commit one by one, as the service's do (rows land in the throw-away database).
  // Rows stay text (no JSON.parse here), so the rate is PostgreSQL's and the wire's, not this process's.
  const rate = async (connections, ms, prepared = false) => {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: connections, types: { getTypeParser: () => (value) => value } });
    const latencies = [];
    const deadline = Date.now() + ms;
    const worker = async () => {
      const client = await pool.connect();
      try {
        while (Date.now() < deadline) {
          const started = performance.now();
          await client.query(
            prepared
              ? { name: `bench_${name}`, text: query.sql, values: parametersOf(query) }
              : { text: query.sql, values: parametersOf(query) },
          );
          latencies.push(performance.now() - started);
        }
      } finally {
        client.release();
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
    await pool.end();
    latencies.sort((a, b) => a - b);
    const at = (p) => Number(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(2));
    return { connections, prepared, queriesPerSecond: Math.round(latencies.length / (ms / 1000)), p50Ms: at(0.5), p99Ms: at(0.99) };
  };
  const serial = await rate(1, 3000);
  const concurrent = await rate(20, 3000);
  // The same as a named prepared statement: planned once per connection instead of at every call.
  const concurrentPrepared = await rate(20, 3000, true);
  return { name, planningMs: timing('Planning Time'), executionMs: timing('Execution Time'), plan, serial, concurrent, concurrentPrepared };
}

// ---------------------------------------------------------------------------------------------

async function profileScenarios() {
  assertBuilt();
  const settings = { seconds: Number(args.seconds), warmupSeconds: Number(args.warmup), connections: Number(args.connections) };
  const names = args.scenarios
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  await mkdir(args.out, { recursive: true });
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/:/g, '-');
  const database = await createDatabase();
  const report = {
    startedAt: startedAt.toISOString(),
    settings,
    postgres: database.serverVersion,
    node: process.version,
    scenarios: {},
    sql: {},
  };
  let service;
  let sinkStop = async () => {};
  try {
    const env = {};
    if (args.telemetry) {
      const sink = await startOtlpSink();
      sinkStop = () => sink.stop();
      Object.assign(env, Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('OTEL_'))), {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        METRICS_PORT: String(await freePort()),
      });
      report.telemetry = env;
    }
    service = await startService(database.url, { entry: resolve(ROOT, 'bench/profiled-main.js'), env });
    const store = await createBenchStore(database.url);
    const token = await mintToken(service.base, store.apiKey);
    const page = await getJson(service.base, '/v1/catalogue/products', token);
    const requests = scenarioRequests({ base: service.base, apiKey: store.apiKey, token, slug: page.items[0].slug });

    const ask = (cmd, extra = {}) =>
      new Promise((done, fail) => {
        const onMessage = (message) => {
          if (message?.event === 'error') fail(new Error(message.message));
          else done(message);
          service.child.off('message', onMessage);
        };
        service.child.on('message', onMessage);
        service.child.send({ cmd, ...extra });
      });

    for (const name of names) {
      const request = requests[name];
      if (!request) throw new Error(`unknown scenario ${name} (mint, list, detail)`);
      log(
        `${request.title}: ${settings.warmupSeconds} s warm-up, then ${settings.seconds} s profiled at ${settings.connections} connections`,
      );
      if (settings.warmupSeconds > 0) await load(request, { ...settings, seconds: settings.warmupSeconds, warmupSeconds: 0 });
      await ask('start');
      const result = await load(request, { ...settings, warmupSeconds: 0 });
      const file = resolve(args.out, `${name}-${stamp}.cpuprofile`);
      await ask('stop', { file });
      const summary = summariseProfile(JSON.parse(await readFile(file, 'utf8')));
      report.scenarios[name] = {
        title: request.title,
        profile: file,
        load: { rps: result.rps.mean, latencyMs: result.latencyMs, non2xx: result.non2xx },
        ...summary,
      };
      printSummary(`${request.title} — ${result.rps.mean} req/s, p99 ${result.latencyMs.p99} ms`, summary);
      await sleep(500);
    }
    await service.stop();
    service = undefined;

    if (!args['no-sql']) {
      log('PostgreSQL side: capturing the SQL, EXPLAIN ANALYZE, query rate with 1 and 20 connections');
      let queries = {};
      try {
        queries = await captureQueries(database.url, store);
      } catch (error) {
        log(`could not capture the SQL from the compiled services (their constructors changed?): ${error.message}`);
      }
      for (const [name, query] of Object.entries(queries)) {
        const timed = await explainAndTime(database.url, name, query);
        report.sql[name] = {
          ...timed,
          sql: query.sql.replace(/\s+/g, ' ').trim(),
          parameters: query.parameters,
          responseBytes: query.responseBytes,
        };
        process.stdout.write(
          `\n## SQL ${name}: planning ${timed.planningMs} ms, execution ${timed.executionMs} ms (EXPLAIN ANALYZE)` +
            `${query.responseBytes ? `, document ${query.responseBytes} bytes` : ''}\n` +
            `   alone: 1 connection ${timed.serial.queriesPerSecond} q/s (p50 ${timed.serial.p50Ms} ms); ` +
            `20 connections ${timed.concurrent.queriesPerSecond} q/s (p50 ${timed.concurrent.p50Ms} ms, p99 ${timed.concurrent.p99Ms} ms); ` +
            `prepared, 20 connections ${timed.concurrentPrepared.queriesPerSecond} q/s\n` +
            timed.plan.map((line) => `   ${line}`).join('\n') +
            '\n',
        );
      }
    }
  } finally {
    if (service) await service.stop();
    await sinkStop();
    await database.drop();
  }
  await writeResults('profile', report, { startedAt, updateReference: args['update-reference'] });
  log(`profiles in ${args.out}`);
}

async function summarizeFiles(files) {
  for (const file of files) printSummary(file, summariseProfile(JSON.parse(await readFile(file, 'utf8'))));
}

const work = positionals[0] === 'summarize' ? summarizeFiles(positionals.slice(1)) : profileScenarios();
work.catch((error) => {
  process.stderr.write(`profile failed: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
