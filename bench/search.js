// `npm run build && node bench/search.js`: storefront search on a 100,000-product store. Builds its own
// database (DATABASE_URL's server, else the machine's PostgreSQL), seeds a bilingual catalogue drawn
// from the demo vocabulary, starts the built service and measures GET /v1/search and
// GET /v1/search/suggestions under a realistic mix of Arabic, English, misspelt and partial queries.
// Writes bench/results/search-<timestamp>.json (search-reference.json too with --update-reference).
//
// Options (also as environment variables): --products N (SEARCH_BENCH_PRODUCTS, default 100000),
// --seconds N (BENCH_SECONDS, default 10), --connections N (BENCH_CONNECTIONS, default 10), --keep-database
// (leaves the seeded database in place and prints its URL, for EXPLAIN sessions afterwards),
// --update-reference (also replace bench/results/search-reference.json with this run's results).
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import {
  assertBuilt,
  backgroundCpuPercent,
  cli,
  createDatabase,
  log,
  mintToken,
  startService,
  UPDATE_REFERENCE_OPTION,
  withClient,
  writeResults,
} from './lib.js';

const { values: args } = parseArgs({
  options: {
    products: { type: 'string', default: process.env.SEARCH_BENCH_PRODUCTS ?? '100000' },
    seconds: { type: 'string', default: process.env.BENCH_SECONDS ?? '10' },
    connections: { type: 'string', default: process.env.BENCH_CONNECTIONS ?? '10' },
    'keep-database': { type: 'boolean', default: false },
    ...UPDATE_REFERENCE_OPTION,
  },
});
const PRODUCTS = Number(args.products);
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const BATCH = 2000;

/** What shoppers type: whole words in both languages, letter variants, typos, broad and narrow. */
const SEARCHES = [
  'smartphone',
  'wireless headphones',
  'nova',
  'abaya',
  'coffee machine',
  'cotton t-shirt',
  'perfume oud',
  'electronics',
  'yoga mat',
  'سماعات',
  'عطر',
  'ساعه ذكيه',
  'قميص بولو',
  'عباءة',
  'حقيبة ظهر',
  'مكبر صوت لاسلكي',
  'shrit',
  'labtop',
  'hedphones',
  'قميض',
  'سماعت',
];
const FILTERED = ['&sort=price_asc', '&category=electronics', '&brand=nova', '&priceMin=10000&priceMax=24999', ''];
const PREFIXES = ['s', 'sm', 'sma', 'wire', 'hea', 'ab', 'coff', 'per', 'سم', 'سما', 'عط', 'قمي', 'ساع', 'حقي', 'nov', 'labt'];

async function main() {
  assertBuilt();
  const startedAt = new Date();
  const { buildDemoCatalogue } = await import('../dist/src/demo/demo-catalogue.js');
  const database = await createDatabase('storefront_search_bench');
  const cleanups = [args['keep-database'] ? async () => log(`database kept: ${database.url}`) : () => database.drop()];
  let service;
  try {
    log(`database ${database.name} (PostgreSQL ${database.serverVersion})`);
    service = await startService(database.url);
    cleanups.push(() => service.stop());
    const created = await cli(database.url, ['store', 'create', '--name', 'Search Bench']);
    const storeId = created.store.id;
    const issued = await cli(database.url, ['key', 'issue', '--store', storeId, '--rate-limit', '9999999']);

    const seedStarted = Date.now();
    const counts = await seed(database.url, storeId, buildDemoCatalogue({ seed: 7, productCount: PRODUCTS }));
    const seedSeconds = (Date.now() - seedStarted) / 1000;
    log(`seeded ${JSON.stringify(counts)} in ${seedSeconds.toFixed(1)} s (search rows kept by triggers)`);
    const sizes = await withClient(database.url, async (client) => {
      // Autovacuum clears a bulk write's dead row versions in a running system (it is off on this machine's
      // server): measure that steady state, not a table at twice its size.
      await client.query('vacuum analyze');
      const { rows } = await client.query(
        `select (select count(*) from product_search)::int as search_rows, (select count(*) from search_terms)::int as vocabulary,
           pg_size_pretty(pg_total_relation_size('product_search')) as product_search_size,
           pg_size_pretty(pg_relation_size('product_search_store_id_document_index')) as document_index_size`,
      );
      return rows[0];
    });
    log(`search data: ${JSON.stringify(sizes)}`);

    const token = await mintToken(service.base, issued.apiKey.key);
    const headers = { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' };
    const searchPaths = SEARCHES.map((q, i) => `/v1/search?q=${encodeURIComponent(q)}${FILTERED[i % FILTERED.length]}`);
    const suggestionPaths = PREFIXES.map((q) => `/v1/search/suggestions?q=${encodeURIComponent(q)}`);

    // The service keeps answers with the catalogue pages (dropped on any catalogue change), so a mix of
    // recurring queries is mostly answered from memory. A second instance with that cache off shows
    // what every first-time query costs in PostgreSQL.
    const uncached = await startService(database.url, { env: { CATALOGUE_CACHE_SECONDS: '0' } });
    cleanups.push(() => uncached.stop());

    // Unloaded: each query alone, a few times, on the instance without the answer cache, so the cost of
    // each kind in PostgreSQL is visible (median of 5).
    const single = {};
    // plus the broadest query of the mix without its filter: a fifth of the catalogue matches
    for (const path of [...searchPaths, '/v1/search?q=electronics', ...suggestionPaths])
      single[decodeURIComponent(path)] = await serialLatency(uncached.base, path, headers);

    const explain = await withClient(database.url, (client) => explainQueries(client, storeId));

    const mixes = {};
    const measureMixes = async (label, base) => {
      log(`${label}: search mix, ${SECONDS} s at ${CONNECTIONS} connections`);
      await load(base, searchPaths, headers, 2);
      const search = await load(base, searchPaths, headers, SECONDS);
      log(`${label}: suggestions mix, ${SECONDS} s at ${CONNECTIONS} connections`);
      await load(base, suggestionPaths, headers, 2);
      const suggestions = await load(base, suggestionPaths, headers, SECONDS);
      mixes[label] = { search, suggestions };
    };
    const busyBefore = await backgroundCpuPercent();
    await measureMixes('answerCacheOn', service.base);
    await measureMixes('answerCacheOff', uncached.base);
    const recorded = await withClient(
      database.url,
      async (client) => (await client.query('select count(*)::int as n from searches')).rows[0].n,
    );

    const results = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model,
        postgres: database.serverVersion,
        backgroundCpuPercentBefore: busyBefore,
      },
      catalogue: { ...counts, seedSeconds, ...sizes },
      settings: { seconds: SECONDS, connections: CONNECTIONS },
      paths: { search: searchPaths, suggestions: suggestionPaths },
      ...mixes,
      searchesRecorded: recorded,
      singleRequestUncachedMs: single,
      explainAnalyze: explain,
    };
    const line = (name, r) =>
      `${name.padEnd(30)} ${String(r.rps).padStart(7)} req/s  p50 ${r.latencyMs.p50} ms  p95 ${r.latencyMs.p95} ms  p99 ${r.latencyMs.p99} ms  non-2xx ${r.non2xx}`;
    const all = Object.entries(mixes).flatMap(([label, mix]) => Object.entries(mix).map(([name, r]) => [`${name} (${label})`, r]));
    process.stdout.write(all.map(([name, r]) => line(name, r)).join('\n') + '\n');
    await writeResults('search', results, { startedAt, updateReference: args['update-reference'] });
    if (all.some(([, r]) => r.non2xx > 0 || r.errors > 0)) process.exitCode = 1;
  } catch (error) {
    if (service) log(`service output (last lines):\n${service.output().split('\n').slice(-30).join('\n')}`);
    throw error;
  } finally {
    for (const step of cleanups.reverse()) await step().catch((error) => log(`clean-up failed: ${error.message}`));
  }
}

/** Categories, brands, then products and variants in multi-row batches, as a catalogue import would write them. */
async function seed(url, storeId, catalogue) {
  return withClient(url, async (client) => {
    const categoryIds = new Map(catalogue.categories.map((category) => [category.key, randomUUID()]));
    const pathOf = (key) => {
      const category = catalogue.categories.find((candidate) => candidate.key === key);
      return [...(category.parentKey ? pathOf(category.parentKey) : []), categoryIds.get(key)];
    };
    for (const c of catalogue.categories) {
      await client.query(
        `insert into categories (id, store_id, parent_id, path, slug, name_en, name_ar, position) values ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          categoryIds.get(c.key),
          storeId,
          c.parentKey ? categoryIds.get(c.parentKey) : null,
          pathOf(c.key),
          c.slug,
          c.name.en,
          c.name.ar,
          c.position,
        ],
      );
    }
    const brandIds = new Map(catalogue.brands.map((brand) => [brand.key, randomUUID()]));
    for (const brand of catalogue.brands) {
      await client.query(`insert into brands (id, store_id, slug, name_en, name_ar) values ($1, $2, $3, $4, $5)`, [
        brandIds.get(brand.key),
        storeId,
        brand.slug,
        brand.name.en,
        brand.name.ar,
      ]);
    }
    let variants = 0;
    const now = Date.now();
    for (let start = 0; start < catalogue.products.length; start += BATCH) {
      const batch = catalogue.products.slice(start, start + BATCH);
      const ids = batch.map(() => randomUUID());
      const createdAt = batch.map((_, i) => new Date(now - (catalogue.products.length - start - i) * 60_000).toISOString());
      await client.query('begin');
      await client.query(
        `insert into products (id, store_id, category_id, brand_id, slug, name_en, name_ar, description_en, description_ar, created_at, updated_at)
         select id, $1, category_id, brand_id, slug, name_en, name_ar, description_en, description_ar, created_at, created_at
         from unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::timestamptz[])
           as i(id, category_id, brand_id, slug, name_en, name_ar, description_en, description_ar, created_at)`,
        [
          storeId,
          ids,
          batch.map((p) => categoryIds.get(p.categoryKey)),
          batch.map((p) => brandIds.get(p.brandKey)),
          batch.map((p) => p.slug),
          batch.map((p) => p.name.en),
          batch.map((p) => p.name.ar),
          batch.map((p) => p.description.en),
          batch.map((p) => p.description.ar),
          createdAt,
        ],
      );
      const rows = batch.flatMap((product, i) => product.variants.map((variant, position) => ({ productId: ids[i], variant, position })));
      variants += rows.length;
      await client.query(
        `insert into product_variants (store_id, product_id, sku, options, price, compare_at_price, currency, stock, position)
         select $1, product_id, sku, options, price, compare_at_price, 'SAR', stock, position
         from unnest($2::uuid[], $3::text[], $4::jsonb[], $5::int[], $6::int[], $7::int[], $8::int[])
           as i(product_id, sku, options, price, compare_at_price, stock, position)`,
        [
          storeId,
          rows.map((row) => row.productId),
          rows.map((row) => row.variant.sku),
          rows.map((row) => JSON.stringify(row.variant.options)),
          rows.map((row) => row.variant.price),
          rows.map((row) => row.variant.compareAtPrice),
          rows.map((row) => row.variant.stock),
          rows.map((row) => row.position),
        ],
      );
      await client.query('commit');
      if ((start / BATCH) % 10 === 0) log(`seeded ${start + batch.length} products`);
    }
    return { categories: catalogue.categories.length, brands: catalogue.brands.length, products: catalogue.products.length, variants };
  });
}

/** EXPLAIN ANALYZE of the matching step the service runs, for a broad, a narrow, an Arabic and a prefix query. */
async function explainQueries(client, storeId) {
  const plans = {};
  const cases = [
    ['broad: electronics (count + rank)', 'electronics', false, true],
    ['narrow: wireless headphones', 'wireless headphones', false, true],
    ['arabic: ساعه ذكيه', 'ساعه ذكيه', false, true],
    ['prefix (suggestions): sma, first 200', 'sma', true, false],
  ];
  for (const [name, q, complete, rank] of cases) {
    const { rows } = await client.query(
      `explain (analyze, buffers, format json)
       select ps.product_id ${rank ? ", ts_rank('{0, 0, 0.4, 1}', ps.document, query)" : ''}
       from product_search ps, search_tsquery(normalize_search_text($2), $3) as query
       where ps.store_id = $1 and ps.document @@ query ${complete ? 'limit 200' : ''}`,
      [storeId, q, complete],
    );
    const plan = rows[0]['QUERY PLAN'][0];
    plans[name] = {
      executionMs: plan['Execution Time'],
      planningMs: plan['Planning Time'],
      rows: plan.Plan['Actual Rows'],
      nodes: summarisePlan(plan.Plan),
    };
  }
  return plans;
}

function summarisePlan(node, depth = 0) {
  const own = `${'  '.repeat(depth)}${node['Node Type']}${node['Index Name'] ? ` on ${node['Index Name']}` : ''} (rows ${node['Actual Rows']}, ${node['Actual Total Time']} ms)`;
  return [own, ...(node.Plans ?? []).flatMap((child) => summarisePlan(child, depth + 1))];
}

async function serialLatency(base, path, headers, times = 5) {
  const samples = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    const response = await fetch(base + path, { headers });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
    samples.push(performance.now() - started);
  }
  samples.sort((x, y) => x - y);
  return Number(samples[Math.floor(samples.length / 2)].toFixed(2));
}

/** autocannon over a rotating list of paths; p95 from every response time (autocannon reports p90 and p97.5). */
function load(base, paths, headers, seconds) {
  return new Promise((done, fail) => {
    let next = 0;
    const times = [];
    const instance = autocannon(
      {
        url: base,
        connections: CONNECTIONS,
        duration: seconds,
        headers,
        requests: [
          {
            setupRequest: (request) => {
              request.path = paths[next++ % paths.length];
              return request;
            },
          },
        ],
      },
      (error, result) => {
        if (error) return fail(error);
        times.sort((x, y) => x - y);
        const at = (p) => Number((times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? 0).toFixed(2));
        done({
          requests: result.requests.total,
          rps: Number(result.requests.average.toFixed(1)),
          latencyMs: { mean: Number(result.latency.average.toFixed(2)), p50: at(50), p95: at(95), p99: at(99), max: result.latency.max },
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exitCode = 1;
});
