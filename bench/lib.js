// Shared set-up for the benches: a throw-away database, the built service as a child process, a store with
// a high-limit key and a seeded catalogue, and autocannon runs; for bench/insights.js and bench/exports.js
// also a database that can outlive the run, a seeded pro-plan store and a signed-in staff owner.
import autocannon from 'autocannon';
import { execFile, fork, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { cpus, freemem, loadavg, platform, release, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';

export const ROOT = resolve(import.meta.dirname, '..');
export const MAIN = resolve(ROOT, 'dist/src/main.js');
export const CLI = resolve(ROOT, 'dist/src/cli.js');
/** The Node flags `npm start` gives the service (package.json's start script): the benches measure it as it ships. */
export const SERVICE_NODE_FLAGS = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')).scripts.start.match(/(?<= )--\S+/g) ?? [];
export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const RESULTS_DIR = resolve(ROOT, 'bench/results');

/** The option every bench takes: also replace its committed reference result with this run's. */
export const UPDATE_REFERENCE_OPTION = { 'update-reference': { type: 'boolean', default: false } };

/**
 * Where a run of `bench` started at `startedAt` writes: its own file, untracked (.gitignore), and the
 * committed reference result that only `--update-reference` replaces.
 */
export function resultPaths(bench, startedAt, dir = RESULTS_DIR) {
  return {
    run: resolve(dir, `${bench}-${startedAt.toISOString().replace(/:/g, '-')}.json`),
    reference: resolve(dir, `${bench}-reference.json`),
  };
}

/** Writes a run's results (see resultPaths) and logs where; returns the paths written. */
export async function writeResults(bench, results, { startedAt, updateReference, dir = RESULTS_DIR }) {
  const paths = resultPaths(bench, startedAt, dir);
  const written = updateReference ? [paths.run, paths.reference] : [paths.run];
  await mkdir(dir, { recursive: true });
  const json = JSON.stringify(results, null, 2) + '\n';
  for (const path of written) await writeFile(path, json);
  log(
    `results: ${written.join(' and ')}${updateReference ? '' : ` (the reference, ${paths.reference}, is kept: --update-reference replaces it)`}`,
  );
  return written;
}

const execFileAsync = promisify(execFile);

export function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

export function assertBuilt() {
  if (!existsSync(MAIN) || !existsSync(CLI)) {
    throw new Error(`${MAIN} is missing: run "npm run bench" (it builds first) or "npm run build"`);
  }
}

export async function freePort() {
  const server = createServer();
  await new Promise((done, fail) => server.once('error', fail).listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

export async function withClient(url, work) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database on DATABASE_URL's server (else the machine's PostgreSQL); drop() removes it. */
export async function createDatabase(prefix = 'storefront_bench') {
  const serverUrl = process.env.DATABASE_URL || DEFAULT_SERVER_URL;
  const name = `${prefix}_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${randomBytes(2).toString('hex')}`;
  await withClient(serverUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const serverVersion = await withClient(
    url.toString(),
    async (client) => (await client.query('show server_version')).rows[0].server_version,
  );
  let dropped = false;
  return {
    name,
    url: url.toString(),
    serverVersion,
    async drop() {
      if (dropped) return;
      dropped = true;
      await withClient(serverUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

export function serviceEnv(databaseUrl, port) {
  const env = { ...process.env };
  // The bench decides these; a developer's shell must not leak other settings in by accident.
  for (const name of ['DATA_DIR', 'EMBEDDED_PG_PORT', 'DEMO_STORE_ON_FIRST_START', 'METRICS_PORT']) delete env[name];
  // Telemetry is on only where a bench turns it on (`bench/run.js --telemetry`).
  for (const name of Object.keys(env)) if (name.startsWith('OTEL_')) delete env[name];
  return {
    ...env,
    DATABASE_URL: databaseUrl,
    PORT: String(port ?? 0),
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn',
    SECRET_KEY: benchSecretKey,
  };
}
let benchSecretKey = randomBytes(32).toString('base64');

/**
 * The SECRET_KEY the service and the CLI get from now on (by default a random one per bench process).
 * A bench whose database outlives it must use the same key on every run: the signing keys in the
 * database are sealed with it.
 */
export function useSecretKey(key) {
  benchSecretKey = key;
}

/**
 * Starts a Node entry point as a child process with IPC, and waits until `readyUrl` answers 200.
 * Returns { child, base, stop(), output() }.
 */
export async function startProcess({ name, entry, args = [], execArgv = [], env, port, readyPath, timeoutMs = 60_000 }) {
  const child = fork(entry, args, { cwd: ROOT, env, execArgv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let output = '';
  const keep = (chunk) => {
    output += chunk;
    if (output.length > 20_000) output = output.slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = null;
  const exit = new Promise((done) => child.once('exit', (code, signal) => done((exited = { code, signal }))));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`${name} exited during start-up (${JSON.stringify(exited)}):\n${output}`);
    try {
      const response = await fetch(base + readyPath, { signal: AbortSignal.timeout(2000) });
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer ${readyPath} within ${timeoutMs / 1000} s:\n${output}`);
    }
    await sleep(100);
  }
  return {
    child,
    base,
    output: () => output,
    async stop() {
      if (exited) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const result = await exit;
      clearTimeout(timer);
      return result;
    },
  };
}

export async function startService(databaseUrl, { entry = MAIN, execArgv = [], env = {} } = {}) {
  const port = await freePort();
  return startProcess({
    name: 'service',
    entry,
    execArgv: [...SERVICE_NODE_FLAGS, ...execArgv],
    env: { ...serviceEnv(databaseUrl, port), ...env },
    port,
    readyPath: '/health/ready',
  });
}

export async function startCeiling() {
  const port = await freePort();
  return startProcess({
    name: 'ceiling',
    entry: resolve(ROOT, 'bench/ceiling.js'),
    env: { ...process.env, PORT: String(port) },
    port,
    readyPath: '/hello',
  });
}

export async function cli(databaseUrl, args) {
  try {
    const { stdout } = await execFileAsync(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: serviceEnv(databaseUrl),
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout);
  } catch (error) {
    throw new Error(`cli ${args.join(' ')} failed: ${error.stdout ?? ''}${error.stderr ?? error.message}`);
  }
}

/** A store named Bench, a key with a limit no bench reaches, and the demo catalogue. */
export async function createBenchStore(databaseUrl) {
  const created = await cli(databaseUrl, ['store', 'create', '--name', 'Bench']);
  const storeId = created.store.id;
  // The CLI accepts 1..9999999 (7 digits); 10000000 is refused as a usage error.
  const issued = await cli(databaseUrl, ['key', 'issue', '--store', storeId, '--rate-limit', '9999999']);
  const seeded = await cli(databaseUrl, ['demo', 'seed', '--store', storeId]);
  // Planner statistics as a long-running database has them (autovacuum would otherwise analyze the
  // freshly seeded tables at some random point during the measurements and change the plans).
  await withClient(databaseUrl, (client) => client.query('analyze'));
  return { storeId, apiKey: issued.apiKey.key, apiKeyId: issued.apiKey.id, seeded: seeded.seeded };
}

/**
 * What a bench made that must go when it ends, however it ends: `cleanups` takes a step (a function answering a
 * promise) as each thing is made, and a step may be popped once it has been undone by hand; `run(main)` runs the
 * bench, then the steps left, last first, a failure of one logged and the next run anyway. SIGINT and SIGTERM
 * clean up, then exit.
 */
export function cleanupStack() {
  const cleanups = [];
  async function cleanUp() {
    while (cleanups.length > 0) {
      const step = cleanups.pop();
      await step().catch((error) => log(`clean-up step failed: ${error.message}`));
    }
  }
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`${signal}: cleaning up`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  /** Runs the bench's `main`: a failure is printed and sets exit code 1; the clean-up runs either way. */
  function run(main) {
    return main()
      .catch((error) => {
        process.stderr.write(`\nBENCH FAILED: ${error?.stack ?? error}\n`);
        process.exitCode = 1;
      })
      .finally(cleanUp);
  }
  return { cleanups, run };
}

/** A number rounded to `digits` decimals for the results, or null when it is not a finite number. */
export const round = (value, digits = 2) => (typeof value === 'number' && Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

/** Runs a command of the CLI, passing its stderr (progress) through to the log; answers its JSON. */
export function cliStreaming(url, commandArgs, label) {
  return new Promise((done, failed) => {
    const child = spawn(process.execPath, [CLI, ...commandArgs], { cwd: ROOT, env: serviceEnv(url) });
    let stdout = '';
    let stderr = '';
    let pending = '';
    let lastLine = performance.now();
    const started = performance.now();
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-20_000);
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) if (line.trim()) log(`${label}: ${line.trim()}`);
      lastLine = performance.now();
    });
    const ticker = setInterval(() => {
      if (performance.now() - lastLine < 15_000) return;
      lastLine = performance.now();
      log(`${label}: still running, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }, 1000);
    child.on('close', (code) => {
      clearInterval(ticker);
      if (code === 0) {
        try {
          return done(JSON.parse(stdout));
        } catch {
          // fall through: not the JSON answer
        }
      }
      failed(new Error(`cli ${commandArgs.join(' ')} exited with ${code}: ${stdout}${stderr}`));
    });
  });
}

/**
 * A fresh database `${prefix}_…` (dropped at the end unless `keep`), or the one `databaseUrl` names (never
 * dropped); the drop, or the line saying where the kept database is, goes on `cleanups`. A database that
 * outlives the run gets a SECRET_KEY of its own, derived from `keyPurpose` and its name, so that the next
 * run with --database-url opens the signing keys sealed with it.
 */
export async function openDatabase({ prefix, keyPurpose, databaseUrl, keep, cleanups }) {
  const keyOf = (name) => useSecretKey(createHash('sha256').update(`${keyPurpose}:${name}`).digest('base64'));
  if (databaseUrl) {
    const name = new URL(databaseUrl).pathname.slice(1);
    keyOf(name);
    const serverVersion = await withClient(
      databaseUrl,
      async (client) => (await client.query('show server_version')).rows[0].server_version,
    );
    log(`reusing ${name} (PostgreSQL ${serverVersion})`);
    return { name, url: databaseUrl, serverVersion, kept: true, reused: true };
  }
  const database = await createDatabase(prefix);
  log(`database ${database.name} (PostgreSQL ${database.serverVersion})`);
  if (keep) {
    keyOf(database.name);
    cleanups.push(async () => log(`database kept: ${database.url} (again with --database-url ${database.url})`));
  } else cleanups.push(() => database.drop());
  return { ...database, kept: keep, reused: false };
}

/** The latest store named `store.name` in a kept database: its `store.columns`. */
async function findStore(url, { name, columns }) {
  const { rows } = await withClient(url, (client) =>
    client.query(`select ${columns} from stores where name = $1 order by created_at desc limit 1`, [name]),
  );
  if (!rows[0]) throw new Error(`no store named ${name} in ${url}: run once with --keep-database to seed one`);
  return rows[0];
}

/**
 * `store create --name NAME --plan pro`, then `demo seed --orders N` with `seedArgs`, timed (the seed
 * rebuilds the store's rollups itself) into `results.seed` with `note`; answers the store's `columns`.
 */
async function seedStore(url, results, { name, columns, orders, seedArgs, note }) {
  const created = await cli(url, ['store', 'create', '--name', name, '--plan', 'pro']);
  const storeId = created.store.id;
  const command = ['demo', 'seed', '--store', storeId, '--orders', String(orders), ...seedArgs];
  log(`${command.join(' ')}${orders >= 200_000 ? ' (several minutes)' : ''}`);
  const started = performance.now();
  const seeded = await cliStreaming(url, command, 'seed');
  const seconds = (performance.now() - started) / 1000;
  results.seed = { seconds: Number(seconds.toFixed(1)), arguments: command.slice(4), counts: seeded.seeded, note };
  log(`seeded in ${seconds.toFixed(1)} s: ${JSON.stringify(seeded.seeded)}`);
  const { rows } = await withClient(url, (client) => client.query(`select ${columns} from stores where id = $1`, [storeId]));
  return rows[0];
}

/**
 * The bench's store on the pro plan: in a reused database the one named `store.name`, else one created and
 * seeded (`seed`: orders, seedArgs, note; timed into `results.seed`). Answers its `store.columns`.
 */
export async function proStore(database, results, store, seed) {
  const found = database.reused ? await findStore(database.url, store) : await seedStore(database.url, results, { ...store, ...seed });
  if (found.plan !== 'pro') await cli(database.url, ['store', 'plan', '--store', found.id, '--plan', 'pro']);
  return found;
}

/** What the results say of the database: its name, whether it was reused or kept, the store's rows of `tables`, its size. */
export async function describeDatabase(database, storeId, tables) {
  return { name: database.name, reused: database.reused, kept: database.kept, ...(await sizes(database.url, storeId, tables)) };
}

/** Rows of `tables` that are the store's, and the database's size. */
async function sizes(url, storeId, tables) {
  return withClient(url, async (client) => {
    const rows = {};
    for (const table of tables) {
      rows[table] = Number((await client.query(`select count(*) as n from ${table} where store_id = $1`, [storeId])).rows[0].n);
    }
    const size = (await client.query('select pg_size_pretty(pg_database_size(current_database())) as size')).rows[0].size;
    return { rows, size };
  });
}

/**
 * A staff owner added with `staff add` (`bench-…@emailDomain`), signed in with a bearer token pair,
 * refreshed when it is 10 minutes old (they live 15). `headers` go with every `call` besides the token.
 */
export async function signIn(base, url, storeId, { emailDomain, headers = {} }) {
  const email = `bench-${randomBytes(4).toString('hex')}@${emailDomain}`;
  const added = await cli(url, ['staff', 'add', '--store', storeId, '--email', email, '--name', 'Bench Owner', '--role', 'owner']);
  const body = await requestJson(base, 'POST', '/admin/auth/sign-in', {
    body: { storeId, email, password: added.password, transport: 'bearer' },
    expect: 201,
  });
  let pair = { ...body, at: Date.now() };
  const admin = {
    base,
    /** The current access token: refreshed when it is 10 minutes old. */
    async token() {
      if (Date.now() - pair.at > 10 * 60_000) {
        const next = await requestJson(base, 'POST', '/admin/auth/refresh', { body: { refreshToken: pair.refreshToken } });
        pair = { ...next, at: Date.now() };
      }
      return pair.accessToken;
    },
    /** A request definition for a load run (bench/insights.js's measureLoad): the token is read when it starts. */
    request(method, path, body, expectStatus = 200) {
      return { method, path, body: body === undefined ? undefined : JSON.stringify(body), expectStatus };
    },
    /** One request: its status, its parsed body and its time in ms (the body read included). */
    async call(method, path, body) {
      const started = performance.now();
      const response = await fetch(base + path, {
        method,
        headers: {
          authorization: `Bearer ${await admin.token()}`,
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null, ms: performance.now() - started };
    },
    async getJson(path) {
      const { status, body } = await admin.call('GET', path);
      if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${JSON.stringify(body).slice(0, 500)}`);
      return body;
    },
  };
  log(`signed in as ${email} (owner)`);
  return admin;
}

/**
 * One JSON request to the service: the body sent as JSON, the answer parsed; any status but `expect`
 * throws with the start of the answer.
 */
export async function requestJson(base, method, path, { token, body, headers = {}, expect = 200 } = {}) {
  const response = await fetch(base + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (response.status !== expect) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

export async function mintToken(base, apiKey) {
  const session = await requestJson(base, 'POST', '/v1/auth/anonymous', { headers: { 'x-api-key': apiKey }, body: {}, expect: 201 });
  return session.accessToken;
}

export function getJson(base, path, token) {
  return requestJson(base, 'GET', path, { token });
}

/**
 * An OTLP/HTTP endpoint that takes whatever is sent and answers 200 (as a collector does), counting the
 * requests and bytes per path: where a bench's service sends its telemetry.
 */
export async function startOtlpSink() {
  const received = {};
  const server = createHttpServer((request, response) => {
    const counts = (received[request.url] ??= { requests: 0, bytes: 0 });
    request.on('data', (chunk) => (counts.bytes += chunk.length));
    request.on('end', () => {
      counts.requests++;
      response.writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/x-protobuf' }).end();
    });
  });
  const port = await freePort();
  await new Promise((done) => server.listen(port, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${port}`, received, stop: () => new Promise((done) => server.close(done)) };
}

/** Reads `url` every `ms`, as Prometheus scrapes a target; `stop()` answers how many reads succeeded and how many failed. */
export function scrapeEvery(url, ms) {
  const counts = { ok: 0, failed: 0 };
  const timer = setInterval(() => {
    fetch(url, { signal: AbortSignal.timeout(ms) })
      .then((response) => response.text().then(() => counts[response.ok ? 'ok' : 'failed']++))
      .catch(() => counts.failed++);
  }, ms);
  return {
    stop() {
      clearInterval(timer);
      return counts;
    },
  };
}

/** The request definitions of the scenarios, against a running service. */
export function scenarioRequests({ base, apiKey, token, slug }) {
  return {
    mint: {
      title: 'POST /v1/auth/anonymous (mint)',
      url: `${base}/v1/auth/anonymous`,
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: '{}',
      expectStatus: 201,
    },
    // Accept-Encoding as every HTTP client (fetch, undici, curl --compressed) sends it.
    list: {
      title: 'GET /v1/catalogue/products (20 per page, gzip accepted)',
      url: `${base}/v1/catalogue/products`,
      method: 'GET',
      headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip, deflate, br' },
      expectStatus: 200,
    },
    listIdentity: {
      title: 'GET /v1/catalogue/products (20 per page, uncompressed)',
      url: `${base}/v1/catalogue/products`,
      method: 'GET',
      headers: { authorization: `Bearer ${token}` },
      expectStatus: 200,
    },
    detail: {
      title: `GET /v1/catalogue/products/{slug}`,
      url: `${base}/v1/catalogue/products/${encodeURIComponent(slug)}`,
      method: 'GET',
      headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip, deflate, br' },
      expectStatus: 200,
    },
  };
}

function runAutocannon(options) {
  return new Promise((done, fail) => {
    autocannon(options, (error, result) => (error ? fail(error) : done(result)));
  });
}

/** Warm-up (discarded), then the measured run. */
export async function load(request, { connections = 50, seconds = 10, warmupSeconds = 2 } = {}) {
  const options = {
    url: request.url,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections,
    pipelining: 1,
    timeout: 10,
  };
  if (warmupSeconds > 0) await runAutocannon({ ...options, duration: warmupSeconds });
  const result = await runAutocannon({ ...options, duration: seconds });
  return summarise(result, connections, seconds);
}

function summarise(result, connections, seconds) {
  const round = (value, digits = 2) => (typeof value === 'number' ? Number(value.toFixed(digits)) : value);
  return {
    connections,
    durationSeconds: seconds,
    requests: result.requests.total,
    rps: {
      mean: round(result.requests.average, 1),
      stddev: round(result.requests.stddev, 1),
      min: result.requests.min,
      max: result.requests.max,
    },
    latencyMs: {
      mean: round(result.latency.average),
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count])),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    throughputMBps: round(result.throughput.average / 1e6),
  };
}

/**
 * How busy the machine is with other work: the share of all cores' time not idle over `ms`, taken
 * while the bench itself sends nothing (Linux /proc/stat; null elsewhere).
 */
export async function backgroundCpuPercent(ms = 1000) {
  const read = () => {
    try {
      const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
      const idle = fields[3] + (fields[4] ?? 0);
      return { idle, total: fields.reduce((a, b) => a + b, 0) };
    } catch {
      return null;
    }
  };
  const before = read();
  await sleep(ms);
  const after = read();
  if (!before || !after || after.total === before.total) return null;
  return Number((100 * (1 - (after.idle - before.idle) / (after.total - before.total))).toFixed(1));
}

/**
 * Keeps the process `pid` and all its threads on the given processors (Linux `taskset`). Returns whether it could.
 */
export async function pinToProcessors(pid, processors) {
  try {
    await execFileAsync('taskset', ['--all-tasks', '--pid', '--cpu-list', processors, String(pid)]);
    return true;
  } catch {
    return false;
  }
}

/** CPU time (user and system) the process `pid` has used so far, in seconds (Linux /proc; null elsewhere). */
export function processCpuSeconds(pid) {
  try {
    // The command name (field 2) is in parentheses and may hold spaces: count the fields after its closing one.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}
/** Linux's USER_HZ, what /proc counts CPU time in: 100 on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * The checked-out commit, read from .git without running git (best effort; uncommitted changes are not
 * detected). In a worktree, .git is a file naming the worktree's git directory, whose `commondir` holds
 * the refs.
 */
export async function gitCommit() {
  try {
    let gitDir = resolve(ROOT, '.git');
    let commonDir = gitDir;
    const dotGit = await readFile(gitDir, 'utf8').catch(() => null);
    if (dotGit?.startsWith('gitdir: ')) {
      gitDir = resolve(ROOT, dotGit.slice(8).trim());
      const common = await readFile(resolve(gitDir, 'commondir'), 'utf8').catch(() => null);
      commonDir = common ? resolve(gitDir, common.trim()) : gitDir;
    }
    const head = (await readFile(resolve(gitDir, 'HEAD'), 'utf8')).trim();
    if (!head.startsWith('ref: ')) return head;
    const ref = head.slice(5);
    try {
      return (await readFile(resolve(commonDir, ref), 'utf8')).trim();
    } catch {
      const packed = await readFile(resolve(commonDir, 'packed-refs'), 'utf8');
      return (
        packed
          .split('\n')
          .find((line) => line.endsWith(` ${ref}`))
          ?.split(' ')[0] ?? null
      );
    }
  } catch {
    return null;
  }
}

/** The machine a run measured on: cores, memory, load, and the versions of what it ran. */
export async function machineInfo(postgresVersion) {
  const cpuList = cpus();
  const version = async (pkg) => JSON.parse(await readFile(resolve(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  return {
    platform: `${platform()} ${release()}`,
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model,
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    freeMemoryGiB: Number((freemem() / 2 ** 30).toFixed(1)),
    loadAverage: loadavg().map((value) => Number(value.toFixed(2))),
    node: process.version,
    serviceNodeFlags: SERVICE_NODE_FLAGS,
    postgres: postgresVersion,
    fastify: await version('fastify'),
    autocannon: await version('autocannon'),
    note: 'load generator, service, ceiling and PostgreSQL share these cores',
  };
}

/** utime + stime of a process, in seconds (Linux /proc; null elsewhere or when it is gone). */
export function cpuSecondsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** VmRSS and VmHWM (peak RSS since start or the last reset) of a process, in MB. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/** Resets a process's VmHWM to its current RSS (Linux ≥ 4.0: clear_refs 5); false when not allowed. */
export function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Machine-wide busy and total jiffies (/proc/stat), for the share of both cores busy during a run. */
export function machineTicks() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + (fields[4] ?? 0);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}
export const busyPercent = (before, after) =>
  before && after && after.total > before.total ? round((100 * (after.busy - before.busy)) / (after.total - before.total), 1) : null;
