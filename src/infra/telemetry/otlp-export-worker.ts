import { parentPort } from 'node:worker_threads';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { type IOtlpExportDelegate } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import {
  type IExporterMetricsHelper,
  type ISerializer,
  JsonMetricsSerializer,
  JsonTraceSerializer,
  MetricsExporterMetricsHelper,
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
} from '@opentelemetry/otlp-transformer';
import type { OtlpSignal, ToWorker } from './otlp-worker-exporters.js';

/**
 * The worker thread that sends the OTLP requests the service's exporters serialized (otlp-worker-exporters.ts), with
 * the OpenTelemetry exporters' own HTTP delegate: the endpoint, headers, compression, timeout and retries of the
 * OTEL_EXPORTER_OTLP_* variables, read here from the same environment.
 */
const SIGNALS = {
  traces: {
    env: 'TRACES',
    path: 'v1/traces',
    json: JsonTraceSerializer,
    protobuf: ProtobufTraceSerializer,
    helper: TraceExporterMetricsHelper,
  },
  metrics: {
    env: 'METRICS',
    path: 'v1/metrics',
    json: JsonMetricsSerializer,
    protobuf: ProtobufMetricsSerializer,
    helper: MetricsExporterMetricsHelper,
  },
} as const;

/** One delegate per signal and encoding, made at its first export. */
const delegates = new Map<string, IOtlpExportDelegate<Uint8Array>>();

function delegateOf(signal: OtlpSignal, json: boolean): IOtlpExportDelegate<Uint8Array> {
  const key = `${signal} ${json ? 'json' : 'protobuf'}`;
  let delegate = delegates.get(key);
  if (!delegate) {
    const { env, path, helper } = SIGNALS[signal];
    const serializer = (json ? SIGNALS[signal].json : SIGNALS[signal].protobuf) as ISerializer<unknown, unknown>;
    // The request arrives serialized; the answer (a partial success) is read as the exporter would.
    const passThrough: ISerializer<Uint8Array, unknown> = {
      serializeRequest: (bytes) => bytes,
      deserializeResponse: (data) => serializer.deserializeResponse(data),
    };
    const contentType = json ? 'application/json' : 'application/x-protobuf';
    const options = convertLegacyHttpOptions({}, env, path, { 'Content-Type': contentType });
    // The exporter's own metrics are not made here (no meter provider in the worker): it has nothing to count.
    const uncounted: IExporterMetricsHelper<Uint8Array> = { name: helper.name, countItems: () => 0 };
    delegate = createOtlpHttpExportDelegate(options, passThrough, `otlp_http_${signal}_exporter`, uncounted, undefined);
    delegates.set(key, delegate);
  }
  return delegate;
}

parentPort!.on('message', (message: ToWorker) => {
  const answer = (result: ExportResult | null, error?: unknown) =>
    parentPort!.postMessage({
      id: message.id,
      code: result?.code ?? ExportResultCode.FAILED,
      error: error === undefined ? result?.error?.message : String(error),
    });
  if (message.kind === 'export') {
    try {
      delegateOf(message.signal, message.json).export(message.bytes, (result) => answer(result));
    } catch (error) {
      answer(null, error);
    }
    return;
  }
  const all = [...delegates.values()];
  const done = message.kind === 'flush' ? Promise.all(all.map((one) => one.forceFlush())) : Promise.all(all.map((one) => one.shutdown()));
  done.then(
    () => answer({ code: ExportResultCode.SUCCESS }),
    (error) => answer(null, error),
  );
});
