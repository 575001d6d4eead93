import { Worker } from 'node:worker_threads';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { OTLPMetricExporterBase } from '@opentelemetry/exporter-metrics-otlp-http';
import { type IOtlpExportDelegate, OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  type ISerializer,
  JsonMetricsSerializer,
  JsonTraceSerializer,
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
} from '@opentelemetry/otlp-transformer';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

export type OtlpSignal = 'traces' | 'metrics';
type Request = { kind: 'export'; signal: OtlpSignal; json: boolean; bytes: Uint8Array } | { kind: 'flush' | 'shutdown' };
export type ToWorker = Request & { id: number };
interface FromWorker {
  id: number;
  code: ExportResultCode;
  error?: string;
}

/**
 * OTLP exporters (over HTTP, protobuf or JSON) whose requests are sent from a worker thread. Spans and metrics are
 * serialized here, as the SDK's own exporters do; the HTTP request goes out from the worker (otlp-export-worker.ts),
 * with the SDK's own delegate there (endpoint, headers, compression, timeout, retries). Sent from the service's own
 * thread, the exporters' HTTP client runs through the same Node stream and HTTP functions as the API's requests, and
 * its objects turned their property reads megamorphic for every request after: under callgrind, a cached catalogue
 * read then spent its extra instructions in Node's stream functions reading through the megamorphic stub cache. With
 * the exports in a worker, which has a JavaScript engine and such state of its own, a cached product read runs at
 * 0.98 of telemetry off instead of 0.79 (README "Telemetry", "Overhead").
 */
export class OtlpWorkerExporters {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (answer: FromWorker) => void>();
  private lastId = 0;
  private stopped: string | null = null;

  /** `env`: where the worker reads the OTEL_EXPORTER_OTLP_* variables. */
  constructor(env: NodeJS.ProcessEnv) {
    this.worker = new Worker(new URL('./otlp-export-worker.js', import.meta.url), { env });
    // Never what keeps the process alive: close() sends what is left.
    this.worker.unref();
    this.worker.on('message', (answer: FromWorker) => {
      this.waiting.get(answer.id)?.(answer);
      this.waiting.delete(answer.id);
    });
    this.worker.on('error', (error) => this.stop(`the OTLP export worker failed: ${error.message}`));
    this.worker.on('exit', () => this.stop('the OTLP export worker stopped'));
  }

  traceExporter(json: boolean): SpanExporter {
    return new OTLPExporterBase<ReadableSpan[]>(this.delegate('traces', json, json ? JsonTraceSerializer : ProtobufTraceSerializer));
  }

  /** Its temporality and aggregation chosen as the SDK's OTLP metric exporter chooses them (OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE). */
  metricExporter(json: boolean): PushMetricExporter {
    return new OTLPMetricExporterBase(this.delegate('metrics', json, json ? JsonMetricsSerializer : ProtobufMetricsSerializer));
  }

  /** Sends what is in flight, then stops the worker. */
  async close(): Promise<void> {
    await this.ask({ kind: 'shutdown' });
    await this.worker.terminate();
  }

  private delegate<T>(signal: OtlpSignal, json: boolean, serializer: ISerializer<T, unknown>): IOtlpExportDelegate<T> {
    const flush = () => this.ask({ kind: 'flush' }).then(() => undefined);
    return {
      export: (items, resultCallback: (result: ExportResult) => void) => {
        const bytes = serializer.serializeRequest(items);
        if (!bytes) return resultCallback({ code: ExportResultCode.FAILED, error: new Error('Nothing to send') });
        void this.ask({ kind: 'export', signal, json, bytes }).then((answer) =>
          resultCallback({ code: answer.code, error: answer.error === undefined ? undefined : new Error(answer.error) }),
        );
      },
      forceFlush: flush,
      // The worker is shared by both signals: close() stops it once the SDK has shut every exporter down.
      shutdown: flush,
      setMetrics: () => undefined,
    };
  }

  private ask(request: Request): Promise<FromWorker> {
    const id = ++this.lastId;
    if (this.stopped !== null) return Promise.resolve({ id, code: ExportResultCode.FAILED, error: this.stopped });
    return new Promise((answered) => {
      this.waiting.set(id, answered);
      this.worker.postMessage({ ...request, id } satisfies ToWorker);
    });
  }

  private stop(error: string): void {
    this.stopped ??= error;
    for (const [id, answered] of this.waiting) answered({ id, code: ExportResultCode.FAILED, error });
    this.waiting.clear();
  }
}
