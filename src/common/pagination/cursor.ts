import { invalidField } from '../errors/api-error.js';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * A UTC instant with microseconds, as `iso_utc_micros()` prints it in SQL. Checked against the
 * calendar too: a shape-valid 2024-13-45 would make PostgreSQL fail the query.
 */
export const UTC_MICROS_PATTERN = {
  test(value: string): boolean {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(value) || value.startsWith('0000')) return false;
    const millis = new Date(`${value.slice(0, 23)}Z`);
    return !Number.isNaN(millis.getTime()) && millis.toISOString().slice(0, 23) === value.slice(0, 23);
  },
};

/** The range of a PostgreSQL `integer`: a larger cursor part would make the query fail. */
const PG_INT_MIN = -(2 ** 31);
const PG_INT_MAX = 2 ** 31 - 1;

/** Opaque keyset cursors: the sort key of the last item, base64url JSON. */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** `number`: a PostgreSQL integer; `string`: up to 256 characters, no NUL (PostgreSQL text cannot hold one). */
type Part = 'string' | 'number' | { test(value: string): boolean };

function partMatches(part: unknown, expected: Part): boolean {
  if (expected === 'number') return Number.isInteger(part) && (part as number) >= PG_INT_MIN && (part as number) <= PG_INT_MAX;
  if (expected === 'string') return typeof part === 'string' && part.length <= 256 && !part.includes('\u0000');
  return typeof part === 'string' && expected.test(part);
}

/** Decodes a cursor made by `encodeCursor`; each part is checked so that no tampered value reaches SQL. */
export function decodeCursor<T extends readonly (string | number)[]>(cursor: string, shape: { [K in keyof T]: Part }): T {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === shape.length && value.every((part, index) => partMatches(part, shape[index]))) {
      return value as unknown as T;
    }
  } catch {
    // fall through to the refusal below
  }
  throw invalidField('cursor', 'invalidCursor', { en: 'This cursor is not valid here.', ar: 'هذا المؤشر غير صالح هنا.' });
}
