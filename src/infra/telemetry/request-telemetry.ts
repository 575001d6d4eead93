import { EntityManager } from '@mikro-orm/postgresql';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { context, type Span } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { observePool } from './metrics.js';

/**
 * What the HTTP instrumentation cannot know by itself: the route template (for the span's name, its
 * `http.route` and the request duration metric's label), the request id and the store. Also observes
 * the ORM's pool. Nothing is recorded while no SDK is started.
 */
export async function registerTelemetry(app: NestFastifyApplication): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  const spans = new WeakMap<FastifyRequest, Span>();
  fastify.addHook('onRequest', (request, _reply, done) => {
    const http = getRPCMetadata(context.active());
    if (http?.type === RPCType.HTTP) {
      // Unset for a path no route matches, so that scanners' paths never become labels.
      http.route = request.routeOptions.url;
      http.span?.setAttribute('storefront.request_id', request.id);
      if (http.span) spans.set(request, http.span);
    }
    done();
  });
  // onSend runs once the guards have named the caller, and before the response ends the span.
  fastify.addHook('onSend', (request, _reply, payload, done) => {
    const storeId = request.principal?.storeId ?? request.admin?.storeId ?? request.apiKey?.storeId;
    if (storeId) spans.get(request)?.setAttribute('storefront.store_id', storeId);
    done(null, payload);
  });
  observePool('orm', (await app.get(EntityManager).getConnection().getNativeClient()) as pg.Pool);
}
