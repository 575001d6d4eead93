import type { FastifyInstance } from 'fastify';
import { ApiError, invalidField } from '../../common/errors/api-error.js';

/**
 * JSON is the only body the API reads (anything else is 415). An empty body counts as no body, so a
 * cookie refresh can be a bare POST; a body must be a JSON object.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  // Fastify tests the whole header, parameters included (`application/json; charset=utf-8`).
  fastify.addContentTypeParser(/^application\/([\w.+-]+\+)?json\s*(;.*)?$/i, { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    let parsed: unknown;
    let nulField: string | undefined;
    try {
      parsed = JSON.parse(text, (key, value: unknown) => {
        if (key === '__proto__' || key === 'constructor') return undefined;
        // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the database.
        if (typeof value === 'string' && value.includes('\u0000')) nulField ??= key === '' || /^\d+$/.test(key) ? '(body)' : key;
        return value;
      });
    } catch {
      return done(new ApiError('MALFORMED_BODY'), undefined);
    }
    if (nulField !== undefined) {
      return done(
        invalidField(nulField, 'nulCharacter', { en: 'Text must not contain a NUL character.', ar: 'يجب ألا يحتوي النص على محرف NUL.' }),
        undefined,
      );
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return done(
        invalidField('(body)', 'isObject', { en: 'The body must be a JSON object.', ar: 'يجب أن يكون المحتوى كائن JSON.' }),
        undefined,
      );
    }
    done(null, parsed);
  });
}
