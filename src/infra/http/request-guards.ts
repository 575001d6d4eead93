import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { sendProblem } from '../../common/errors/problem.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Checks made before routing reaches Nest:
 * - an HTTP/1.1 request must name its Host;
 * - a NUL character anywhere in the URL is refused (PostgreSQL text cannot hold one, so it would
 *   otherwise surface as a database error, i.e. a 500);
 * - a path that exists under other methods answers 405 with `Allow`, not 404.
 */
export function registerRequestGuards(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request) => {
    // RFC 9112 section 3.2: an HTTP/1.1 request without Host is refused with 400.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) throw new ApiError('MALFORMED_REQUEST');
    if (/%00/i.test(request.url)) {
      throw invalidField('(url)', 'nulCharacter', {
        en: 'The address must not contain a NUL character.',
        ar: 'يجب ألا يحتوي العنوان على محرف NUL.',
      });
    }
    if (!request.is404) return;
    const path = request.url.split('?', 1)[0];
    const allowed = METHODS.filter((method) => method !== request.method && routeExists(fastify, method, path));
    if (allowed.length > 0) throw new ApiError('METHOD_NOT_ALLOWED', { headers: { Allow: allowed.join(', ') } });
  });
}

function routeExists(fastify: FastifyInstance, method: string, path: string): boolean {
  try {
    return fastify.findRoute({ method: method as 'GET', url: path }) !== null;
  } catch {
    return false;
  }
}

/**
 * Fastify's router refuses some requests before any hook or Nest filter runs (a malformed URL, an
 * over-long path parameter). Answer those with the same problem document as everything else.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendProblem(request, reply, error);
}
