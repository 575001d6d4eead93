import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreService } from '../../src/stores/store.service.js';
import { startBuiltService, type BuiltService } from '../support/built-service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { freePort } from '../support/ports.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';
import { daysAgo, finished, seedSearches } from '../insights/exports-support.js';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
}

const SERVER = 2;
const CONSUMER = 5;

/** An OTLP/HTTP receiver (the JSON encoding, OTEL_EXPORTER_OTLP_PROTOCOL=http/json) keeping what it is sent, by path. */
async function startReceiver(): Promise<{ url: string; received: Map<string, unknown[]>; server: Server }> {
  const received = new Map<string, unknown[]>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.set(request.url!, [...(received.get(request.url!) ?? []), JSON.parse(Buffer.concat(chunks).toString())]);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, received, server };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((one) => one.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};

/**
 * Issue 29, item 8: the built service (as `npm start` runs it) with OTEL_EXPORTER_OTLP_ENDPOINT sends its
 * traces over OTLP: a span per request (route template, status, store, request id) with its queries
 * under it, and a span per job with the job's queries under it; its metrics go the same way.
 */
describe('traces over OTLP', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'traces-'));
  const t = useTestApp({ DATA_DIR: dataDir }, { ownDatabase: true }); // its jobs are the built service's alone
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let service: BuiltService;
  let store: TestStore;

  const spans = (): OtlpSpan[] =>
    ((receiver.received.get('/v1/traces') ?? []) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }[]).flatMap((body) =>
      body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
    );
  const under = (parent: OtlpSpan): OtlpSpan[] =>
    spans()
      .filter((span) => span.parentSpanId === parent.spanId)
      .flatMap((child) => [child, ...under(child)]);

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 5 });
    receiver = await startReceiver();
    service = await startBuiltService(t.databaseUrl, dataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
      // Every trace, to read each one's spans; the default keeps one request in ten (the last test).
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    });
  }, 120_000);
  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await new Promise((resolve) => receiver?.server.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a request: its route template, status, store and request id, and its queries under it', async () => {
    const minted = await fetch(`${service.url}/v1/auth/anonymous`, {
      method: 'POST',
      headers: { 'x-api-key': store.key, 'content-type': 'application/json', 'x-request-id': 'trace-test-mint-1' },
      body: '{}',
    });
    expect(minted.status).toBe(201);

    const request = await eventually(
      async () => spans().find((span) => attribute(span, 'storefront.request_id') === 'trace-test-mint-1'),
      (span) => span !== undefined,
      10_000,
    );
    expect(request).toMatchObject({ name: 'POST /v1/auth/anonymous', kind: SERVER });
    expect(attribute(request!, 'http.route')).toBe('/v1/auth/anonymous');
    expect(attribute(request!, 'http.response.status_code')).toBe(201);
    expect(attribute(request!, 'storefront.store_id')).toBe(store.storeId);
    // The session's insert and the key's lookup (once per instance), each a child span of the request.
    const queries = await eventually(
      async () => under(request!).filter((span) => span.name.startsWith('pg.query')),
      (found) => found.some((span) => attribute(span, 'db.operation.name') === 'WITH'),
      5_000,
    );
    expect(queries.length).toBeGreaterThanOrEqual(1);
    for (const query of queries) expect(query.traceId).toBe(request!.traceId);
  });

  it('a job: a span for its queue and job, with its queries under it', async () => {
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    await seedSearches(t.db, store.storeId, daysAgo(3), 10);
    const owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    const started = ok(
      await adminCall(t.app, 'POST', '/admin/insights/exports', owner, {
        source: { report: 'searches', params: { from: daysAgo(4), to: daysAgo(2) } },
        format: 'csv',
      }),
      202,
    );
    expect(await finished(t.app, owner, started.id)).toMatchObject({ status: 'succeeded' });

    const job = await eventually(
      async () => spans().find((span) => span.name === 'process insights.export'),
      (span) => span !== undefined,
      10_000,
    );
    expect(job!.kind).toBe(CONSUMER);
    expect(attribute(job!, 'messaging.destination.name')).toBe('insights.export');
    expect(attribute(job!, 'messaging.message.id')).toMatch(/^[0-9a-f-]{36}$/);
    const queries = await eventually(
      async () => under(job!).filter((span) => span.name.startsWith('pg.query')),
      (found) => found.length >= 3,
      5_000,
    );
    expect(queries.length).toBeGreaterThanOrEqual(3);
  });

  it("by default ten requests' traces a second are kept, and a caller's traceparent decides for its own", async () => {
    const sampledDataDir = mkdtempSync(join(tmpdir(), 'traces-default-'));
    const sampled = await startBuiltService(t.databaseUrl, sampledDataDir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRICS_EXPORTER: 'none',
    });
    try {
      const get = (id: string, headers: Record<string, string> = {}) =>
        fetch(`${sampled.url}/health/live`, { headers: { 'x-request-id': id, ...headers } }).then((response) => {
          expect(response.status).toBe(200);
        });
      const REQUESTS = 400;
      // A second with no request first, so that the sampler holds a whole second's budget (readiness checks spent some).
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const startedAt = performance.now();
      for (let i = 0; i < REQUESTS; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => get(`default-${i + j}`)));
      const seconds = (performance.now() - startedAt) / 1000;
      const callerTrace = 'a'.repeat(31) + '1';
      for (let i = 0; i < 10; i++) {
        await get(`kept-${i}`, { traceparent: `00-${callerTrace}-${'b'.repeat(15)}${i}-01` });
        await get(`dropped-${i}`, { traceparent: `00-${'c'.repeat(31)}${i}-${'d'.repeat(15)}${i}-00` });
      }
      const ids = (prefix: string) =>
        spans()
          .map((span) => attribute(span, 'storefront.request_id'))
          .filter((id) => typeof id === 'string' && id.startsWith(prefix));
      const kept = await eventually(
        async () => ids('kept-'),
        (found) => found.length === 10,
        10_000,
      );
      expect(kept).toHaveLength(10);
      expect(spans().filter((span) => span.traceId === callerTrace)).toHaveLength(10);
      expect(ids('dropped-')).toEqual([]);
      // The budget held (10), and what refilled while the 400 were answered (10 a second); never a second's share each.
      const keptByDefault = ids('default-').length;
      expect(keptByDefault).toBeGreaterThanOrEqual(10);
      expect(keptByDefault).toBeLessThanOrEqual(10 + Math.ceil(10 * seconds));
    } finally {
      sampled.child.kill('SIGTERM');
      rmSync(sampledDataDir, { recursive: true, force: true });
    }
  });

  it('metrics over OTLP too', async () => {
    const names = await eventually(
      async () =>
        (
          (receiver.received.get('/v1/metrics') ?? []) as { resourceMetrics: { scopeMetrics: { metrics: { name: string }[] }[] }[] }[]
        ).flatMap((body) =>
          body.resourceMetrics.flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.name))),
        ),
      (found) => found.includes('http.server.request.duration') && found.includes('db.client.connection.count'),
      10_000,
    );
    expect(names).toContain('storefront.job_queue.depth');
  });
});
