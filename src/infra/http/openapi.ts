import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { BODY_MAX_DEPTH } from './json-body-parser.js';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Storefront service')
    .setDescription(
      [
        'Storefront commerce API. Exchange the server-held `X-Api-Key` for short-lived scoped tokens at `POST /v1/auth/anonymous`;',
        'every other storefront call needs `Authorization: Bearer <access token>` (or the `sf_access` cookie) carrying the scope',
        'named in `x-required-scope`. Every failure is an RFC 9457 problem document with `code`, `message_en`, `message_ar` and `requestId`.',
        'A field sent as `null` is accepted only where the schema allows `null` (it then clears the value); anywhere else it is refused',
        'with 400 `VALIDATION_FAILED` naming the field, like any other invalid value. Leave a field out to take its default.',
        `A JSON body may nest objects and lists at most ${BODY_MAX_DEPTH} deep; a deeper one is refused with 400 \`VALIDATION_FAILED\``,
        '(`validation_failed` under /admin) naming the field `(body)`.',
      ].join(' '),
    )
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }, 'apiKey')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addCookieAuth('sf_access', { type: 'apiKey', in: 'cookie', name: 'sf_access' }, 'cookie')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Dashboard: a staff or support access token.' },
      'adminBearer',
    )
    .addCookieAuth('adm_access', { type: 'apiKey', in: 'cookie', name: 'adm_access' }, 'adminCookie')
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** The page's other spellings; its assets are linked relative to its URL, which breaks with some of them (`/docs/index.html`, `/docs/?…`). */
const DOCS_PAGE_ALIASES = new Set(['/docs/', '/docs/index.html']);

/** Interactive docs at /docs (its other spellings redirect there) and the document itself at /docs/openapi.json. */
export function registerOpenApi(app: NestFastifyApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs/openapi.json',
    raw: ['json'],
  });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', async (request, reply) => {
      if (!request.url.startsWith('/docs/')) return;
      const queryStart = request.url.indexOf('?');
      const path = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
      if (DOCS_PAGE_ALIASES.has(path)) return reply.redirect(`/docs${queryStart === -1 ? '' : request.url.slice(queryStart)}`, 301);
    });
}
