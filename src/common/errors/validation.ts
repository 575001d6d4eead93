import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { ApiError, type FieldError } from './api-error.js';
import type { Bilingual } from '../bilingual.js';
import { NOT_ALLOWED_FIELD } from '../validation/text.js';

type Message = Bilingual | ((limit: unknown) => Bilingual);

const MESSAGES_OBJECT: Bilingual = { en: 'Must be an object.', ar: 'يجب أن يكون كائنًا.' };

/**
 * One message per constraint, in precedence order: a field is reported once, with the first
 * constraint of this list it fails. A string given for a number fails `isInt`, and also `min` and
 * `max`, but only `isInt` is what went wrong.
 */
const MESSAGES: Record<string, Message> = {
  whitelistValidation: NOT_ALLOWED_FIELD,
  isDefined: { en: 'Must not be null: leave the field out instead.', ar: 'يجب ألا تكون القيمة null: احذف الحقل بدلًا من ذلك.' },
  isObject: MESSAGES_OBJECT,
  nestedValidation: { en: 'Must be an object of the documented shape.', ar: 'يجب أن يكون كائنًا بالشكل الموثق.' },
  isArray: { en: 'Must be an array.', ar: 'يجب أن تكون قائمة.' },
  isString: { en: 'Must be a string.', ar: 'يجب أن تكون نصًا.' },
  isInt: { en: 'Must be a whole number.', ar: 'يجب أن يكون عددًا صحيحًا.' },
  isBoolean: { en: 'Must be true or false.', ar: 'يجب أن تكون true أو false.' },
  isUuid: { en: 'Must be a UUID.', ar: 'يجب أن يكون معرّفًا بصيغة UUID.' },
  isIn: { en: 'This value is not one of the allowed values.', ar: 'هذه القيمة ليست من القيم المسموحة.' },
  arrayNotEmpty: { en: 'Must not be empty.', ar: 'يجب ألا تكون فارغة.' },
  arrayMaxSize: (limit) => ({ en: `Must have at most ${limit} items.`, ar: `يجب ألا يزيد عدد العناصر على ${limit}.` }),
  arrayUnique: { en: 'Must not repeat values.', ar: 'يجب ألا تتكرر القيم.' },
  isNotEmpty: { en: 'Must not be empty.', ar: 'يجب ألا يكون فارغًا.' },
  minLength: (limit) => ({ en: `Must be at least ${limit} characters long.`, ar: `يجب ألا يقل عدد الأحرف عن ${limit}.` }),
  maxLength: (limit) => ({ en: `Must be at most ${limit} characters long.`, ar: `يجب ألا يزيد عدد الأحرف على ${limit}.` }),
  min: (limit) => ({ en: `Must be at least ${limit}.`, ar: `يجب ألا تقل القيمة عن ${limit}.` }),
  max: (limit) => ({ en: `Must be at most ${limit}.`, ar: `يجب ألا تزيد القيمة على ${limit}.` }),
  isEmail: { en: 'Must be an email address.', ar: 'يجب أن يكون عنوان بريد إلكتروني.' },
  isISO31661Alpha2: { en: 'Must be a two-letter country code (ISO 3166-1).', ar: 'يجب أن يكون رمز دولة من حرفين (ISO 3166-1).' },
  matches: { en: 'Has the wrong format.', ar: 'الصيغة غير صحيحة.' },
  notWith: (other) => ({ en: `Must not be given together with ${other}.`, ar: `يجب ألا يُرسل مع ${other}.` }),
  onlyWith: (other) => ({ en: `Only together with ${other}.`, ar: `لا يُرسل إلا مع ${other}.` }),
};
const PRECEDENCE = Object.keys(MESSAGES);

/** The limit a constraint was declared with (`@Max(999)` → 999), read from class-validator's metadata. */
function declaredLimit(target: object | undefined, property: string, constraint: string): unknown {
  if (!target) return undefined;
  const metadata = getMetadataStorage().getTargetValidationMetadatas(target.constructor, '', true, false);
  return metadata.find((entry) => entry.propertyName === property && entry.name === constraint)?.constraints?.[0];
}

function fieldError(error: ValidationError, field: string): FieldError[] {
  const failed = Object.keys(error.constraints ?? {});
  if (failed.length === 0) return [];
  const code = PRECEDENCE.find((known) => failed.includes(known)) ?? failed[0];
  const message = MESSAGES[code];
  const text = typeof message === 'function' ? message(declaredLimit(error.target, error.property, code)) : message;
  return [
    {
      field,
      code,
      message_en: text?.en ?? error.constraints![code],
      message_ar: text?.ar ?? 'القيمة غير صالحة.',
    },
  ];
}

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    return [...fieldError(error, field), ...flatten(error.children ?? [], field)];
  });
}

const WHITELIST = { whitelist: true, forbidNonWhitelisted: true, validationError: { target: true, value: false } };

/**
 * A nested member whose shape depends on a sibling (a connection's `config` by its `kind`), checked
 * as the pipe checks bodies: unknown fields refused, each failing field named under `field`.
 */
export function validatedAs<T extends object>(type: ClassConstructor<T>, value: unknown, field: string): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError('VALIDATION_FAILED', {
      errors: [{ field, code: 'isObject', message_en: MESSAGES_OBJECT.en, message_ar: MESSAGES_OBJECT.ar }],
    });
  }
  const instance = plainToInstance(type, value);
  const errors = validateSync(instance, WHITELIST);
  if (errors.length > 0) throw new ApiError('VALIDATION_FAILED', { errors: flatten(errors, field) });
  return instance;
}

/**
 * Whitelisting validation for every body and query: unknown fields are refused, not dropped. Each
 * failing field is named once, with the constraint it failed and that constraint's limit.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    // The target is kept to read the declared limits; no error object reaches a response.
    ...WHITELIST,
    transform: true,
    exceptionFactory: (errors) => new ApiError('VALIDATION_FAILED', { errors: flatten(errors) }),
  });
}
