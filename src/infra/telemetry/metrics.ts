import { type Attributes, metrics, type Meter } from '@opentelemetry/api';
import type pg from 'pg';
import { type DurationSeries, RequestDurations } from './request-durations.js';

/**
 * The service's own metrics (the `storefront.*` names, and the pools' under OpenTelemetry's database
 * conventions). Every function is a no-op while no SDK is started (src/infra/telemetry/telemetry-sdk.ts).
 * README "Telemetry" lists each metric.
 */

export type RateLimiter = 'api_key' | 'shopper_sign_in' | 'staff_sign_in' | 'one_time_code';

/** One queue as pg-boss's monitor last counted it. */
export interface QueueCounts {
  name: string;
  /** Jobs not started yet: ready, deferred (a retry's wait, a later start) and blocked. */
  queuedCount: number;
  /** How long the oldest job ready to run had waited; null until the monitor has counted the queue. */
  readyOldestSeconds: number | null;
}

const pools = new Map<string, pg.Pool>();
let readQueues: (() => Promise<QueueCounts[]>) | undefined;
let readFoldLag: (() => Promise<number>) | undefined;
let instruments: ReturnType<typeof createInstruments> | undefined;

/** Made at first use, once the SDK (when there is one) has registered its meter provider: main.ts starts it before loading the rest. */
function ours(): ReturnType<typeof createInstruments> {
  return (instruments ??= createInstruments(metrics.getMeter('storefront')));
}

function createInstruments(meter: Meter) {
  const connections = meter.createObservableUpDownCounter('db.client.connection.count', {
    description: 'Connections of the pool, by state: used (lent out) or idle.',
    unit: '{connection}',
  });
  const connectionMax = meter.createObservableUpDownCounter('db.client.connection.max', {
    description: 'The most connections the pool opens.',
    unit: '{connection}',
  });
  const pendingRequests = meter.createObservableUpDownCounter('db.client.connection.pending_requests', {
    description: 'Callers waiting for a connection of the pool.',
    unit: '{request}',
  });
  meter.addBatchObservableCallback(
    (result) => {
      for (const [name, pool] of pools) {
        if (pool.ended) {
          pools.delete(name);
          continue;
        }
        const named = { 'db.client.connection.pool.name': name };
        result.observe(connections, pool.totalCount - pool.idleCount, { ...named, 'db.client.connection.state': 'used' });
        result.observe(connections, pool.idleCount, { ...named, 'db.client.connection.state': 'idle' });
        result.observe(connectionMax, pool.options.max ?? 10, named);
        result.observe(pendingRequests, pool.waitingCount, named);
      }
    },
    [connections, connectionMax, pendingRequests],
  );

  const queueDepth = meter.createObservableGauge('storefront.job_queue.depth', {
    description: 'Jobs of the queue not started yet (ready, waiting for a retry or a later start, blocked), as pg-boss last counted them.',
    unit: '{job}',
  });
  const oldestReady = meter.createObservableGauge('storefront.job_queue.oldest_ready_age', {
    description: 'How long the oldest job of the queue that is ready to run has waited.',
    unit: 's',
  });
  meter.addBatchObservableCallback(
    async (result) => {
      for (const queue of (await readQueues?.().catch(() => [])) ?? []) {
        result.observe(queueDepth, queue.queuedCount, { queue: queue.name });
        if (queue.readyOldestSeconds !== null) result.observe(oldestReady, queue.readyOldestSeconds, { queue: queue.name });
      }
    },
    [queueDepth, oldestReady],
  );

  meter
    .createObservableGauge('storefront.insights.fold_lag', {
      description: 'Age of the oldest change not yet folded into the Insights rollups (0 when none waits).',
      unit: 's',
    })
    .addCallback(async (result) => {
      const lag = await readFoldLag?.().catch(() => undefined);
      if (lag !== undefined) result.observe(lag);
    });

  return {
    rateLimitRefusals: meter.createCounter('storefront.rate_limit.refusals', {
      description: 'Requests refused with 429, by the limit that refused them.',
      unit: '{request}',
    }),
    dataHubRows: meter.createCounter('storefront.data_hub.rows', {
      description: 'Rows data hub runs read, previews included, counted as each run ends.',
      unit: '{row}',
    }),
    insightsExportRows: meter.createCounter('storefront.insights.export.rows', {
      description: 'Rows written into Insights export files, counted as each export succeeds.',
      unit: '{row}',
    }),
  };
}

/** Reports the pool's connections (used, idle, the most) and the callers waiting for one, named `name`, until it ends. */
export function observePool(name: string, pool: pg.Pool): void {
  pools.set(name, pool);
  ours();
}

/** Reports each queue's depth and the age of its oldest ready job from `read`, at each collection. */
export function observeJobQueues(read: () => Promise<QueueCounts[]>): void {
  readQueues = read;
  ours();
}

/** Reports the Insights fold lag from `read`, at each collection. */
export function observeFoldLag(read: () => Promise<number>): void {
  readFoldLag = read;
  ours();
}

/** `http.server.request.duration`, read by every metric reader the SDK starts (telemetry-sdk.ts). */
export const requestDurations = new RequestDurations();

/** The series of `http.server.request.duration` of a route template (none when no route matched), method and status. */
export function httpRequestSeries(method: string, route: string | undefined, status: number): DurationSeries {
  const attributes: Attributes = { 'http.request.method': method, 'http.response.status_code': status };
  if (route) attributes['http.route'] = route;
  if (status >= 500) attributes['error.type'] = String(status);
  return requestDurations.series(attributes);
}

export function countRateLimitRefusal(limiter: RateLimiter): void {
  ours().rateLimitRefusals.add(1, { limiter });
}

export function countDataHubRows(direction: 'import' | 'export', rows: number): void {
  ours().dataHubRows.add(rows, { direction });
}

export function countInsightsExportRows(format: string, rows: number): void {
  ours().insightsExportRows.add(rows, { format });
}
