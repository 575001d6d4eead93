import { EntityManager } from '@mikro-orm/postgresql';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type Attributes, context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { observePool, recordHttpRequest } from './metrics.js';
import { telemetryState } from './state.js';

const tracer = trace.getTracer('storefront');

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
  const spans = new WeakMap<FastifyRequest, Span>();
  if (tracing) {
    fastify.addHook('onRequest', (request, _reply, done) => {
      const route = request.routeOptions.url;
      const attributes: Attributes = {
        'http.request.method': request.method,
        'url.path': request.url.split('?')[0],
        'storefront.request_id': request.id,
      };
      // Unset for a path no route matches, so that scanners' paths never name a span or a series.
      if (route) attributes['http.route'] = route;
      const parent = propagation.extract(ROOT_CONTEXT, request.headers);
      spans.set(
        request,
        tracer.startSpan(route ? `${request.method} ${route}` : request.method, { kind: SpanKind.SERVER, attributes }, parent),
      );
      done();
    });
    // The handler (Nest's guards, interceptors, pipes and the controller) runs inside the request's span.
    fastify.addHook('onRoute', (route) => {
      const handler = route.handler;
      route.handler = function (this: unknown, request, reply) {
        const span = spans.get(request);
        return span
          ? context.with(trace.setSpan(context.active(), span), () => handler.call(this as never, request, reply))
          : handler.call(this as never, request, reply);
      };
    });
  }
  fastify.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const route = request.routeOptions.url;
    if (metrics) recordHttpRequest(request.method, route, status, reply.elapsedTime / 1000);
    const span = spans.get(request);
    if (span) {
      const storeId = request.principal?.storeId ?? request.admin?.storeId ?? request.apiKey?.storeId;
      span.setAttribute('http.response.status_code', status);
      if (storeId) span.setAttribute('storefront.store_id', storeId);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute('error.type', String(status));
      span.end();
    }
    done();
  });
}
