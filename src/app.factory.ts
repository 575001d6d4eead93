import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { AppModule } from './app.module.js';
import { createValidationPipe } from './common/errors/validation.js';
import { registerDashboardWeb } from './dashboard-web/dashboard-web.js';
import type { AppConfig } from './infra/config/app-config.js';
import type { DatabaseConnection } from './infra/database/database-connection.js';
import { answerClientError, trackRequestTargets } from './infra/http/client-errors.js';
import { registerJsonBodyParser } from './infra/http/json-body-parser.js';
import { registerOpenApi } from './infra/http/openapi.js';
import { requestIdFor } from './infra/http/request-id.js';
import { answerFrameworkError, registerRequestGuards } from './infra/http/request-guards.js';
import { NestPinoLogger } from './infra/logging/logger.js';
import { registerTelemetry } from './infra/telemetry/request-telemetry.js';

export interface AppDependencies {
  config: AppConfig;
  database: DatabaseConnection;
  logger: Logger;
  schedulers?: boolean;
}

/** Builds the HTTP application: Fastify, the problem envelope for every failure, validation, docs. */
export async function createApp({ config, database, logger, schedulers }: AppDependencies): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    genReqId: requestIdFor,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // Node would answer a missing Host with a bare 400; the request guards refuse it in the envelope.
    http: { requireHostHeader: false },
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, database, { schedulers }), adapter, {
    logger: new NestPinoLogger(logger),
    abortOnError: false,
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  registerJsonBodyParser(fastify);
  await app.register(fastifyCookie);
  fastify.addHook('onRequest', async (request, reply) => {
    // Every answer says what it is: no browser reads a JSON body or a download as a script or a page.
    reply.header('X-Request-Id', request.id).header('X-Content-Type-Options', 'nosniff');
  });
  await registerTelemetry(app);
  trackRequestTargets(fastify);
  registerRequestGuards(fastify);
  // The dashboard web app's page and assets (not the API): /admin/, /admin/app/*, /admin/assets/*.
  registerDashboardWeb(fastify, config.dashboardDir);
  fastify.addHook('preHandler', async (request) => {
    request.body ??= {};
  });
  app.useGlobalPipes(createValidationPipe());
  registerOpenApi(app);
  await app.init();
  return app;
}
