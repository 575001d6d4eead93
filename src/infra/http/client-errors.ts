import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance } from 'fastify';
import { ApiError } from '../../common/errors/api-error.js';
import type { ErrorCode } from '../../common/errors/error-catalogue.js';
import { problemDocument } from '../../common/errors/problem.js';

const CLIENT_ERROR_CODES: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'REQUEST_HEADER_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
};

/**
 * Node's HTTP parser refuses some requests before Fastify sees them: bad framing, a request head over
 * the size limit, raw (not percent-encoded) non-ASCII bytes in the address. They get the problem
 * document too, written on the socket, which is then closed: after a parse error its framing cannot
 * be trusted. No header was parsed, so the request id is always a new one.
 */
export function answerClientError(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError = new ApiError(CLIENT_ERROR_CODES[error.code] ?? 'MALFORMED_REQUEST');
  const requestId = randomUUID();
  this.log.debug({ err: error, requestId }, 'request refused by the HTTP parser');
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify(problemDocument(apiError, requestId));
  const head = [
    `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}
