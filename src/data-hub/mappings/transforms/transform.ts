import type { Bilingual } from '../../../common/bilingual.js';
import type { CellValue, Scalar } from '../../../infra/tabular/table-rows.js';
import { decimalText } from '../parse-number.js';

export type JsonSchema = { readonly [keyword: string]: unknown };

/** Why a transform refused a value, as the merchant reads it in the rejected rows. */
export interface TransformFailure {
  code: string;
  message_en: string;
  message_ar: string;
}

export class TransformError extends Error {
  constructor(readonly failure: TransformFailure) {
    super(`${failure.code}: ${failure.message_en}`);
  }

  get code(): string {
    return this.failure.code;
  }
}

/** What is wrong with a transform's args; `field` is the arg's path (`args.formats[1]`), or `name` for an unknown transform. */
export interface TransformArgsError {
  field: string;
  code: string;
  message_en: string;
  message_ar: string;
}

/** What a merchant calls an arg, in both languages. */
export interface ArgLabel {
  label_en: string;
  label_ar: string;
}

export interface TransformDefinition {
  name: string;
  /** What a merchant calls it ("Trim spaces"); `name` is the identifier a mapping names. */
  label_en: string;
  label_ar: string;
  /** JSON schema of the args object, as GET /transforms publishes it. */
  args: JsonSchema;
  /** The label of each of the args' properties. */
  argLabels: Readonly<Record<string, ArgLabel>>;
  description_en: string;
  description_ar: string;
  /** Throws TransformError for a value it cannot take. `args` has passed `checkTransformArgs`. */
  apply(value: CellValue, args: any): CellValue;
  /** Checks the schema cannot express (a pattern that compiles, a known timezone), run once the schema passes. */
  checkArgs?(args: any): TransformArgsError[];
}

/** A scalar as text: numbers in plain decimal notation, true/false as words, no value as "". */
export function textOf(value: Scalar): string {
  if (value === null) return '';
  return typeof value === 'number' ? decimalText(value) : String(value);
}

/** The scalars of a list of lists, in order. */
export function flattened(list: CellValue[]): Scalar[] {
  return list.flatMap((item) => (Array.isArray(item) ? flattened(item) : [item]));
}

/** `apply` on every item of a list, at any depth; on the value itself otherwise. */
export function eachItem(value: CellValue, apply: (item: Scalar) => CellValue): CellValue {
  return Array.isArray(value) ? value.map((item) => eachItem(item, apply)) : apply(value);
}

/** `edit` on text items only: numbers, true/false and no value are left as they are. */
export function eachText(value: CellValue, edit: (text: string) => CellValue): CellValue {
  return eachItem(value, (item) => (typeof item === 'string' ? edit(item) : item));
}

/** The longest text of a value that a message quotes. */
const QUOTED_LENGTH = 40;

export function quoted(value: Scalar): string {
  const characters = Array.from(textOf(value));
  return `"${characters.length > QUOTED_LENGTH ? `${characters.slice(0, QUOTED_LENGTH).join('')}…` : characters.join('')}"`;
}

export function refuse(code: string, message: Bilingual): TransformError {
  return new TransformError({ code, message_en: message.en, message_ar: message.ar });
}

/** A value built from args once per args object: a chain's args are the same objects for every row. */
export function perArgs<A extends object, R>(build: (args: A) => R): (args: A) => R {
  const built = new WeakMap<A, R>();
  return (args) => {
    if (!built.has(args)) built.set(args, build(args));
    return built.get(args)!;
  };
}

export const NONE: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };
export const flag = (fallback: boolean) => ({ type: 'boolean', default: fallback });

export function object(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

export function defineTransform<A extends object>(definition: {
  name: string;
  label_en: string;
  label_ar: string;
  args: JsonSchema;
  argLabels: Readonly<Record<string, ArgLabel>>;
  description_en: string;
  description_ar: string;
  apply(value: CellValue, args: A): CellValue;
  checkArgs?(args: A): TransformArgsError[];
}): TransformDefinition {
  return definition;
}

export const label = (en: string, ar: string): ArgLabel => ({ label_en: en, label_ar: ar });

export function argsError(field: string, code: string, en: string, ar: string): TransformArgsError {
  return { field: `args.${field}`, code, message_en: en, message_ar: ar };
}

/** One step of an arg path: `formats`, `.name`, `[0]` or `["Red colour"]`. */
export function pathSegment(segment: string, first = false): string {
  if (/^\d+$/.test(segment)) return `[${segment}]`;
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) return first ? segment : `.${segment}`;
  return `[${JSON.stringify(segment)}]`;
}
