import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { NOT_ALLOWED_FIELD, textProblem } from '../../common/validation/text.js';

/** Route config flag (`@RouteConfig({ [RAW_BODY_ROUTE]: true })`): the handler reads the body itself, as a stream. */
export const RAW_BODY_ROUTE = 'rawBody';
/**
 * Route config flag (`@RouteConfig({ [FORM_BODY_ROUTE]: true })`): the route also reads an HTML form's
 * `application/x-www-form-urlencoded` body, for a browser's native form post (the dashboard's support entry).
 */
export const FORM_BODY_ROUTE = 'formBody';

/** Keys that would reach an object's prototype once the body is copied into a DTO. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * How deep a body may nest objects and lists. Nothing the API reads nests half as deep; past it, the
 * checks below and the DTO's validation would walk a body as deep as the body limit lets it be.
 */
export const BODY_MAX_DEPTH = 64;

/**
 * JSON is the only body the API reads (anything else is 415), but for file uploads and the form routes. An empty body counts as no body, so a
 * cookie refresh can be a bare POST; a body must be a JSON object. Text PostgreSQL cannot store (NUL,
 * lone UTF-16 surrogates) and prototype keys are refused here, naming the field, for every route.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  // Fastify tests the whole header, parameters included (`application/json; charset=utf-8`).
  fastify.addContentTypeParser(/^application\/([\w.+-]+\+)?json\s*(;.*)?$/i, { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    // Read before parsing: a megabyte of `[` would otherwise be built into a million nested lists first.
    if (nestsDeeperThan(text, BODY_MAX_DEPTH)) {
      return done(
        invalidField('(body)', 'maxDepth', {
          en: `The body must not nest objects and lists more than ${BODY_MAX_DEPTH} deep.`,
          ar: `يجب ألا يتداخل في المحتوى أكثر من ${BODY_MAX_DEPTH} مستوى من الكائنات والقوائم.`,
        }),
        undefined,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(new ApiError('MALFORMED_BODY'), undefined);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return done(
        invalidField('(body)', 'isObject', { en: 'The body must be a JSON object.', ar: 'يجب أن يكون المحتوى كائن JSON.' }),
        undefined,
      );
    }
    const refused = refusal(parsed, '');
    if (refused) return done(refused, undefined);
    done(null, parsed);
  });

  // A file upload's body is whatever the file holds, whatever type the client names: the handler
  // streams it (never buffered, so no body limit applies but the route's own). Elsewhere it is 415.
  fastify.addHook('preParsing', async (request, _reply, payload) => {
    if (isRawBodyRoute(request)) request.headers['content-type'] = 'application/octet-stream';
    return payload;
  });
  fastify.addContentTypeParser('application/octet-stream', (request, payload, done) => {
    if (isRawBodyRoute(request)) return done(null, payload);
    done(new ApiError('UNSUPPORTED_MEDIA_TYPE'), undefined);
  });

  fastify.addContentTypeParser(/^application\/x-www-form-urlencoded\s*(;.*)?$/i, { parseAs: 'string' }, (request, body, done) => {
    if (!routeFlag(request, FORM_BODY_ROUTE)) return done(new ApiError('UNSUPPORTED_MEDIA_TYPE'), undefined);
    const parsed = Object.fromEntries(new URLSearchParams(body as string));
    done(refusal(parsed, ''), parsed);
  });
}

function isRawBodyRoute(request: FastifyRequest): boolean {
  return routeFlag(request, RAW_BODY_ROUTE);
}

function routeFlag(request: FastifyRequest, flag: typeof RAW_BODY_ROUTE | typeof FORM_BODY_ROUTE): boolean {
  return (request.routeOptions.config as { [key in typeof flag]?: boolean } | undefined)?.[flag] === true;
}

/** Whether JSON text opens more than `limit` objects and lists inside one another (brackets in strings are text). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      if (++depth > limit) return true;
    } else if (char === '}' || char === ']') {
      depth--;
    }
  }
  return false;
}

/** The first field, depth first, whose key or text the service refuses whatever the route (the body's depth is bounded). */
function refusal(value: unknown, path: string): ApiError | null {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem && invalidField(path, problem.code, problem.message);
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    const field = path ? `${path}.${key}` : key;
    if (PROTOTYPE_KEYS.has(key) || textProblem(key)) return invalidField(field, 'whitelistValidation', NOT_ALLOWED_FIELD);
    const found = refusal(child, field);
    if (found) return found;
  }
  return null;
}
