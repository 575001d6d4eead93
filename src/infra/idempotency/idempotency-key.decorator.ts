import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error.js';

/** 1 to 255 visible ASCII characters (a UUID is the usual choice). */
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

const idempotencyKeyParameter = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const header = context.switchToHttp().getRequest<FastifyRequest>().headers['idempotency-key'];
  if (header === undefined || header === '') throw new ApiError('IDEMPOTENCY_KEY_REQUIRED');
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(header)) throw new ApiError('IDEMPOTENCY_KEY_INVALID');
  return header;
});

/**
 * The request's required `Idempotency-Key` header as a handler parameter, checked (missing:
 * IDEMPOTENCY_KEY_REQUIRED; over-long, spaces or non-ASCII: IDEMPOTENCY_KEY_INVALID) and documented
 * in OpenAPI. Claim it with `claimIdempotencyKey` in the transaction that does the work.
 */
export function IdempotencyKey(): ParameterDecorator {
  return (target, propertyKey, index) => {
    idempotencyKeyParameter()(target, propertyKey, index);
    const descriptor = Object.getOwnPropertyDescriptor(target, propertyKey!)!;
    ApiHeader({
      name: 'Idempotency-Key',
      required: true,
      description:
        '1 to 255 visible ASCII characters, e.g. a UUID; one per attempt. A retry with the same key and body answers the first result.',
    })(target, propertyKey!, descriptor);
  };
}
