import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../common/errors/api-error.js';

/**
 * JSON is the only body the API reads (anything else is 415). An empty body counts as no body, so a
 * cookie refresh can be a bare POST; a body must be a JSON object.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(/^application\/([\w.+-]+\+)?json$/, { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text, (key, value: unknown) => (key === '__proto__' || key === 'constructor' ? undefined : value));
    } catch {
      return done(new ApiError('MALFORMED_BODY'), undefined);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return done(
        new ApiError('VALIDATION_FAILED', {
          errors: [{ field: '(body)', code: 'isObject', message_en: 'The body must be a JSON object.', message_ar: 'يجب أن يكون المحتوى كائن JSON.' }],
        }),
        undefined,
      );
    }
    done(null, parsed);
  });
}
