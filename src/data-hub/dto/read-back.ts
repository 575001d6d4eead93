import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Allow } from 'class-validator';
import { isDeepStrictEqual } from 'node:util';
import type { Bilingual } from '../../common/bilingual.js';
import { ApiError } from '../../common/errors/api-error.js';
import { OptionalField } from '../../common/validation/fields.js';

/*
 * A PUT accepts back what GET returned (contract section 11): the members the server owns are ignored
 * whatever they hold, an immutable member is ignored while it equals the current value, and only a
 * change to an immutable member is refused, naming it. Any other member GET does not return is still
 * refused (`whitelistValidation`).
 */

const AS_READ = 'As GET returns it; ignored.';

/**
 * A member GET returns and the server owns (`id`, `version`, `updatedAt`…): a PUT may send it back, and
 * it is dropped. `schema`: its type as GET returns it, for the OpenAPI document.
 */
export function ServerOwned(schema: ApiPropertyOptions = { type: 'string' }) {
  const nullable = 'nullable' in schema && schema.nullable === true;
  return applyDecorators(
    ApiPropertyOptional({ description: AS_READ, ...schema, readOnly: true } as ApiPropertyOptions),
    // Dropped whatever it holds, but for a null where GET never gives one: refused, as every such null is.
    Transform(({ value }) => (value === null && !nullable ? null : undefined)),
    nullable ? Allow() : OptionalField(),
  );
}

/** An object member GET returns and the server owns (a flow's `lastRun`, a connection's `lastTest`). */
export const SERVER_OWNED_OBJECT: ApiPropertyOptions = { type: 'object', additionalProperties: true, nullable: true };

/** The OpenAPI description of an immutable member in a PUT body. */
export function immutableDoc(what: string): string {
  return `As GET returns it: ignored while it equals the current value; a change is 400 validation_failed (code \`immutable\`): ${what}`;
}

export interface Immutable {
  field: string;
  /** What the PUT sent; undefined when left out. */
  sent: unknown;
  current: unknown;
  /** Why it cannot change, and what to do instead. */
  message: Bilingual;
}

/** 400 validation_failed naming each immutable member sent with a value other than its current one. */
export function refuseChanges(immutables: readonly Immutable[]): void {
  const errors = immutables
    .filter(({ sent, current }) => sent !== undefined && !isDeepStrictEqual(sent, current))
    .map(({ field, message }) => ({ field, code: 'immutable', message_en: message.en, message_ar: message.ar }));
  if (errors.length > 0) throw new ApiError('VALIDATION_FAILED', { errors });
}
