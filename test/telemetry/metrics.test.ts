import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreService } from '../../src/stores/store.service.js';
import { startBuiltService, type BuiltService } from '../support/built-service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import { issueKey, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { startPrometheus, type PrometheusPeer } from '../support/peers/prometheus.js';
import { freePort } from '../support/ports.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';
import { daysAgo, finished, seedSearches } from '../insights/exports-support.js';

const SEARCH_ROWS = 40;

/**
 * Issue 29, item 9: the built service (as `npm start` runs it) with METRICS_PORT serves its metrics, and
 * a real Prometheus scraping it every second stores each one with its labels. This suite's own instance
 * only prepares the store and sends jobs: the built service works them (the export whose rows are counted).
 */
describe('metrics scraped by Prometheus', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'metrics-'));
  const t = useTestApp({ DATA_DIR: dataDir }, { ownDatabase: true }); // its jobs are the built service's alone
  let service: BuiltService;
  let prometheus: PrometheusPeer;
  let store: TestStore;

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 5 });
    const metricsPort = await freePort();
    service = await startBuiltService(t.databaseUrl, dataDir, { METRICS_PORT: String(metricsPort) });
    prometheus = await startPrometheus([`127.0.0.1:${metricsPort}`]);
  }, 120_000);
  afterAll(async () => {
    await prometheus?.stop();
    service?.child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The series of `expression` once Prometheus has scraped what `accept` waits for. */
  const scraped = (expression: string, accept: (series: { labels: Record<string, string>; value: number }[]) => boolean) =>
    eventually(() => prometheus.query(expression), accept, 30_000);

  it('request rate and latency by route template and status, and rate-limit refusals', async () => {
    const mint = (key: string) =>
      fetch(`${service.url}/v1/auth/anonymous`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: '{}',
      });
    const minted = await mint(store.key);
    expect(minted.status).toBe(201);
    const { accessToken } = (await minted.json()) as { accessToken: string };
    const products = await fetch(`${service.url}/v1/catalogue/products?limit=3`, { headers: { authorization: `Bearer ${accessToken}` } });
    const [product] = ((await products.json()) as { items: { slug: string }[] }).items;
    for (let read = 0; read < 4; read++) {
      const detail = await fetch(`${service.url}/v1/catalogue/products/${product.slug}`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(detail.status).toBe(200);
    }
    // Refused by the request guards, before the route's own hooks run, and no route at all.
    expect((await fetch(`${service.url}/v1/catalogue/products/a%00b`)).status).toBe(400);
    expect((await fetch(`${service.url}/v1/no-such-route`)).status).toBe(404);
    const limited = await issueKey(t.app, store.storeId, { rateLimitPerMinute: 1 });
    expect((await mint(limited.key)).status).toBe(201);
    expect((await mint(limited.key)).status).toBe(429);

    const requests = await scraped('http_server_request_duration_count', (series) =>
      series.some((one) => one.labels.http_response_status_code === '429'),
    );
    const count = (route: string, status: string) =>
      requests.find((one) => one.labels.http_route === route && one.labels.http_response_status_code === status)?.value;
    expect(count('/v1/catalogue/products/:idOrSlug', '200')).toBe(4);
    expect(count('/v1/catalogue/products', '200')).toBe(1);
    expect(count('/v1/auth/anonymous', '201')).toBe(2);
    expect(count('/v1/auth/anonymous', '429')).toBe(1);
    expect(count('/v1/catalogue/products/:idOrSlug', '400')).toBe(1);
    expect(requests.filter((one) => one.labels.http_response_status_code === '404').map((one) => one.labels.http_route)).toEqual([
      undefined,
    ]);
    // No series for a concrete path: the template is the label.
    expect(requests.filter((one) => one.labels.http_route?.includes(product.slug) || one.labels.http_route?.includes('no-such'))).toEqual(
      [],
    );
    expect(requests.find((one) => one.labels.http_route === '/v1/auth/anonymous')?.labels).toMatchObject({
      http_request_method: 'POST',
      job: 'storefront',
    });

    const slowest = await prometheus.query(
      'histogram_quantile(0.99, sum by (le) (http_server_request_duration_bucket{http_route="/v1/catalogue/products/:idOrSlug"}))',
    );
    expect(slowest[0].value).toBeGreaterThan(0);
    expect(slowest[0].value).toBeLessThan(5);

    const refusals = await scraped('storefront_rate_limit_refusals_total', (series) => series.length > 0);
    expect(refusals.map((one) => [one.labels.limiter, one.value])).toEqual([['api_key', 1]]);
  });

  it('database pools: connections used and idle, the most, and callers waiting', async () => {
    const connections = await scraped('db_client_connection_count', (series) => series.length >= 4);
    const of = (pool: string, state: string) =>
      connections.find((one) => one.labels.db_client_connection_pool_name === pool && one.labels.db_client_connection_state === state)!
        .value;
    for (const pool of ['orm', 'data_hub_runs']) {
      expect(of(pool, 'used')).toBeGreaterThanOrEqual(0);
      expect(of(pool, 'idle')).toBeGreaterThanOrEqual(0);
    }
    // The ORM's pool served the requests above (and serves the schedulers): it has opened connections.
    expect(of('orm', 'used') + of('orm', 'idle')).toBeGreaterThan(0);
    const max = await prometheus.query('db_client_connection_max');
    expect(Object.fromEntries(max.map((one) => [one.labels.db_client_connection_pool_name, one.value]))).toEqual({
      orm: 20,
      data_hub_runs: 4,
    });
    const waiting = await prometheus.query('db_client_connection_pending_requests');
    expect(waiting.map((one) => one.labels.db_client_connection_pool_name).sort()).toEqual(['data_hub_runs', 'orm']);
    for (const one of waiting) expect(one.value).toBeGreaterThanOrEqual(0);
  });

  it('job queues, the Insights fold lag, and export rows from a job the service worked', async () => {
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    const day = daysAgo(3);
    await seedSearches(t.db, store.storeId, day, SEARCH_ROWS);
    const owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    const started = ok(
      await adminCall(t.app, 'POST', '/admin/insights/exports', owner, {
        source: { report: 'searches', params: { from: daysAgo(4), to: daysAgo(2) } },
        format: 'csv',
      }),
      202,
    );
    expect(await finished(t.app, owner, started.id)).toMatchObject({ status: 'succeeded', progress: { rows: SEARCH_ROWS } });

    const exported = await scraped('storefront_insights_export_rows_total', (series) => series.length > 0);
    expect(exported.map((one) => [one.labels.format, one.value])).toEqual([['csv', SEARCH_ROWS]]);

    const depth = await scraped('storefront_job_queue_depth', (series) => series.some((one) => one.labels.queue === 'insights.export'));
    for (const one of depth) expect(one.value).toBeGreaterThanOrEqual(0);
    // pg-boss's monitor counts each queue every 5 s; from then on the oldest ready job's age is known (0 when none waits).
    const oldest = await scraped('storefront_job_queue_oldest_ready_age', (series) =>
      series.some((one) => one.labels.queue === 'insights.export'),
    );
    for (const one of oldest) expect(one.value).toBeGreaterThanOrEqual(0);

    const lag = await scraped('storefront_insights_fold_lag', (series) => series.length === 1);
    expect(lag[0].value).toBeGreaterThanOrEqual(0);
    expect(lag[0].value).toBeLessThan(60);

    // pg-boss's own: each job processed, by queue.
    const processed = await scraped(
      'messaging_process_duration_count{messaging_destination_name="insights.export"}',
      (series) => series.length > 0,
    );
    expect(processed[0].value).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
