import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance } from 'fastify';
import { ApiError } from '../../common/errors/api-error.js';
import { dialectOf, type ErrorCode } from '../../common/errors/error-catalogue.js';
import { problemDocument } from '../../common/errors/problem.js';

const CLIENT_ERROR_CODES: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'REQUEST_HEADER_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
};

/** The request being answered on each connection: a refusal of its body names no target of its own. */
const inFlight = new WeakMap<Socket, { request: object; target: string }>();

/** A request line (RFC 9112: method, space, origin-form target) at the start of the bytes or of a line. */
const REQUEST_LINE = /(?:^|\r\n)[!#$%&'*+.^_`|~0-9A-Za-z-]+ (\/[^ \r\n]*)/g;

/** Remembers each request on its connection while it is answered (see refusedTarget). */
export function trackRequestTargets(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request) => {
    inFlight.set(request.raw.socket, { request: request.raw, target: request.url });
  });
  fastify.addHook('onResponse', async (request) => {
    if (inFlight.get(request.raw.socket)?.request === request.raw) inFlight.delete(request.raw.socket);
  });
}

/**
 * Node's HTTP parser refuses some requests before Fastify sees them: bad framing, a request head over
 * the size limit, raw (not percent-encoded) non-ASCII bytes in the address, a request that does not
 * arrive in time. They get the problem document too, written on the socket, which is then closed: after
 * a parse error its framing cannot be trusted. The request id is always a new one: most were refused
 * before any header was read.
 */
export function answerClientError(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError = new ApiError(CLIENT_ERROR_CODES[error.code] ?? 'MALFORMED_REQUEST');
  const requestId = randomUUID();
  this.log.debug({ err: error, requestId }, 'request refused by the HTTP parser');
  if (!socket.writable) return void socket.destroy();
  // Under /admin the dashboard's dialect (lower_snake codes); a request of unknown target gets the storefront's.
  const target = refusedTarget(error, socket);
  const body = JSON.stringify(problemDocument(apiError, requestId, target === undefined ? 'storefront' : dialectOf(target)));
  const head = [
    `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'X-Content-Type-Options: nosniff',
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}

/**
 * The refused request's target, as far as Node tells it. It hands over the bytes it was parsing: the
 * last request line before the fault in them is the refused request's (those before it were read
 * whole). A fault in a body comes with body bytes only: the request in flight on the connection is
 * the one. A head that never arrived whole (a timeout before its end, or a head over the limit read in
 * several parts) names no target Node gives away.
 */
function refusedTarget(error: ConnectionError, socket: Socket): string | undefined {
  return targetInPacket(error) ?? inFlight.get(socket)?.target;
}

function targetInPacket(error: ConnectionError): string | undefined {
  // Node's parse errors carry the bytes as a Buffer (Fastify's type has them serialised); a timeout carries neither.
  const { rawPacket, bytesParsed } = error as { rawPacket?: unknown; bytesParsed?: unknown };
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  const faultAt = typeof bytesParsed === 'number' ? bytesParsed : rawPacket.length;
  let target: string | undefined;
  for (const line of rawPacket.toString('latin1').matchAll(REQUEST_LINE)) if (line.index <= faultAt) target = line[1];
  return target;
}
