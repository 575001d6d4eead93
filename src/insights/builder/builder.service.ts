import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '../../auth/principal.js';
import type { InsightsArea } from '../../common/permissions.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { dimensionsOf, operatorsOf } from '../definitions/reference.js';
import { dimensionNamed, isTimeGrain, type DimensionDef, type TimeGrain } from '../definitions/dimensions.js';
import { emptyValueOf, measureNamed, type MeasureDef } from '../definitions/measures.js';
import { readableDimensions, requireAreas } from '../query/area-access.js';
import { DimensionValues } from '../query/dimension-values.js';
import { FreshnessService } from '../query/freshness.js';
import type { Filter, FilterOperator } from '../definitions/filters.js';
import { QueryEngine, unsupportedCombination, type QuerySpec } from '../query/query-engine.js';
import { isCalendarDate, periodsOf, resolveRange, type Compare, type DateRange } from '../query/ranges.js';
import { EXPORT_BATCH_ROWS, type ReportColumnDoc, type ReportRows } from '../query/report-rows.js';
import { StoreCalendars } from '../query/store-calendar.js';

export const MAX_BUILDER_DIMENSIONS = 3;
export const BUILDER_ROW_LIMIT = 5000;

/** The builder's request (contract section 8), as the DTO has shaped it. */
export interface BuilderQuery {
  measures: string[];
  dimensions?: string[];
  filters?: { dimension: string; op: FilterOperator; values: string[] }[];
  last?: number | 'all';
  from?: string;
  to?: string;
  compare?: Compare;
  /** `-measure` or `measure`. */
  sort?: string;
  /** Top-N: at most this many rows, by the sort. */
  limit?: number;
}

/**
 * Custom reports: any measures split by up to three dimensions, filtered, compared, sorted. The
 * answer is never truncated behind the caller's back: a result over 5,000 rows is refused, from a
 * count of its rows, with the export that would give all of them.
 */
@Injectable()
export class BuilderService {
  constructor(
    private readonly engine: QueryEngine,
    private readonly calendars: StoreCalendars,
    private readonly values: DimensionValues,
    private readonly freshness: FreshnessService,
  ) {}

  /** Checks a query as a run would (names, areas, plan, range, filters) without running it; answers the areas it reads. */
  async validate(query: BuilderQuery, admin: AdminPrincipal): Promise<InsightsArea[]> {
    return (await this.prepare(query, admin)).areas;
  }

  async run(query: BuilderQuery, admin: AdminPrincipal) {
    try {
      return await this.answer(query, admin);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'query_too_heavy') throw error;
      const narrow = error.options.suggestion!;
      throw new ApiError('query_too_heavy', {
        ...error.options,
        suggestion: {
          ...narrow,
          code: 'narrow_or_export',
          message_en: `${narrow.message_en} Or export it: POST /admin/insights/exports with this body gives every row as a file, without these limits.`,
          message_ar: `${narrow.message_ar} أو صدّره: يعطي POST /admin/insights/exports بهذا المحتوى الصفوف كلها في ملف، دون هذه الحدود.`,
          export: exportOf(query),
        },
      });
    }
  }

  private async answer(query: BuilderQuery, admin: AdminPrincipal) {
    const { measures, dimensions, calendar, grain, resolved, spec } = await this.prepare(query, admin);
    const names = dimensions.map((dimension) => dimension.name);
    const main = spec(resolved.range, names);
    // its row count first (refused over the limit), then its rows, totals and series: one read of the records for
    // all of it, when no rollup holds the question
    return this.engine.answer([main], async () => {
      const rowCount = await this.engine.count(main);
      const returned = Math.min(rowCount, query.limit ?? rowCount);
      if (returned > BUILDER_ROW_LIMIT) {
        throw new ApiError('over_row_limit', {
          details: { rowCount, rowLimit: BUILDER_ROW_LIMIT },
          suggestion: {
            code: 'export',
            message_en: `Export it instead: POST /admin/insights/exports with this body gives all ${rowCount} rows as a file.`,
            message_ar: `صدّره بدلًا من ذلك: يعطي POST /admin/insights/exports بهذا المحتوى الصفوف كلها (${rowCount}) في ملف.`,
            export: exportOf(query),
          },
        });
      }
      const { weekStartsOn } = calendar;
      const [{ rows }, totals, compareTotals, series, compareSeries, freshness] = await Promise.all([
        this.engine.rows(main, query.limit === undefined ? undefined : { limit: query.limit, offset: 0 }),
        this.engine.rows(spec(resolved.range, [])),
        resolved.compare ? this.engine.rows(spec(resolved.compare, [])) : null,
        grain ? this.series(spec(resolved.range, [grain]), grain, resolved.range, weekStartsOn) : [],
        grain && resolved.compare ? this.series(spec(resolved.compare, [grain]), grain, resolved.compare, weekStartsOn) : null,
        this.freshness.of(admin.storeId),
      ]);
      const rangeDoc = (range: DateRange) => ({ ...range, timezone: calendar.timezone, grain: resolved.grain });
      return {
        report: 'builder',
        range: rangeDoc(resolved.range),
        compareRange: resolved.compare ? rangeDoc(resolved.compare) : null,
        currency: calendar.currency,
        columns: columnsOf(dimensions, measures),
        filterable: readableDimensions(admin, this.engine.filterable([main])),
        sortable: measures.map((measure) => measure.name),
        totals: totals.rows[0] ?? {},
        compareTotals: compareTotals ? (compareTotals.rows[0] ?? {}) : null,
        series,
        compareSeries,
        rows: await this.values.labelRows(admin.storeId, rows, names),
        rowCount: returned,
        nextCursor: null,
        dataAsOf: freshness.dataAsOf,
      };
    });
  }

  /** Every row of the query (its `limit` at most, however many that is), for a file; no compare. */
  async table(query: BuilderQuery, admin: AdminPrincipal): Promise<ReportRows> {
    const { measures, dimensions, calendar, resolved, spec } = await this.prepare(query, admin);
    const names = dimensions.map((dimension) => dimension.name);
    const main = spec(resolved.range, names);
    const rowCount = await this.engine.count(main, 'export');
    return {
      report: 'builder',
      range: resolved.range,
      currency: calendar.currency,
      columns: columnsOf(dimensions, measures),
      totalRows: Math.min(rowCount, query.limit ?? rowCount),
      batches: this.values.labelBatches(admin.storeId, this.engine.stream(main, EXPORT_BATCH_ROWS, query.limit), names),
    };
  }

  private async prepare(query: BuilderQuery, admin: AdminPrincipal) {
    const measures = query.measures.map((name, index) => {
      const measure = measureNamed(name);
      if (!measure) throw new ApiError('unknown_measure', { details: { measure: name, field: `measures[${index}]` } });
      return measure;
    });
    const dimensions = this.dimensions(query.dimensions ?? []);
    const checked = (query.filters ?? []).map((filter, index) => this.filter(filter, index));
    const areas = [
      ...new Set([
        ...measures.map((measure) => measure.area),
        ...dimensions.map((dimension) => dimension.area),
        ...checked.map((filter) => dimensionNamed(filter.dimension)!.area),
      ]),
    ].filter((area): area is InsightsArea => area !== null);
    requireAreas(admin, areas);
    this.refuseUnavailable(measures, dimensions, checked);

    const calendar = await this.calendars.of(admin.storeId);
    const grain = dimensions.map((dimension) => dimension.name).find(isTimeGrain);
    const resolved = resolveRange(
      { last: query.last, from: query.from, to: query.to, compare: query.compare, grain },
      { today: calendar.today, firstOrderDay: calendar.firstOrderDay, entitlements: admin.entitlements },
    );
    const sort = this.sort(query.sort, measures, grain);
    // Values resolved first: both checkout kinds named are no filter at all, and can go with any other.
    const filters = await this.values.resolveFilters(admin.storeId, checked);
    const spec = (range: DateRange, dimensionNames: string[]): QuerySpec => ({
      storeId: admin.storeId,
      measures,
      dimensions: dimensionNames,
      filters,
      range,
      weekStartsOn: calendar.weekStartsOn,
      sort,
    });
    this.engine.check(
      spec(
        resolved.range,
        dimensions.map((dimension) => dimension.name),
      ),
    );
    return { measures, dimensions, areas, calendar, grain, resolved, spec };
  }

  /**
   * Refuses a dimension that one of the measures cannot be split or filtered by on any path, naming
   * both (dimensions they can each take, but not together, are refused by the query engine).
   */
  private refuseUnavailable(measures: MeasureDef[], dimensions: DimensionDef[], filters: Filter[]): void {
    const used = [...dimensions.map((dimension) => dimension.name), ...filters.map((filter) => filter.dimension)];
    for (const name of used) {
      const measure = measures.find((candidate) => !dimensionsOf(candidate).includes(name));
      if (measure) throw unsupportedCombination(measure, [name]);
    }
  }

  private dimensions(names: string[]): DimensionDef[] {
    if (names.length > MAX_BUILDER_DIMENSIONS) {
      throw new ApiError('too_many_dimensions', { details: { dimensions: names.length, maxDimensions: MAX_BUILDER_DIMENSIONS } });
    }
    const dimensions = names.map((name) => {
      const dimension = dimensionNamed(name);
      if (!dimension) throw new ApiError('unknown_dimension', { details: { dimension: name } });
      return dimension;
    });
    if (new Set(names).size !== names.length) {
      throw invalidField('dimensions', 'arrayUnique', { en: 'Name each dimension once.', ar: 'اذكر كل بُعد مرة واحدة.' });
    }
    if (names.filter(isTimeGrain).length > 1) {
      throw invalidField('dimensions', 'oneTimeGrain', { en: 'Split by one time grain at most.', ar: 'قسّم بوحدة زمنية واحدة على الأكثر.' });
    }
    return dimensions;
  }

  /** Checks a filter's dimension, operator and values for the dimension's type. */
  private filter(filter: NonNullable<BuilderQuery['filters']>[number], index: number): Filter {
    const dimension = dimensionNamed(filter.dimension);
    if (!dimension) throw new ApiError('unknown_dimension', { details: { dimension: filter.dimension } });
    const field = `filters[${index}]`;
    const operators = operatorsOf(dimension);
    if (!operators.includes(filter.op)) {
      throw invalidField(`${field}.op`, 'notAvailable', {
        en: operators.length > 0 ? `${filter.dimension} takes: ${operators.join(', ')}.` : `${filter.dimension} cannot be filtered.`,
        ar: operators.length > 0 ? `يقبل ${filter.dimension}: ${operators.join('، ')}.` : `لا يمكن تصفية ${filter.dimension}.`,
      });
    }
    const expected = { between: 2, gt: 1, gte: 1, lt: 1, lte: 1, is_set: 0, is_not_set: 0 }[filter.op as string];
    if (expected !== undefined ? filter.values.length !== expected : filter.values.length === 0) {
      const count = expected === undefined ? 'at least one value' : `${expected} value${expected === 1 ? '' : 's'}`;
      throw invalidField(`${field}.values`, 'valueCount', {
        en: `${filter.op} takes ${count}.`,
        ar: `يأخذ ${filter.op} ${expected === undefined ? 'قيمة واحدة على الأقل' : `${expected} من القيم`}.`,
      });
    }
    const bad = filter.values.findIndex((value) =>
      dimension.type === 'number' && !['in', 'not_in'].includes(filter.op)
        ? !/^-?\d+(\.\d+)?$/.test(value)
        : dimension.type === 'date' && !['in', 'not_in'].includes(filter.op)
          ? !isCalendarDate(value)
          : value.length > 200,
    );
    if (bad >= 0) {
      throw invalidField(`${field}.values[${bad}]`, 'invalidValue', {
        en:
          dimension.type === 'number'
            ? 'Must be a number.'
            : dimension.type === 'date'
              ? 'Must be a date: YYYY-MM-DD.'
              : 'At most 200 characters.',
        ar:
          dimension.type === 'number'
            ? 'يجب أن يكون رقمًا.'
            : dimension.type === 'date'
              ? 'يجب أن يكون تاريخًا: YYYY-MM-DD.'
              : '200 حرف كحد أقصى.',
      });
    }
    return { dimension: filter.dimension, op: filter.op, values: filter.values };
  }

  /** By default, time in order when split by a time grain, else the first measure, largest first. */
  private sort(sort: string | undefined, measures: MeasureDef[], grain: TimeGrain | undefined): QuerySpec['sort'] {
    if (sort === undefined) return grain ? undefined : { measure: measures[0].name, descending: true };
    const descending = sort.startsWith('-');
    const name = descending ? sort.slice(1) : sort;
    if (!measureNamed(name)) throw new ApiError('unknown_measure', { details: { measure: name, field: 'sort' } });
    if (!measures.some((measure) => measure.name === name)) {
      throw invalidField('sort', 'notInQuery', { en: 'Sort by one of the query’s measures.', ar: 'رتّب حسب أحد مقاييس الاستعلام.' });
    }
    return { measure: name, descending };
  }

  private async series(spec: QuerySpec, grain: TimeGrain, range: DateRange, weekStartsOn: QuerySpec['weekStartsOn']) {
    const { rows } = await this.engine.rows(spec);
    const byPeriod = new Map(rows.map((row) => [row[grain] as string, row]));
    return periodsOf(range, grain, weekStartsOn).map((period) => {
      const row = byPeriod.get(period);
      return {
        period,
        ...Object.fromEntries(spec.measures.map((measure) => [measure.name, row ? row[measure.name] : emptyValueOf(measure)])),
      };
    });
  }
}

/** The export request that gives every row of a builder query as a file. */
function exportOf(query: BuilderQuery) {
  return { source: { builder: query }, format: 'csv' };
}

function columnsOf(dimensions: DimensionDef[], measures: MeasureDef[]): ReportColumnDoc[] {
  return [
    ...dimensions.map((dimension) => ({
      name: dimension.name,
      kind: 'dimension' as const,
      type: dimension.type === 'date' ? 'date' : 'text',
      label_en: dimension.label.en,
      label_ar: dimension.label.ar,
    })),
    ...measures.map((measure) => ({
      name: measure.name,
      kind: 'measure' as const,
      type: measure.type,
      label_en: measure.label.en,
      label_ar: measure.label.ar,
      direction: measure.direction,
    })),
  ];
}
