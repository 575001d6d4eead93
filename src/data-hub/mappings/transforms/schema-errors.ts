import type { ErrorObject } from 'ajv';
import type { Bilingual } from '../../../common/bilingual.js';
import { pathSegment, type TransformArgsError } from './transform.js';

/** The most errors one transform's args report: a map of thousands of bad values needs no thousand lines. */
const ARGS_ERRORS_MAX = 20;

/** A JSON pointer (`/formats/0`) as the arg path merchants read (`formats[0]`). */
function argPath(pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return segments.map((segment, index) => pathSegment(segment, index === 0)).join('');
}

const TYPE_NAMES: Record<string, Bilingual> = {
  string: { en: 'text', ar: 'نصاً' },
  number: { en: 'a number', ar: 'رقماً' },
  integer: { en: 'a whole number', ar: 'عدداً صحيحاً' },
  boolean: { en: 'true or false', ar: 'true أو false' },
  array: { en: 'a list', ar: 'قائمة' },
  object: { en: 'an object of names and values', ar: 'كائناً من أسماء وقيم' },
  null: { en: 'null', ar: 'null' },
};

function schemaMessage(error: ErrorObject, label: string, transformName: string): { code: string } & Bilingual {
  const limit = (error.params as { limit?: number }).limit;
  switch (error.keyword) {
    case 'required':
      return { code: 'arg_required', en: `${label} is required.`, ar: `${label} مطلوب.` };
    case 'additionalProperties':
      return {
        code: 'arg_unknown',
        en: `${label} is not a setting of ${transformName}.`,
        ar: `${label} ليس من إعدادات ${transformName}.`,
      };
    case 'type': {
      const types = String((error.params as { type: string | string[] }).type)
        .split(',')
        .map((type) => TYPE_NAMES[type] ?? { en: type, ar: type });
      return {
        code: 'arg_type',
        en: `${label} must be ${types.map((type) => type.en).join(' or ')}.`,
        ar: `يجب أن يكون ${label} ${types.map((type) => type.ar).join(' أو ')}.`,
      };
    }
    case 'enum': {
      const allowed = ((error.params as { allowedValues: unknown[] }).allowedValues ?? []).map((value) => JSON.stringify(value)).join(', ');
      return { code: 'arg_not_allowed', en: `${label} must be one of ${allowed}.`, ar: `يجب أن يكون ${label} واحداً من ${allowed}.` };
    }
    case 'minLength':
      return limit === 1
        ? { code: 'arg_too_short', en: `${label} must not be empty.`, ar: `يجب ألا يكون ${label} فارغاً.` }
        : { code: 'arg_too_short', en: `${label} must have at least ${limit} characters.`, ar: `يجب ألا يقل ${label} عن ${limit} محارف.` };
    case 'maxLength':
      return {
        code: 'arg_too_long',
        en: `${label} must have at most ${limit} characters.`,
        ar: `يجب ألا يزيد ${label} على ${limit} محرفاً.`,
      };
    case 'minimum':
      return { code: 'arg_too_small', en: `${label} must be at least ${limit}.`, ar: `يجب ألا يقل ${label} عن ${limit}.` };
    case 'maximum':
      return { code: 'arg_too_large', en: `${label} must be at most ${limit}.`, ar: `يجب ألا يزيد ${label} على ${limit}.` };
    case 'minItems':
    case 'minProperties':
      return {
        code: 'arg_too_few',
        en: `${label} must have at least ${limit} ${limit === 1 ? 'entry' : 'entries'}.`,
        ar: `يجب ألا يقل عدد عناصر ${label} عن ${limit}.`,
      };
    case 'maxItems':
    case 'maxProperties':
      return {
        code: 'arg_too_many',
        en: `${label} must have at most ${limit} entries.`,
        ar: `يجب ألا يزيد عدد عناصر ${label} على ${limit}.`,
      };
    default:
      return { code: 'arg_invalid', en: `${label} is not valid.`, ar: `${label} غير صالح.` };
  }
}

export function schemaErrors(transformName: string, errors: ErrorObject[]): TransformArgsError[] {
  const reported = new Map<string, TransformArgsError>();
  for (const error of errors) {
    const params = error.params as { missingProperty?: string; additionalProperty?: string };
    const extra = params.missingProperty ?? params.additionalProperty;
    const path = argPath(
      extra === undefined ? error.instancePath : `${error.instancePath}/${extra.replace(/~/g, '~0').replace(/\//g, '~1')}`,
    );
    const { code, en, ar } =
      path === ''
        ? { code: 'arg_type', en: 'The settings must be an object of names and values.', ar: 'يجب أن تكون الإعدادات كائناً من أسماء وقيم.' }
        : schemaMessage(error, `"${path}"`, transformName);
    const field = path === '' ? 'args' : `args${path.startsWith('[') ? '' : '.'}${path}`;
    if (!reported.has(`${field} ${code}`)) reported.set(`${field} ${code}`, { field, code, message_en: en, message_ar: ar });
  }
  return [...reported.values()].slice(0, ARGS_ERRORS_MAX);
}
