import { sql, type RawBuilder } from 'kysely';
import { decodeCursor, encodeCursor, UTC_MICROS_PATTERN, UUID_PATTERN } from '../../common/pagination/cursor.js';

/**
 * A list newest first (`created_at desc, id desc`), a page at a time by keyset: `where` goes into the
 * statement's conditions, `order` ends it, and the statement selects `iso_utc_micros(created_at) as
 * sort_at` and the `id`, reading `limit + 1` rows so that `page` knows whether more follow.
 */
export function newestFirst(alias: string, cursor: string | undefined) {
  const after = cursor ? decodeCursor<[string, string]>(cursor, [UTC_MICROS_PATTERN, UUID_PATTERN]) : undefined;
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  return {
    sortAt: sql`iso_utc_micros(${column('created_at')})` as RawBuilder<string>,
    where: after ? sql`(${column('created_at')}, ${column('id')}) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql`true`,
    order: sql`order by ${column('created_at')} desc, ${column('id')} desc`,
  };
}

/** The page of `limit` rows out of `limit + 1` read, and the cursor of the next page. */
export function pageOf<T extends { id: string; sort_at: string }>(rows: T[], limit: number): { rows: T[]; nextCursor: string | null } {
  const last = rows.length > limit ? rows[limit - 1] : undefined;
  return { rows: rows.slice(0, limit), nextCursor: last ? encodeCursor([last.sort_at, last.id]) : null };
}
