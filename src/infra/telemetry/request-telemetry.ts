import { EntityManager } from '@mikro-orm/postgresql';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type pg from 'pg';
import { observePool, recordHttpRequest } from './metrics.js';
import { telemetryState } from './state.js';

const tracer = trace.getTracer('storefront');
/** Where a request keeps its server span while it is answered. */
const SPAN = Symbol('telemetry span');

declare module 'fastify' {
  interface FastifyRequest {
    [SPAN]: Span | null;
  }
}

/**
 * Each HTTP request as a server span named by its route template (`GET /v1/catalogue/products/:idOrSlug`),
 * with its status, store and request id, the handler's work (queries, jobs sent) under it; and its duration
 * by route template and status. Also observes the ORM's pool. Hooks only while telemetry is on.
 */
export async function registerTelemetry(app: NestFastifyApplication): Promise<void> {
  observePool('orm', (await app.get(EntityManager).getConnection().getNativeClient()) as pg.Pool);
  const { tracing, metrics } = telemetryState;
  if (!tracing && !metrics) return;
  const fastify = app.getHttpAdapter().getInstance();
  if (tracing) {
    // A property of the request rather than a WeakMap: tens of thousands of requests a second made its ephemerons
    // a cost of their own for the collector. Declared once, so every request keeps one shape.
    fastify.decorateRequest(SPAN, null);
    fastify.addHook('onRequest', (request, _reply, done) => {
      // Only a caller's `traceparent` can make the request a child; without one, no propagator need read the headers.
      const parent = request.headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, request.headers);
      // Named by its route once answered (onResponse), where the route template is read for the metrics too.
      const span = tracer.startSpan(request.method, { kind: SpanKind.SERVER }, parent);
      // Attributes only on spans kept: a request the sampler leaves out (most, by default) builds none.
      if (span.isRecording()) {
        const query = request.url.indexOf('?');
        span.setAttributes({
          'http.request.method': request.method,
          'url.path': query === -1 ? request.url : request.url.slice(0, query),
          'storefront.request_id': request.id,
        });
      }
      request[SPAN] = span;
      done();
    });
    // The handler (Nest's guards, interceptors, pipes and the controller) runs inside a kept request's span, so its
    // queries, calls and the jobs it sends are under it. A request left out runs as it would without telemetry:
    // running every one inside its span's context cost 14 % of a cached catalogue read's throughput (0.78 of off
    // with no trace kept, 0.92 without that context). What such a request starts begins a trace of its own,
    // kept or not by the sampler as any other.
    fastify.addHook('onRoute', (route) => {
      const handler = route.handler;
      route.handler = function (this: unknown, request, reply) {
        const span = request[SPAN];
        return span?.isRecording()
          ? context.with(trace.setSpan(context.active(), span), () => handler.call(this as never, request, reply))
          : handler.call(this as never, request, reply);
      };
    });
  }
  fastify.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const route = request.routeOptions.url;
    if (metrics) recordHttpRequest(request.method, route, status, reply.elapsedTime / 1000);
    const span = request[SPAN];
    if (span?.isRecording()) {
      // Unset for a path no route matches, so that scanners' paths never name a span or a series.
      if (route) span.updateName(`${request.method} ${route}`).setAttribute('http.route', route);
      const storeId = request.principal?.storeId ?? request.admin?.storeId ?? request.apiKey?.storeId;
      span.setAttribute('http.response.status_code', status);
      if (storeId) span.setAttribute('storefront.store_id', storeId);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute('error.type', String(status));
      span.end();
    }
    done();
  });
}
