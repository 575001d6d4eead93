import { type Attributes, type Context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type Sampler, SamplingDecision, type SamplingResult } from '@opentelemetry/sdk-trace';

/**
 * The most requests' traces an instance keeps a second when OTEL_TRACES_SAMPLER is not set: every request while
 * traffic is light, a bounded cost when it is heavy. Keeping every trace costs about 20 µs of the service's CPU per
 * request (its span made, batched, encoded and sent), two thirds of a cached catalogue read; a tenth of them still
 * cost 8 % of its throughput (README "Telemetry", "Overhead"). Every request is measured by the metrics all the same.
 */
export const DEFAULT_REQUEST_TRACES_PER_SECOND = 10;

/**
 * The default sampler of a trace's first span: a job's (a consumer span: pg-boss's `process <queue>`) is always
 * kept; any other (a request's server span, or what a request left out starts) while the instance has kept fewer
 * than `perSecond` such traces in the last second (a token bucket holding a second's worth, so a burst after a
 * quiet spell is kept up to that). Behind ParentBasedSampler, so a caller's `traceparent` decides for the request
 * it sends.
 */
export class RateLimitedRequestSampler implements Sampler {
  private credits: number;
  private refilledAt: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.credits = perSecond;
    this.refilledAt = now();
  }

  shouldSample(_context: Context, _traceId: string, _name: string, kind: SpanKind): SamplingResult {
    if (kind === SpanKind.CONSUMER) return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    if (!this.mayKeep()) return { decision: SamplingDecision.NOT_RECORD };
    this.credits -= 1;
    return { decision: SamplingDecision.RECORD_AND_SAMPLED };
  }

  /** Whether a trace other than a job's would be kept now: a whole credit is left. */
  mayKeep(): boolean {
    const now = this.now();
    this.credits = Math.min(this.perSecond, this.credits + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
    return this.credits >= 1;
  }

  toString(): string {
    return `RateLimitedRequestSampler{jobs=always, others=${this.perSecond}/s}`;
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
