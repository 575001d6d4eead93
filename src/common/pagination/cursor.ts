import { ApiError } from '../errors/api-error.js';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `timestamptz::text` as PostgreSQL prints it, microseconds included. */
export const PG_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

/** Opaque keyset cursors: the sort key of the last item, base64url JSON. */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

type Part = 'string' | 'number' | RegExp;

function partMatches(part: unknown, expected: Part): boolean {
  if (expected === 'number') return Number.isSafeInteger(part);
  if (expected === 'string') return typeof part === 'string' && part.length <= 256;
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
  throw new ApiError('VALIDATION_FAILED', {
    errors: [{ field: 'cursor', code: 'invalidCursor', message_en: 'This cursor is not valid here.', message_ar: 'هذا المؤشر غير صالح هنا.' }],
  });
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Rows fetched with limit + 1: the extra row only says whether another page exists. */
export function pageOf<Row, Item>(rows: Row[], limit: number, toItem: (row: Row) => Item, keyOf: (row: Row) => (string | number)[]): Page<Item> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items: items.map(toItem), nextCursor: rows.length > limit && last ? encodeCursor(keyOf(last)) : null };
}
