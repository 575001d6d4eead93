import { AsyncLocalStorage } from 'node:async_hooks';
import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Bilingual } from '../../common/bilingual.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import { ReportReads } from '../../infra/database/report-reads.js';
import { DIMENSIONS, dimensionNamed, isTimeGrain, type TimeGrain } from '../definitions/dimensions.js';
import { dimensionsOf } from '../definitions/reference.js';
import type { Filter } from '../definitions/filters.js';
import { emptyValueOf, type MeasureContext, type MeasureDef } from '../definitions/measures.js';
import { SOURCES, type SourceDef, type SourceDimension } from '../definitions/sources.js';
import { NONE_ID, type RollupTable } from '../rollups/rollup-tables.js';
import { labelJoin, labelledDimensions } from './dimension-values.js';
import { isoWeekday, monthsWithin, type DateRange, type WeekStart } from './ranges.js';
import { RecordsLimits } from './records-limits.js';

/**
 * The one way Insights reads figures: measures split by dimensions over a date range. Each measure
 * is read from the first source that has it and whose rollups hold every dimension the query uses,
 * else from the first whose records reach them (the facts the rollups are folded from, computed by
 * the same definitions); measures of one source are one grouped SQL statement over the coarsest
 * rollup table that serves the query, or over the records, and the parts are joined on their
 * dimension values.
 */

export interface QuerySpec {
  storeId: string;
  measures: MeasureDef[];
  /** Split by these, in order; at most one time grain. */
  dimensions: string[];
  filters: Filter[];
  range: DateRange;
  weekStartsOn: WeekStart;
  sort?: { measure: string; descending: boolean };
  /**
   * Read only from the rollups, or from the records wherever a source has them even when a rollup
   * holds the question (both give the same figures); by default the rollups, else the records.
   */
  via?: 'rollups' | 'records';
}

export type Row = Record<string, string | number | null>;
/** A row of `stream`: with the labels its statement joined (see labelJoin), the others looked up by DimensionValues. */
export type StreamedRow = Row & { labels?: Record<string, Bilingual> };

/** Whom a read is for: an answer, bounded when it reads records, or an export, which is not. */
export type Purpose = 'answer' | 'export';

/** What a part reads: one rollup table, or the records. */
type Reading = RollupTable | 'records';

interface Part {
  source: SourceDef;
  table: Reading;
  measures: MeasureDef[];
}

const NONE_VALUE: Record<string, string> = { product: NONE_ID, variant: NONE_ID, category: NONE_ID, brand: NONE_ID, shipping_method: '' };

const GRANULARITY_RANK: Record<RollupTable['granularity'], number> = { hour: 0, day: 1, month: 2, all: 3 };
const TYPED_VALUE: Record<NonNullable<SourceDimension['type']>, RegExp> = {
  uuid: UUID_PATTERN,
  bigint: /^-?\d{1,18}$/,
  int: /^-?\d{1,9}$/,
};

/**
 * The query without filters that keep every value of a dimension (`customer_kind in (registered,
 * guest)`): they change no figure, and a distinct count cannot be summed over the values of a filter.
 */
function withoutVacuousFilters(spec: QuerySpec): QuerySpec {
  const filters = spec.filters.filter((filter) => {
    const values = dimensionNamed(filter.dimension)?.values;
    return !(filter.op === 'in' && values?.kind === 'fixed' && values.values.every((entry) => filter.values.includes(entry.value)));
  });
  return filters.length === spec.filters.length ? spec : { ...spec, filters };
}

/** Why a query cannot be answered as asked: a 400 naming the field. */
function unavailable(field: string, en: string, ar: string) {
  return invalidField(field, 'notAvailable', { en, ar });
}

/**
 * A measure asked for with dimensions it has no meaning with: the one it can never be split or
 * filtered by (with those it can), or else the ones it cannot take together.
 */
export function unsupportedCombination(measure: MeasureDef, dimensions: string[]): ApiError {
  const able = dimensionsOf(measure);
  const alone = dimensions.find((name) => !able.includes(name));
  const named = (names: string[], language: 'en' | 'ar') =>
    names.map((name) => `${dimensionNamed(name)?.label[language] ?? name} (${name})`).join(language === 'en' ? ', ' : '، ');
  const message: Bilingual = alone
    ? {
        en: `${measure.label.en} (${measure.name}) cannot be split or filtered by ${named([alone], 'en')}. It can be by: ${named(able, 'en') || 'nothing'}.`,
        ar: `لا يمكن تقسيم ${measure.label.ar} (${measure.name}) أو تصفيته حسب ${named([alone], 'ar')}. يمكن ذلك حسب: ${named(able, 'ar') || 'لا شيء'}.`,
      }
    : {
        en: `${measure.label.en} (${measure.name}) cannot be split or filtered by ${named(dimensions, 'en')} together.`,
        ar: `لا يمكن تقسيم ${measure.label.ar} (${measure.name}) أو تصفيته حسب ${named(dimensions, 'ar')} معًا.`,
      };
  return new ApiError('unsupported_combination', {
    message,
    details: { measure: measure.name, dimensions: alone ? [alone] : dimensions },
  });
}

/** The dimensions a part reads its rows by: its rollup's, or its records'. */
function readBy(part: Part): Record<string, SourceDimension> {
  return part.table === 'records' ? part.source.records!.dimensions : part.source.dimensions;
}

/**
 * One answer's reads of the records (its count, rows, totals and series): one transaction within the
 * limits, where each source's facts of a range, filtered as the answer asks, are read from the records
 * once into a temporary table that every read of the answer then groups.
 */
interface RecordsSession {
  db: Kysely<unknown>;
  /** By source, range and filters: the table holding those facts, with the columns it has. */
  facts: Map<string, { table: string; columns: readonly string[] }>;
  /** Tables made so far (one with more columns can replace one of the same facts). */
  made: number;
  /** The ranges whose budget was checked. */
  checked: Set<string>;
  /** The reads under way: one at a time on the transaction's connection, each after the facts it reads are gathered. */
  queue: Promise<unknown>;
}

@Injectable()
export class QueryEngine {
  private readonly sessions = new AsyncLocalStorage<RecordsSession>();

  constructor(
    private readonly em: EntityManager,
    private readonly reads: ReportReads,
    private readonly limits: RecordsLimits,
  ) {}

  /**
   * Runs `work`, the reads of one answer (a builder answer, a report) whose main queries are `specs`,
   * as one RecordsSession when any of them reads records; otherwise as it is, each read on a
   * connection of its own.
   */
  async answer<T>(specs: QuerySpec[], work: () => Promise<T>): Promise<T> {
    const recorded = specs.some((spec) => this.plan(withoutVacuousFilters(spec)).some((part) => part.table === 'records'));
    if (!recorded) return work();
    return this.limits.transaction((db) =>
      this.sessions.run({ db, facts: new Map(), made: 0, checked: new Set(), queue: Promise.resolve() }, work),
    );
  }

  /** Every row of the query, sorted as asked (else by the dimensions). */
  async rows(asked: QuerySpec, page?: { limit: number; offset: number }): Promise<{ rows: Row[]; more: boolean }> {
    const spec = withoutVacuousFilters(asked);
    const parts = this.plan(spec);
    return this.bounded(spec, parts, 'answer', (db) => this.read(spec, parts, db, page));
  }

  private async read(spec: QuerySpec, parts: Part[], db: Kysely<unknown>, page?: { limit: number; offset: number }) {
    if (parts.length === 1) {
      const statement = this.select(spec, parts[0], page ? { limit: page.limit + 1, offset: page.offset } : undefined);
      const { rows } = await statement.execute(db);
      const converted = (rows as Record<string, unknown>[]).map((row) => this.convert(spec, parts[0], row));
      return page ? { rows: converted.slice(0, page.limit), more: converted.length > page.limit } : { rows: converted, more: false };
    }
    const results = await Promise.all(parts.map((part) => this.select(spec, part).execute(db)));
    const merged = new Map<string, Row>();
    for (const [index, { rows }] of results.entries()) {
      for (const raw of rows as Record<string, unknown>[]) {
        const row = this.convert(spec, parts[index], raw);
        const key = spec.dimensions.map((dimension) => row[dimension]).join('\u0000');
        merged.set(key, { ...merged.get(key), ...row });
      }
    }
    const rows = [...merged.values()].map((row) => this.fillMissing(spec, row));
    rows.sort((a, b) => this.compare(spec, a, b));
    if (!page) return { rows, more: false };
    return { rows: rows.slice(page.offset, page.offset + page.limit), more: rows.length > page.offset + page.limit };
  }

  /**
   * Every row of the query as `rows` gives them, sorted as asked (else by the dimensions), read through
   * a cursor a batch at a time: one statement, never the whole result in memory. Measures of several
   * sources are joined in SQL on their dimension values; `limit` keeps the first rows only. Batches are
   * of `batchSize` rows at most.
   */
  async *stream(asked: QuerySpec, batchSize: number, limit?: number): AsyncGenerator<StreamedRow[]> {
    const spec = withoutVacuousFilters(asked);
    const parts = this.plan(spec);
    const page = limit === undefined ? undefined : { limit, offset: 0 };
    const statement = parts.length === 1 ? this.select(spec, parts[0], page) : this.joined(spec, parts, page);
    const labelled = this.labelled(spec);
    const db = this.reads.db;
    const compiled = (labelled.length > 0 ? this.withLabels(spec, parts, statement, labelled) : statement).compile(db);
    for await (const { rows } of db.getExecutor().stream(compiled, batchSize)) {
      yield (rows as Record<string, unknown>[]).map((raw) => {
        const row: StreamedRow =
          parts.length === 1 ? this.convert(spec, parts[0], raw) : this.fillMissing(spec, this.convertJoined(spec, parts, raw));
        labelled.forEach((dimension, index) => {
          const en = raw[`label_en_${index}`] as string | null;
          if (en !== null && en !== undefined) (row.labels ??= {})[dimension.name] = { en, ar: raw[`label_ar_${index}`] as string };
        });
        return row;
      });
    }
  }

  /** The dimensions of a query whose labels its statement can join (labelJoin), with that join over `q`. */
  private labelled(spec: QuerySpec): { name: string; join: RawBuilder<unknown> }[] {
    return labelledDimensions(spec.dimensions).flatMap(({ name, dimension }) => {
      const join = labelJoin(spec.storeId, dimension, sql.ref(`q.${name}`));
      return join ? [{ name, join }] : [];
    });
  }

  /**
   * The statement with the labels of its dimensions' values beside each row (`label_en_N`, `label_ar_N`,
   * null where there is none), in its own order: PostgreSQL joins them as it sees fit, once.
   */
  private withLabels(
    spec: QuerySpec,
    parts: Part[],
    statement: RawBuilder<unknown>,
    labelled: { name: string; join: RawBuilder<unknown> }[],
  ): RawBuilder<unknown> {
    const labels = labelled.flatMap((_, index) => [
      sql`${sql.ref(`l${index}.en`)} as ${sql.ref(`label_en_${index}`)}`,
      sql`${sql.ref(`l${index}.ar`)} as ${sql.ref(`label_ar_${index}`)}`,
    ]);
    const joins = labelled.map(({ join }, index) => sql`left join lateral (${join}) ${sql.ref(`l${index}`)} on true`);
    // the order of select (its sort measure when its part has it) and of joined (its sort), then the dimensions
    const sorted = spec.sort && parts.some((part) => part.measures.some((measure) => measure.name === spec.sort!.measure));
    const order = [
      ...(sorted ? [sql`${sql.ref(`q.${spec.sort!.measure}`)} ${sql.raw(spec.sort!.descending ? 'desc' : 'asc')} nulls last`] : []),
      ...spec.dimensions.map((dimension) => sql.ref(`q.${dimension}`)),
    ];
    return sql`select q.*, ${sql.join(labels)} from (${statement}) q ${sql.join(joins, sql` `)} order by ${sql.join(order)}`;
  }

  /** How many rows the query has, counted without computing them, for an answer or for an export. */
  async count(asked: QuerySpec, purpose: Purpose = 'answer'): Promise<number> {
    const spec = withoutVacuousFilters(asked);
    const parts = this.plan(spec);
    const { rows } = await this.bounded(spec, parts, purpose, (db) => {
      const keys = parts.map((part) => this.select(spec, { ...part, measures: [] }, undefined, true));
      return sql<{ count: string }>`select count(*) as count from (${sql.join(keys, sql` union `)}) keys`.execute(db);
    });
    return Number(rows[0].count);
  }

  /**
   * Runs a read: an answer's read of the records within RecordsLimits (in its session, when it has one,
   * with the facts it reads gathered first), anything else (rollups, or an export, which runs in the
   * background and streams) as it is. `read` builds its statements when it runs.
   */
  private async bounded<T>(spec: QuerySpec, parts: Part[], purpose: Purpose, read: (db: Kysely<unknown>) => Promise<T>): Promise<T> {
    const recorded = parts.filter((part) => part.table === 'records');
    const session = this.sessions.getStore();
    // An answer that reads records reads them on the primary (a hot standby cannot hold the temporary tables
    // its facts are gathered in), and its rollups there too, so that all its figures are of one moment.
    if (purpose === 'export' || recorded.length === 0) return read(session ? (this.em.getKysely() as Kysely<unknown>) : this.reads.db);
    if (!session) return this.limits.within(spec.storeId, spec.range, read);
    const turn = session.queue.then(async () => {
      const range = `${spec.range.from}…${spec.range.to}`;
      if (!session.checked.has(range)) {
        await this.limits.refuseOverBudget(spec.storeId, spec.range);
        session.checked.add(range);
      }
      for (const part of recorded) await this.gather(session, spec, part);
      return read(session.db);
    });
    session.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Reads the facts a part of the session's answer needs into a temporary table, unless one holds them already. */
  private async gather(session: RecordsSession, spec: QuerySpec, part: Part): Promise<void> {
    const key = this.factsKey(spec, part.source);
    const columns = this.factColumns(spec, part.source);
    const held = session.facts.get(key);
    if (held && columns.every((column) => held.columns.includes(column))) return;
    const all = [...new Set([...(held?.columns ?? []), ...columns])];
    session.made += 1;
    const table = `insights_records_${session.made}`;
    const where = spec.filters.map((filter) => this.filterCondition(readBy(part)[filter.dimension], filter));
    await sql`create temporary table ${sql.table(table)} on commit drop as
              select t.* from (${this.facts(spec, part.source, all)}) t
              ${where.length > 0 ? sql`where ${sql.join(where, sql` and `)}` : sql``}`.execute(session.db);
    session.facts.set(key, { table, columns: all });
  }

  private factsKey(spec: QuerySpec, source: SourceDef): string {
    return JSON.stringify([source.name, spec.range, spec.filters]);
  }

  /** Checks that every measure can be read as the query asks, without reading anything. */
  check(spec: QuerySpec): void {
    this.plan(withoutVacuousFilters(spec));
  }

  /**
   * The dimensions every one of these queries can also be filtered by, beside the filters it has:
   * what a report or a builder answer offers to filter by.
   */
  filterable(specs: QuerySpec[]): string[] {
    const answers = (spec: QuerySpec) => {
      try {
        this.plan(spec);
        return true;
      } catch (error) {
        if (error instanceof ApiError) return false;
        throw error;
      }
    };
    return DIMENSIONS.filter((dimension) => dimension.filterable && !isTimeGrain(dimension.name))
      .map((dimension) => dimension.name)
      .filter((name) => specs.every((spec) => answers({ ...spec, filters: [...spec.filters, { dimension: name, op: 'in', values: [] }] })));
  }

  private plan(spec: QuerySpec): Part[] {
    const grain = spec.dimensions.find(isTimeGrain);
    const used = this.used(spec);
    const parts: Part[] = [];
    for (const measure of spec.measures) {
      const missing = (measure.requires ?? []).filter((dimension) => !spec.dimensions.includes(dimension));
      if (missing.length > 0) {
        throw unavailable(
          'dimensions',
          `${measure.name} is only meaningful split by ${missing.join(' and ')}.`,
          `لا معنى لـ ${measure.name} إلا عند التقسيم حسب ${missing.join(' و')}.`,
        );
      }
      const sources = SOURCES.filter((source) => measure.in[source.name] && (!grain || source.timed));
      const fromRollups = sources.flatMap((source): { source: SourceDef; table: Reading }[] => {
        if ([...used].some((dimension) => !source.dimensions[dimension])) return [];
        const conditions = source.conditions?.(used);
        if (conditions && 'refused' in conditions) return [];
        const table = this.tableFor(source, grain, used, spec.range);
        return table ? [{ source, table }] : [];
      })[0];
      const recorded = sources.find(
        (source) =>
          source.records &&
          !source.records.without?.includes(measure.name) &&
          [...used].every((dimension) => source.records!.dimensions[dimension]),
      );
      const fromRecords = recorded && { source: recorded, table: 'records' as const };
      const served =
        spec.via === 'records' ? (fromRecords ?? fromRollups) : spec.via === 'rollups' ? fromRollups : (fromRollups ?? fromRecords);
      if (!served) throw unsupportedCombination(measure, [...new Set([...spec.dimensions, ...used])]);
      const part = parts.find((candidate) => candidate.source === served.source && candidate.table === served.table);
      if (part) part.measures.push(measure);
      else parts.push({ ...served, measures: [measure] });
    }
    return parts;
  }

  /** The dimensions a query splits or filters by, time grains aside. */
  private used(spec: QuerySpec): Set<string> {
    return new Set([...spec.dimensions.filter((dimension) => !isTimeGrain(dimension)), ...spec.filters.map((filter) => filter.dimension)]);
  }

  /**
   * The table that serves the query with the fewest rows: of those whose keys hold the dimensions'
   * columns and whose buckets hold the grain's periods, the one with the fewest keys, then the coarsest
   * buckets. A monthly table serves whole months only, its daily sibling the days around them.
   */
  private tableFor(source: SourceDef, grain: TimeGrain | undefined, used: ReadonlySet<string>, range: DateRange): RollupTable | undefined {
    if (!source.timed) return source.tables[0];
    const covers = (table: RollupTable) =>
      [...used].every((name) => (table.keys as readonly string[]).includes(source.dimensions[name].column));
    const serves = (table: RollupTable): boolean => {
      switch (table.granularity) {
        case 'hour':
          return true;
        case 'day':
          return grain !== 'hour';
        case 'month':
          return (
            (grain === undefined || ['month', 'quarter', 'year'].includes(grain)) &&
            !!monthsWithin(range) &&
            !!this.dailySibling(source, table)
          );
        case 'all':
          return false;
      }
    };
    return source.tables
      .filter((table) => covers(table) && serves(table))
      .sort((a, b) => a.keys.length - b.keys.length || GRANULARITY_RANK[b.granularity] - GRANULARITY_RANK[a.granularity])[0];
  }

  private dailySibling(source: SourceDef, monthly: RollupTable): RollupTable | undefined {
    return source.tables.find((table) => table.granularity === 'day' && table.keys.join() === monthly.keys.join());
  }

  private select(spec: QuerySpec, part: Part, page?: { limit: number; offset: number }, keysOnly = false): RawBuilder<unknown> {
    const { source, table } = part;
    const grain = spec.dimensions.find(isTimeGrain);
    const used = this.used(spec);
    // Grouped by the values as they are (a uuid, a date), answered as text.
    const values = spec.dimensions.map((dimension) =>
      isTimeGrain(dimension) ? this.periodValue(table, dimension, spec.weekStartsOn) : readBy(part)[dimension].sql,
    );
    const periodStart = grain
      ? sql`greatest(${this.periodDate(table, grain, spec.weekStartsOn)}, ${spec.range.from}::date)`
      : sql`${spec.range.from}::date`;
    const context: MeasureContext = { used, periodStart };
    const conditions = source.conditions?.(used) ?? [];
    const where = [
      sql`t.store_id = ${spec.storeId}::uuid`,
      ...(Array.isArray(conditions) ? conditions : []),
      ...spec.filters.map((filter) => this.filterCondition(readBy(part)[filter.dimension], filter)),
    ];
    const measures = keysOnly ? [] : part.measures;
    const expansion = source.expand?.(used);
    const grouped = sql`
      select ${sql.join([
        ...values.map((value, i) => sql`${value} as ${sql.ref(`d${i}`)}`),
        ...measures.map((measure) => sql`${measure.in[source.name]!(context)} as ${sql.ref(measure.name)}`),
        sql`1 as one`,
      ])}
      from ${table === 'records' ? this.recordRows(spec, source) : this.rangeRows(spec, source, table)} t ${expansion ? sql`cross join lateral ${expansion}` : sql``}
      where ${sql.join(where, sql` and `)}
      ${values.length > 0 ? sql`group by ${sql.join(values.map((_, i) => sql.lit(i + 1)))}` : sql``}`;
    const answered = spec.dimensions.map((dimension, i) => sql`${this.asText(dimension, sql.ref(`g.d${i}`))} as ${sql.ref(dimension)}`);
    if (keysOnly) {
      // without dimensions, the answer is one row of totals, whatever rows it adds up
      return answered.length > 0 ? sql`select ${sql.join(answered)} from (${grouped}) g` : sql`select 1 as one`;
    }
    const query = sql`select ${sql.join([...answered, ...measures.map((measure) => sql.ref(`g.${measure.name}`)), sql`1 as one`])} from (${grouped}) g`;
    const order: RawBuilder<unknown>[] = [];
    if (spec.sort && measures.some((measure) => measure.name === spec.sort!.measure)) {
      order.push(sql`${sql.ref(spec.sort.measure)} ${sql.raw(spec.sort.descending ? 'desc' : 'asc')} nulls last`);
    }
    order.push(...spec.dimensions.map((dimension) => sql.ref(dimension)));
    const ordered = order.length > 0 ? sql`${query} order by ${sql.join(order)}` : query;
    return page ? sql`${ordered} limit ${page.limit} offset ${page.offset}` : ordered;
  }

  /**
   * The parts of a query whose measures come from several sources, as one statement: full outer joins
   * on the dimension values, each measure from its part (absent where its part has no such row), sorted
   * as `compare` sorts the merged rows.
   */
  private joined(spec: QuerySpec, parts: Part[], page?: { limit: number; offset: number }): RawBuilder<unknown> {
    const alias = (index: number) => sql.ref(`p${index}`);
    const key = (dimension: string, upTo: number) =>
      upTo === 1
        ? sql.ref(`p0.${dimension}`)
        : sql`coalesce(${sql.join(parts.slice(0, upTo).map((_, index) => sql.ref(`p${index}.${dimension}`)))})`;
    const from = parts.map((part, index) => {
      const select = sql`(${this.select(spec, part)}) ${alias(index)}`;
      if (index === 0) return select;
      if (spec.dimensions.length === 0) return sql`full join ${select} on true`;
      const on = spec.dimensions.map((dimension) => sql`${key(dimension, index)} = ${sql.ref(`p${index}.${dimension}`)}`);
      return sql`full join ${select} on ${sql.join(on, sql` and `)}`;
    });
    const columns = [
      ...spec.dimensions.map((dimension) => sql`${key(dimension, parts.length)} as ${sql.ref(dimension)}`),
      ...parts.flatMap((part, index) => [
        ...part.measures.map((measure) => sql.ref(`p${index}.${measure.name}`)),
        sql`${sql.ref(`p${index}.one`)} as ${sql.ref(`present${index}`)}`,
      ]),
    ];
    const order: RawBuilder<unknown>[] = [];
    if (spec.sort) order.push(sql`${sql.ref(spec.sort.measure)} ${sql.raw(spec.sort.descending ? 'desc' : 'asc')} nulls last`);
    order.push(...spec.dimensions.map((dimension) => sql.ref(dimension)));
    const statement = sql`select ${sql.join(columns)} from ${sql.join(from, sql` `)}`;
    const ordered = order.length > 0 ? sql`${statement} order by ${sql.join(order)}` : statement;
    return page ? sql`${ordered} limit ${page.limit} offset ${page.offset}` : ordered;
  }

  /** A row of `joined`: each measure from its part where the part has the row. */
  private convertJoined(spec: QuerySpec, parts: Part[], raw: Record<string, unknown>): Row {
    const row: Row = {};
    for (const dimension of spec.dimensions) row[dimension] = raw[dimension] as string;
    parts.forEach((part, index) => {
      if (raw[`present${index}`] === null) return;
      for (const { name } of part.measures) row[name] = raw[name] === null || raw[name] === undefined ? null : Number(raw[name]);
    });
    return row;
  }

  /**
   * The facts of the range from the source's records, each in its local day and hour. The range's
   * local days are a window of instants in the store's time zone, which every fold's records are
   * selected by (rollups/facts).
   */
  private recordRows(spec: QuerySpec, source: SourceDef): RawBuilder<unknown> {
    const held = this.sessions.getStore()?.facts.get(this.factsKey(spec, source));
    const facts = held ? sql.table(held.table) : sql`(${this.facts(spec, source, this.factColumns(spec, source))})`;
    return sql`(select f.*, (f.at at time zone f.tz)::date as day, date_trunc('hour', f.at at time zone f.tz) as hour from ${facts} f)`;
  }

  /** The columns of its source's facts a query reads: what it splits and filters by, and what its measures sum. */
  private factColumns(spec: QuerySpec, source: SourceDef): string[] {
    const records = source.records!;
    const keys = [...this.used(spec)].map((name) => records.dimensions[name].column);
    const measures = spec.measures.filter((measure) => measure.in[source.name]).flatMap((measure) => records.reads(measure.name));
    return [...new Set(['store_id', 'at', 'tz', ...keys, ...measures])];
  }

  private facts(spec: QuerySpec, source: SourceDef, columns: readonly string[]): RawBuilder<unknown> {
    const timezone = sql`(select s.timezone from stores s where s.id = ${spec.storeId}::uuid)`;
    const window = {
      from: sql`(${spec.range.from}::date::timestamp at time zone ${timezone})`,
      to: sql`((${spec.range.to}::date + 1)::timestamp at time zone ${timezone})`,
    };
    return source.records!.facts({ storeId: spec.storeId, window }, columns);
  }

  /**
   * The rollup rows of the range: the table's own, or, for a monthly table, its whole months inside
   * the range and its daily sibling's days before and after them (a month's bucket read as its first day).
   */
  private rangeRows(spec: QuerySpec, source: SourceDef, table: RollupTable): RawBuilder<unknown> {
    const { range, storeId } = spec;
    if (!source.timed) {
      // a cohort is in the range when its first month is; its months are counted up to the range's end
      return sql`(select * from ${sql.table(table.name)} c where c.store_id = ${storeId}::uuid
                    and c.cohort_month between date_trunc('month', ${range.from}::date)::date and ${range.to}::date
                    and c.month <= ${range.to}::date)`;
    }
    if (table.granularity === 'hour') {
      return sql`(select * from ${sql.table(table.name)} h where h.store_id = ${storeId}::uuid
                    and h.hour >= ${range.from}::date::timestamp and h.hour < (${range.to}::date + 1)::timestamp)`;
    }
    if (table.granularity === 'day') {
      return sql`(select * from ${sql.table(table.name)} d
                  where d.store_id = ${storeId}::uuid and d.day between ${range.from}::date and ${range.to}::date)`;
    }
    const months = monthsWithin(range)!;
    const daily = this.dailySibling(source, table)!;
    const columns = sql.join([...table.keys, ...table.measures].map((column) => sql.ref(column)));
    return sql`(
      select store_id, month as day, ${columns} from ${sql.table(table.name)}
      where store_id = ${storeId}::uuid and month between ${months.from}::date and ${months.to}::date
      union all
      select store_id, day, ${columns} from ${sql.table(daily.name)}
      where store_id = ${storeId}::uuid and day between ${range.from}::date and ${range.to}::date
        and (day < ${months.from}::date or day >= (${months.to}::date + interval '1 month')::date))`;
  }

  /** The first day of the row's period, as a date (records have a day and an hour). */
  private periodDate(table: Reading, grain: TimeGrain, weekStartsOn: WeekStart): RawBuilder<unknown> {
    const day = table !== 'records' && table.granularity === 'hour' ? sql`t.hour::date` : sql`t.day`;
    switch (grain) {
      case 'hour':
      case 'day':
        return day;
      case 'week':
        return sql`(${day} - ((extract(isodow from ${day})::int - ${sql.lit(isoWeekday(weekStartsOn))} + 7) % 7))`;
      default:
        return sql`date_trunc(${sql.lit(grain)}, ${day})::date`;
    }
  }

  /** The row's period: its hour, or the first day of its day, week, month… */
  private periodValue(table: Reading, grain: TimeGrain, weekStartsOn: WeekStart): RawBuilder<unknown> {
    return grain === 'hour' ? sql`t.hour` : this.periodDate(table, grain, weekStartsOn);
  }

  /** A grouped value as the answer names it: periods as the series names them, the rest as text. */
  private asText(dimension: string, value: RawBuilder<unknown>): RawBuilder<unknown> {
    if (dimension === 'hour') return sql`to_char(${value}, 'YYYY-MM-DD"T"HH24:00')`;
    return isTimeGrain(dimension) ? sql`to_char(${value}, 'YYYY-MM-DD')` : sql`${value}::text`;
  }

  private filterCondition(read: SourceDimension, filter: Filter): RawBuilder<unknown> {
    const dimension = dimensionNamed(filter.dimension)!;
    const raw = read.sql;
    const value = sql`(${raw})::text`;
    const typed = dimension.type === 'number' ? sql`(${raw})::numeric` : dimension.type === 'date' ? sql`(${raw})::date` : value;
    const cast = (raw: string) =>
      dimension.type === 'number' ? sql`${raw}::numeric` : dimension.type === 'date' ? sql`${raw}::date` : sql`${raw}`;
    const none = NONE_VALUE[filter.dimension];
    switch (filter.op) {
      case 'in':
        return this.among(read, filter.values);
      case 'not_in':
        return sql`not ${this.among(read, filter.values)}`;
      case 'contains':
        return sql`${value} ilike any(${filter.values.map((text) => `%${text.replace(/[\\%_]/g, '\\$&')}%`)}::text[])`;
      case 'gt':
        return sql`${typed} > ${cast(filter.values[0])}`;
      case 'gte':
        return sql`${typed} >= ${cast(filter.values[0])}`;
      case 'lt':
        return sql`${typed} < ${cast(filter.values[0])}`;
      case 'lte':
        return sql`${typed} <= ${cast(filter.values[0])}`;
      case 'between':
        return sql`${typed} between ${cast(filter.values[0])} and ${cast(filter.values[1])}`;
      case 'is_set':
        return none === undefined ? sql`true` : sql`${value} <> ${none}`;
      case 'is_not_set':
        return none === undefined ? sql`false` : sql`${value} = ${none}`;
    }
  }

  /**
   * The row's value is one of `values`: compared in the column's own type (so that its indexes serve),
   * values that cannot be of that type left out, as they match nothing.
   */
  private among(dimension: SourceDimension, values: string[]): RawBuilder<unknown> {
    if (!dimension.type) return sql`(${dimension.sql} = any(${values}::text[]))`;
    const valid = values.filter((value) => TYPED_VALUE[dimension.type!].test(value));
    return sql`(${dimension.sql} = any(${valid}::${sql.raw(dimension.type)}[]))`;
  }

  private convert(spec: QuerySpec, part: Part, raw: Record<string, unknown>): Row {
    const row: Row = {};
    for (const dimension of spec.dimensions) row[dimension] = raw[dimension] as string;
    for (const { name } of part.measures) row[name] = raw[name] === null || raw[name] === undefined ? null : Number(raw[name]);
    return row;
  }

  private fillMissing(spec: QuerySpec, row: Row): Row {
    for (const measure of spec.measures) {
      if (!(measure.name in row)) row[measure.name] = emptyValueOf(measure);
    }
    return row;
  }

  private compare(spec: QuerySpec, a: Row, b: Row): number {
    if (spec.sort) {
      const left = a[spec.sort.measure];
      const right = b[spec.sort.measure];
      if (left !== right) {
        if (left === null) return 1;
        if (right === null) return -1;
        return (spec.sort.descending ? -1 : 1) * ((left as number) - (right as number));
      }
    }
    for (const dimension of spec.dimensions) {
      const left = String(a[dimension]);
      const right = String(b[dimension]);
      if (left !== right) return left < right ? -1 : 1;
    }
    return 0;
  }
}
