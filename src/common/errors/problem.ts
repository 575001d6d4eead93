import { STATUS_CODES as REASON_PHRASES } from 'node:http';
import { HttpException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from './database-unavailable.js';
import { ApiError, invalidField } from './api-error.js';
import { codeIn, dialectOf, ERRORS, type ErrorCode, type ErrorDialect } from './error-catalogue.js';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_BODY',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_BODY',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'MALFORMED_BODY',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_NOT_FOUND: 'NOT_FOUND',
  // An over-long path parameter (fastify's 414): no record has an id or slug that long.
  FST_ERR_MAX_PARAM_LENGTH: 'NOT_FOUND',
};

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHENTICATED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/** Turns anything thrown while serving a request into the catalogued ApiError it stands for. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // Nest wraps errors raised by Fastify itself (body parsing, limits) in an HttpException.
  if (error instanceof HttpException && error.cause) return toApiError(error.cause);
  if (error instanceof ThrottlerException) return new ApiError('RATE_LIMITED');
  if (error instanceof HttpException) return new ApiError(STATUS_CODES[error.getStatus()] ?? 'INTERNAL_ERROR');
  const fastifyCode = (error as { code?: unknown })?.code;
  if (fastifyCode === 'FST_ERR_BAD_URL') {
    return invalidField('(url)', 'badUrl', { en: 'The address is not validly encoded.', ar: 'ترميز العنوان غير صالح.' });
  }
  if (typeof fastifyCode === 'string' && FASTIFY_CODES[fastifyCode]) return new ApiError(FASTIFY_CODES[fastifyCode]);
  const statusCode = (error as { statusCode?: unknown })?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return new ApiError(STATUS_CODES[statusCode] ?? 'VALIDATION_FAILED');
  }
  if (isDatabaseUnavailable(error)) return new ApiError('SERVICE_UNAVAILABLE', { headers: { 'Retry-After': 5 } });
  return new ApiError('INTERNAL_ERROR');
}

/** Writes the RFC 9457 problem document of the contract (section 2). */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const apiError = toApiError(error);
  if (apiError.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'request failed');
  else if (apiError.status >= 500) request.log.warn({ code: apiError.code, cause: (error as Error)?.message }, 'request refused');
  for (const [name, value] of Object.entries(apiError.options.headers ?? {})) reply.header(name, value);
  // Also here, not only in the onRequest hook: some refusals happen before hooks run.
  reply.header('X-Request-Id', request.id).header('X-Content-Type-Options', 'nosniff');
  return reply
    .code(apiError.status)
    .type('application/problem+json')
    .send(problemDocument(apiError, request.id, dialectOf(request.url)));
}

/** The body of a problem answer: the catalogue's title and messages, the request id, the error's extras. */
export function problemDocument(apiError: ApiError, requestId: string, dialect: ErrorDialect = 'storefront'): Record<string, unknown> {
  const definition = ERRORS[apiError.code];
  const { details, errors, suggestion, message } = apiError.options;
  return {
    type: 'about:blank',
    // RFC 9457: with `about:blank` the title is the status's reason phrase.
    title: apiError.status === definition.status ? definition.title : (REASON_PHRASES[apiError.status] ?? definition.title),
    status: apiError.status,
    code: codeIn(dialect, apiError.code),
    message_en: message?.en ?? definition.message_en,
    message_ar: message?.ar ?? definition.message_ar,
    requestId,
    ...details,
    ...(errors ? { errors } : {}),
    ...(suggestion ? { suggestion } : {}),
  };
}
