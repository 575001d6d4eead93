import { type Attributes, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

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
