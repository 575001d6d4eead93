import { type Attributes, type Context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type Sampler, SamplingDecision, type SamplingResult, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';

/**
 * The share of requests whose traces are kept when OTEL_TRACES_SAMPLER is not set. Keeping every one costs
 * about 20 µs of the service's CPU per request (its span made, batched, encoded and sent), two thirds of a
 * cached catalogue read (README "Telemetry", "Overhead"); every request is still measured by the metrics.
 */
export const DEFAULT_REQUEST_TRACE_RATIO = 0.1;

/**
 * The default sampler of a trace's first span: a job's (a consumer span: pg-boss's `process <queue>`) is always
 * kept, any other (a request's server span, or what a request left out starts) for `ratio` of trace ids. Behind
 * ParentBasedSampler, so a caller's `traceparent` decides for the request it sends.
 */
export class RequestRatioSampler implements Sampler {
  private readonly requests: TraceIdRatioBasedSampler;

  constructor(private readonly ratio: number) {
    this.requests = new TraceIdRatioBasedSampler(ratio);
  }

  shouldSample(context: Context, traceId: string, _name: string, kind: SpanKind): SamplingResult {
    return kind === SpanKind.CONSUMER ? { decision: SamplingDecision.RECORD_AND_SAMPLED } : this.requests.shouldSample(context, traceId);
  }

  toString(): string {
    return `RequestRatioSampler{jobs=always, others=${this.ratio}}`;
  }
}

/** Delegates to the SDK's tracer provider once one is registered; a no-op tracer until then and without one. */
const tracer = trace.getTracer('storefront');

/** Runs `work` inside a client span named `name` (an outbound call: SFTP, SMTP, a merchant's database), failed with its error. */
export function traced<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * `target` with each of its methods (its class's; own properties, a connector's `configType` class among
 * them, stay as they are) run inside a span named `<prefix> <method>` (`sftp list`). For objects whose
 * methods all answer promises, as connectors and the file locations they open do.
 */
export function tracedCalls<T extends object>(target: T, prefix: string, attributes: Attributes = {}): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || Object.hasOwn(object, property)) return value;
      return (...args: unknown[]) => traced(`${prefix} ${property}`, attributes, () => value.apply(object, args) as Promise<unknown>);
    },
  });
}
