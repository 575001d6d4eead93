import { sql, type RawBuilder } from 'kysely';
import type { RollupTable } from '../rollup-tables.js';

// The pieces every fold is written with: the records it reads, and statements that add its facts into rollup tables.

/**
 * Which records a fold reads: the ones pending changes name, all of a store's (a rebuild), or a
 * store's whose facts happen within a window of time (the builder's records path, which reads the
 * facts without adding them anywhere).
 */
export type FoldScope = { ids: string[] } | { storeId: string } | WindowScope;

/** A store's records whose facts happen at or after `from` and before `to` (instants). */
export interface WindowScope {
  storeId: string;
  window: { from: RawBuilder<unknown>; to: RawBuilder<unknown> };
}

/**
 * `alias.id` among the scope's ids (`idType` uuid or bigint), `alias.store_id` the scope's store, or,
 * for a window, the store's records whose `at` column (when the facts they give happen) is in it.
 */
export function scoped(scope: FoldScope, alias: string, at: string, idType: 'uuid' | 'bigint' = 'uuid'): RawBuilder<unknown> {
  if ('window' in scope) {
    const column = sql.ref(`${alias}.${at}`);
    return sql`${sql.ref(`${alias}.store_id`)} = ${scope.storeId}::uuid and ${column} >= ${scope.window.from} and ${column} < ${scope.window.to}`;
  }
  if ('storeId' in scope) return sql`${sql.ref(`${alias}.store_id`)} = ${scope.storeId}::uuid`;
  return idType === 'uuid'
    ? sql`${sql.ref(`${alias}.id`)} = any(${scope.ids}::uuid[])`
    : sql`${sql.ref(`${alias}.id`)} = any(${scope.ids}::bigint[])`;
}

const bucketOf: Record<Exclude<RollupTable['granularity'], 'all'>, RawBuilder<unknown>> = {
  hour: sql`date_trunc('hour', f.at at time zone f.tz)`,
  day: sql`(f.at at time zone f.tz)::date`,
  month: sql`date_trunc('month', f.at at time zone f.tz)::date`,
};

/**
 * Inserts that add the rows of the CTE `facts` (selecting `store_id`, `at` (when it happened), `tz`
 * (the store's time zone) and every key and measure column of the tables) into rollup tables: summed
 * per bucket and key, added to what is there.
 */
export function addInto(tables: RollupTable[], facts: string): RawBuilder<unknown>[] {
  return tables.map((table) => {
    const bucket = table.granularity === 'all' ? [] : [table.granularity];
    const keys = [...bucket, ...table.keys];
    const columns = sql.join([sql.ref('store_id'), ...keys.map((column) => sql.ref(column)), ...table.measures.map((m) => sql.ref(m))]);
    const selected = sql.join([
      sql`f.store_id`,
      ...(table.granularity === 'all' ? [] : [bucketOf[table.granularity]]),
      ...table.keys.map((key) => sql.ref(`f.${key}`)),
      ...table.measures.map((measure) => sql`sum(${sql.ref(`f.${measure}`)})`),
    ]);
    const groups = sql.join(Array.from({ length: keys.length + 1 }, (_, i) => sql.lit(i + 1)));
    const updates = sql.join(
      table.measures.map((m) => sql`${sql.ref(m)} = ${sql.table(table.name)}.${sql.ref(m)} + excluded.${sql.ref(m)}`),
    );
    return sql`
      insert into ${sql.table(table.name)} (${columns})
      select ${selected} from ${sql.table(facts)} f group by ${groups}
      on conflict (${sql.join([sql.ref('store_id'), ...keys.map((column) => sql.ref(column))])}) do update set ${updates}`;
  });
}

/** A fold's named parts: the records it reads and the facts it computes from them, each a query over the ones before. */
export type FactParts = [name: string, query: RawBuilder<unknown>][];

/**
 * One statement: the named parts and then the inserts, which all see the same snapshot. A part read
 * more than once is computed once (PostgreSQL materializes it); one read once is inlined where it is
 * read, so that only the columns its reader needs are computed. No two inserts of one statement may
 * write the same table.
 */
export function statement(parts: FactParts, inserts: RawBuilder<unknown>[]): RawBuilder<unknown> {
  const named = [
    ...parts.map(([name, query]) => sql`${sql.table(name)} as (${query})`),
    ...inserts.map((insert, i) => sql`${sql.raw(`insert_${i}`)} as (${insert})`),
  ];
  return sql`with ${sql.join(named)} select 1`;
}

/** Every measure column of `table`, given ones as written and the others 0. */
export function measures(table: RollupTable, given: Record<string, RawBuilder<unknown>>): RawBuilder<unknown> {
  for (const name of Object.keys(given)) if (!table.measures.includes(name)) throw new Error(`${table.name} has no measure ${name}`);
  return sql.join(table.measures.map((m) => sql`${given[m] ?? sql`0`} as ${sql.ref(m)}`));
}

/**
 * The `columns` of the named facts, one after the other, added nowhere: what the records path reads.
 * The parts are inlined where they are used, so that PostgreSQL computes only those columns (a
 * customer's history, say, only when it is asked for) and applies the query's conditions inside them.
 */
export function factRows(parts: FactParts, facts: string[], columns: readonly string[]): RawBuilder<unknown> {
  const named = parts.map(([name, query]) => sql`${sql.table(name)} as not materialized (${query})`);
  const selected = sql.join(columns.map((column) => sql.ref(column)));
  const rows = facts.map((name) => sql`select ${selected} from ${sql.table(name)}`);
  return sql`with ${sql.join(named)} ${sql.join(rows, sql` union all `)}`;
}
