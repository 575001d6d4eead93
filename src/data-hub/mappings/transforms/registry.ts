import { Ajv, type ValidateFunction } from 'ajv';
import { parse_date } from './dates.js';
import { concat, split } from './lists.js';
import { to_decimal_minor, to_integer } from './numbers.js';
import { regex_replace } from './patterns.js';
import { schemaErrors } from './schema-errors.js';
import { lowercase, normalize_arabic, slugify, trim, uppercase } from './text.js';
import { refuse, type TransformArgsError, type TransformDefinition } from './transform.js';
import { type CellValue } from '../../../infra/tabular/table-rows.js';
import { default_, map_values } from './values.js';

/** In the order a mapping usually needs them: clean the text, settle its values, shape lists, read typed values. */
export const TRANSFORMS: readonly TransformDefinition[] = Object.freeze([
  trim,
  lowercase,
  uppercase,
  normalize_arabic,
  default_,
  map_values,
  concat,
  split,
  regex_replace,
  to_integer,
  to_decimal_minor,
  parse_date,
  slugify,
]);

const BY_NAME = new Map(TRANSFORMS.map((transform) => [transform.name, transform]));

export function transformNamed(name: string): TransformDefinition | undefined {
  return BY_NAME.get(name);
}

const NO_ARGS = Object.freeze({});

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: true });
const validators = new Map<string, ValidateFunction>();

function validatorOf(transform: TransformDefinition): ValidateFunction {
  let validate = validators.get(transform.name);
  if (!validate) {
    validate = ajv.compile(transform.args);
    validators.set(transform.name, validate);
  }
  return validate;
}

/** Why the args of transform `name` are not usable, or [] when they are. Missing args mean `{}`. */
export function checkTransformArgs(name: string, args: unknown): TransformArgsError[] {
  const transform = transformNamed(name);
  if (!transform) {
    const known = TRANSFORMS.map((candidate) => candidate.name).join(', ');
    return [
      {
        field: 'name',
        code: 'transform_unknown',
        message_en: `"${name}" is not a transform. Transforms: ${known}.`,
        message_ar: `"${name}" ليس من التحويلات المتاحة. التحويلات: ${known}.`,
      },
    ];
  }
  const validate = validatorOf(transform);
  const value = args ?? NO_ARGS;
  if (!validate(value)) return schemaErrors(transform.name, validate.errors ?? []);
  return transform.checkArgs?.(value) ?? [];
}

/** A value through a chain of transforms (whose args `checkTransformArgs` has passed), in order. */
export function applyTransforms(value: CellValue, chain: readonly { name: string; args?: unknown }[]): CellValue {
  return chain.reduce<CellValue>((current, step) => {
    const transform = transformNamed(step.name);
    if (!transform) {
      throw refuse('transform_unknown', { en: `"${step.name}" is not a transform.`, ar: `"${step.name}" ليس من التحويلات المتاحة.` });
    }
    return transform.apply(current, step.args ?? NO_ARGS);
  }, value);
}
