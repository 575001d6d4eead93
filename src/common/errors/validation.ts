import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ApiError, type FieldError } from './api-error.js';
import type { Bilingual } from '../bilingual.js';

const MESSAGES: Record<string, Bilingual> = {
  whitelistValidation: { en: 'This field is not allowed.', ar: 'هذا الحقل غير مسموح.' },
  isIn: { en: 'This value is not one of the allowed values.', ar: 'هذه القيمة ليست من القيم المسموحة.' },
  isArray: { en: 'Must be an array.', ar: 'يجب أن تكون قائمة.' },
  arrayNotEmpty: { en: 'Must not be empty.', ar: 'يجب ألا تكون فارغة.' },
  isString: { en: 'Must be a string.', ar: 'يجب أن تكون نصًا.' },
  isNotEmpty: { en: 'Must not be empty.', ar: 'يجب ألا يكون فارغًا.' },
  isInt: { en: 'Must be a whole number.', ar: 'يجب أن يكون عددًا صحيحًا.' },
  min: { en: 'Is below the minimum.', ar: 'أقل من الحد الأدنى.' },
  max: { en: 'Is above the maximum.', ar: 'أكبر من الحد الأعلى.' },
  maxLength: { en: 'Is too long.', ar: 'أطول من المسموح.' },
  minLength: { en: 'Is too short.', ar: 'أقصر من المسموح.' },
  arrayMaxSize: { en: 'Has too many items.', ar: 'تحتوي عناصر أكثر من المسموح.' },
  arrayUnique: { en: 'Must not repeat values.', ar: 'يجب ألا تتكرر القيم.' },
  matches: { en: 'Has the wrong format.', ar: 'الصيغة غير صحيحة.' },
  isUuid: { en: 'Must be a UUID.', ar: 'يجب أن يكون معرّفًا بصيغة UUID.' },
  isEmail: { en: 'Must be an email address.', ar: 'يجب أن يكون عنوان بريد إلكتروني.' },
  isBoolean: { en: 'Must be true or false.', ar: 'يجب أن تكون true أو false.' },
  isISO31661Alpha2: { en: 'Must be a two-letter country code (ISO 3166-1).', ar: 'يجب أن يكون رمز دولة من حرفين (ISO 3166-1).' },
  isObject: { en: 'Must be an object.', ar: 'يجب أن يكون كائنًا.' },
  nestedValidation: { en: 'Must be an object of the documented shape.', ar: 'يجب أن يكون كائنًا بالشكل الموثق.' },
};

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([code, message]) => ({
      field,
      code,
      message_en: MESSAGES[code]?.en ?? message,
      message_ar: MESSAGES[code]?.ar ?? 'القيمة غير صالحة.',
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** Whitelisting validation for every body and query: unknown fields are refused, not dropped. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ApiError('VALIDATION_FAILED', { errors: flatten(errors) }),
  });
}
