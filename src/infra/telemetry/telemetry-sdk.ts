import { AwsInstrumentation } from '@opentelemetry/instrumentation-aws-sdk';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import {
  AggregationTemporality,
  AggregationType,
  type IMetricReader,
  InstrumentType,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ParentBasedSampler } from '@opentelemetry/sdk-trace';
import type { AppConfig } from '../config/app-config.js';
import { requestDurations } from './metrics.js';
import { OtlpWorkerExporters } from './otlp-worker-exporters.js';
import { telemetryState } from './state.js';
import { DEFAULT_REQUEST_TRACES_PER_SECOND, RateLimitedRequestSampler } from './tracing.js';

export interface Telemetry {
  /** Flushes what is buffered (spans, the last metrics) and stops the metrics server. */
  shutdown(): Promise<void>;
}

/** The OTLP endpoint of one signal, as the OpenTelemetry specification names its variables. */
function otlpEndpoint(env: NodeJS.ProcessEnv, signal: 'TRACES' | 'METRICS'): string | undefined {
  return env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`] || env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
}

/**
 * Starts OpenTelemetry when asked to: traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT (or its
 * traces variant) is set, metrics for Prometheus on METRICS_PORT and over OTLP to that endpoint.
 * Otherwise nothing starts (nor with OTEL_SDK_DISABLED=true): the API's calls stay no-ops.
 *
 * Must run before `pg`, `http` and the AWS SDK are first loaded, since their instrumentations patch
 * them as they load: src/main.ts loads the application only after this.
 */
export async function startTelemetry(config: AppConfig, env: NodeJS.ProcessEnv = process.env): Promise<Telemetry | null> {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  const tracing = otlpEndpoint(env, 'TRACES') !== undefined && env.OTEL_TRACES_EXPORTER !== 'none';
  const readers: IMetricReader[] = [];
  if (config.METRICS_PORT !== undefined) {
    const prometheus = new PrometheusExporter({
      host: config.HOST,
      port: config.METRICS_PORT,
      preventServerStart: true,
      metricProducers: [requestDurations.producer(() => AggregationTemporality.CUMULATIVE)],
    });
    // Started here rather than by the exporter, so that a port in use stops the start with its error.
    await prometheus.startServer();
    readers.push(prometheus);
  }
  // OTLP over HTTP (protobuf, or JSON with the protocol `http/json`) is sent from a worker thread
  // (otlp-worker-exporters.ts); traces over gRPC, or to any other exporter OTEL_TRACES_EXPORTER names, as the SDK sends them.
  const protocol = (signal: 'TRACES' | 'METRICS') =>
    env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  const otlpMetrics = otlpEndpoint(env, 'METRICS') !== undefined && env.OTEL_METRICS_EXPORTER !== 'none';
  const tracesThroughWorker = tracing && protocol('TRACES').startsWith('http/') && (env.OTEL_TRACES_EXPORTER ?? 'otlp').trim() === 'otlp';
  const otlpWorker = tracesThroughWorker || otlpMetrics ? new OtlpWorkerExporters(env) : undefined;
  if (otlpWorker && otlpMetrics) {
    const exporter = otlpWorker.metricExporter(protocol('METRICS') === 'http/json');
    const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL) || 60_000;
    readers.push(
      new PeriodicExportingMetricReader({
        exporter,
        exportIntervalMillis: interval,
        exportTimeoutMillis: Math.min(interval, 30_000),
        metricProducers: [requestDurations.producer(() => exporter.selectAggregationTemporality!(InstrumentType.HISTOGRAM))],
      }),
    );
  }
  if (!tracing && readers.length === 0) return null;

  const defaultSampler = tracing && !env.OTEL_TRACES_SAMPLER ? new RateLimitedRequestSampler(DEFAULT_REQUEST_TRACES_PER_SECOND) : undefined;
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ? undefined : 'storefront',
    metricReaders: readers,
    // Traces from the OTEL_* variables (exporter, protocol, sampler…); none at all without an endpoint.
    ...(tracing ? {} : { spanProcessors: [] }),
    ...(tracesThroughWorker ? { traceExporter: otlpWorker!.traceExporter(protocol('TRACES') === 'http/json') } : {}),
    ...(defaultSampler ? { sampler: new ParentBasedSampler({ root: defaultSampler }) } : {}),
    logRecordProcessors: [],
    views: [
      // One storage for each of the service's instruments whatever the number of readers (Prometheus, OTLP):
      // without a view, the SDK keeps one per reader and every measurement is recorded in each.
      { meterName: 'storefront' },
      // The pools are observed by name (observePool); the instrumentation's own counts would name them by address.
      {
        meterName: '@opentelemetry/instrumentation-pg',
        instrumentName: 'db.client.connection.*',
        aggregation: { type: AggregationType.DROP },
      },
    ],
    // HTTP requests are traced and measured by Fastify hooks (request-telemetry.ts): Node's HTTP instrumentation
    // added about 100 µs of CPU to a cached catalogue read of about 300 µs (attributes, emitters bound to the context).
    // Queries are traced inside a request or a job only (the schedulers' polling alone would be a trace every second),
    // without a span for each connection taken from a pool: db_client_connection_pending_requests tells the waits.
    instrumentations: tracing
      ? [
          new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
          new AwsInstrumentation({ suppressInternalInstrumentation: true }),
        ]
      : [],
  });
  sdk.start();
  telemetryState.tracing = tracing;
  telemetryState.metrics = readers.length > 0;
  if (defaultSampler) telemetryState.mayKeepRequestTrace = () => defaultSampler.mayKeep();
  return { shutdown: () => sdk.shutdown().finally(() => otlpWorker?.close()) };
}
