import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RenderedJson } from '../../storefront/catalogue/catalogue-cache.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends a pre-rendered JSON response: 304 when the client holds the same ETag, gzip when the client
 * accepts it (compressed once per rendering, not per request), the bytes as they are otherwise.
 */
export function sendRendered(request: FastifyRequest, reply: FastifyReply, page: RenderedJson): FastifyReply {
  reply.header('ETag', page.etag).header('Vary', 'Accept-Encoding').header('Cache-Control', 'private, no-cache');
  if (request.headers['if-none-match'] === page.etag) return reply.code(304).send();
  const gzipped = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '') ? page.gzip() : undefined;
  if (gzipped) return reply.header('Content-Encoding', 'gzip').type(JSON_TYPE).send(gzipped);
  return reply.type(JSON_TYPE).send(page.body);
}
