import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { ReportReads } from '../../infra/database/report-reads.js';
import { decodeCursor, encodeCursor } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/list-query.dto.js';
import { dimensionNamed, type DimensionDef, type TimeGrain } from '../definitions/dimensions.js';
import type { Filter } from '../definitions/filters.js';
import { measureNamed } from '../definitions/measures.js';
import { REPORT_COLUMNS, REPORTS, type ReportDef, type ReportName, type ReportTable } from '../definitions/reports.js';
import { readableDimensions, requireAreas } from '../query/area-access.js';
import { DimensionValues } from '../query/dimension-values.js';
import { FreshnessService } from '../query/freshness.js';
import { QueryEngine, type QuerySpec } from '../query/query-engine.js';
import { resolveRange, type Compare, type DateRange } from '../query/ranges.js';
import type { ReportColumnDoc, ReportRows } from '../query/report-rows.js';
import { StoreCalendars } from '../query/store-calendar.js';
import {
  dimensionColumn,
  measureColumn,
  measuresNamed,
  querySpec,
  seriesOf,
  type ReportRequest,
  type ReportRow,
  type Values,
} from './report-request.js';
import { COHORTS_TABLE } from './tables/cohorts.js';
import { CUSTOMER_GROUPS_TABLE } from './tables/customer-groups.js';
import { FUNNEL_TABLE } from './tables/funnel.js';
import { LATE_ORDERS_TABLE } from './tables/late-orders.js';
import { NO_TABLE } from './tables/no-table.js';
import { NOT_SELLING_TABLE } from './tables/not-selling.js';
import { SPLIT_TABLE } from './tables/split.js';
import type { ReportTableStrategy, TableContext } from './tables/table-strategy.js';

export interface ReportParams {
  from?: string;
  to?: string;
  last?: number | 'all';
  compare?: Compare;
  grain?: TimeGrain;
  /** `dimension:value`, repeated: values of one dimension are OR'd, dimensions AND'd. */
  filters?: string[];
  /** `-measure` (descending) or `measure`. */
  sort?: string;
  limit?: number;
  cursor?: string;
}

export interface ReportResponse {
  report: ReportName;
  range: DateRange & { timezone: string; grain: TimeGrain };
  compareRange: (DateRange & { timezone: string; grain: TimeGrain }) | null;
  currency: string;
  columns: ReportColumnDoc[];
  /** The dimensions the report can be filtered by, beside the filters it has. */
  filterable: string[];
  /** The measures its table can be sorted by (`sort`). */
  sortable: string[];
  totals: Values;
  compareTotals: Values | null;
  series: Values[];
  compareSeries: Values[] | null;
  /** Dimension values and measures, with `labels` naming the dimensions' values in both languages. */
  rows: ReportRow[];
  nextCursor: string | null;
  dataAsOf: string;
}

/** The strategy of each kind of report table; the bespoke kinds are each their report's own. */
const REPORT_TABLES: Record<ReportTable['kind'], ReportTableStrategy> = {
  none: NO_TABLE,
  split: SPLIT_TABLE,
  cohorts: COHORTS_TABLE,
  customer_groups: CUSTOMER_GROUPS_TABLE,
  funnel: FUNNEL_TABLE,
  not_selling: NOT_SELLING_TABLE,
  late_orders: LATE_ORDERS_TABLE,
};

/**
 * The built-in reports: headline totals (and those of the compare range), a zero-filled time series
 * per grain period, and the report's table, sorted and paginated, shaped by the strategy of its kind
 * (`tables/`). Every figure comes from the query engine over the rollups; the late-orders and
 * not-selling tables list records (orders, products) that the rollups point at.
 */
@Injectable()
export class ReportService {
  private readonly context: TableContext;

  constructor(
    reads: ReportReads,
    private readonly engine: QueryEngine,
    private readonly calendars: StoreCalendars,
    private readonly values: DimensionValues,
    private readonly freshness: FreshnessService,
  ) {
    this.context = { db: reads.db, engine, values };
  }

  async run(name: ReportName, params: ReportParams, admin: AdminPrincipal): Promise<ReportResponse> {
    const request = await this.check(REPORTS[name], params, admin);
    const { def, calendar, resolved } = request;
    // one read of the records for all of it, when a filter takes it where no rollup holds it
    const [totals, compareTotals, series, compareSeries, table, freshness] = await this.engine.answer(this.queries(request), () =>
      Promise.all([
        this.totals(request, resolved.range),
        resolved.compare ? this.totals(request, resolved.compare) : null,
        seriesOf(this.engine, request, resolved.range),
        resolved.compare ? seriesOf(this.engine, request, resolved.compare) : null,
        REPORT_TABLES[def.table.kind].page(request, this.context),
        this.freshness.of(calendar.storeId),
      ]),
    );
    const rangeDoc = (range: DateRange) => ({ ...range, timezone: calendar.timezone, grain: resolved.grain });
    return {
      report: name,
      range: rangeDoc(resolved.range),
      compareRange: resolved.compare ? rangeDoc(resolved.compare) : null,
      currency: calendar.currency,
      columns: this.columns(def, resolved.grain),
      filterable: readableDimensions(admin, this.filterable(request)),
      sortable: REPORT_TABLES[def.table.kind].sortable(def.table),
      totals: { ...totals, ...table.totals },
      compareTotals,
      series,
      compareSeries,
      rows: table.rows,
      nextCursor: table.more ? encodeCursor([request.page.offset + request.page.limit]) : null,
      dataAsOf: freshness.dataAsOf,
    };
  }

  /** Checks a report's request as a run would (range, plan, filters, sort, cursor) without running it. */
  async validate(name: ReportName, params: ReportParams, admin: AdminPrincipal): Promise<void> {
    await this.check(REPORTS[name], params, admin);
  }

  /**
   * The report's whole table, for a file: every row, read a batch at a time (a measure table through
   * one cursor), whatever `limit` and `cursor` say. The overview, which has no table, gives its series.
   */
  async table(name: ReportName, params: ReportParams, admin: AdminPrincipal): Promise<ReportRows> {
    const request = await this.check(REPORTS[name], { ...params, cursor: undefined }, admin);
    const { def, calendar, resolved } = request;
    const { columns, totalRows, batches } = await REPORT_TABLES[def.table.kind].file(request, this.context);
    return {
      report: name,
      range: resolved.range,
      currency: calendar.currency,
      columns: columns ?? this.tableColumns(def, resolved.grain),
      totalRows,
      batches,
    };
  }

  // --- the request ---

  private async check(def: ReportDef, params: ReportParams, admin: AdminPrincipal): Promise<ReportRequest> {
    const table = REPORT_TABLES[def.table.kind];
    const calendar = await this.calendars.of(admin.storeId);
    const asked = resolveRange(params, { today: calendar.today, firstOrderDay: calendar.firstOrderDay, entitlements: admin.entitlements });
    const resolved = table.range?.(asked, params.compare ?? 'none', calendar.today) ?? asked;
    const raw = params.filters ?? [];
    const filters = parseFilters(raw);
    const sort = this.sortOf(def, params.sort);
    const offset = params.cursor === undefined ? 0 : decodeCursor<[number]>(params.cursor, ['number'])[0];
    if (offset < 0) throw invalidField('cursor', 'invalidCursor', { en: 'This cursor is not valid here.', ar: 'هذا المؤشر غير صالح هنا.' });
    const limit = params.limit ?? table.defaultLimit ?? DEFAULT_PAGE_SIZE;
    const unfiltered: ReportRequest = { def, calendar, resolved, filters: [], sort, page: { limit, offset } };
    // Refuse a filter the report's figures cannot take before anything runs: one it never takes, then ones it cannot take together.
    const offered = this.filterable(unfiltered);
    for (const filter of filters) {
      if (!offered.includes(filter.dimension)) {
        const field = `filter[${raw.findIndex((entry) => entry.startsWith(`${filter.dimension}:`))}]`;
        throw notFilterableBy(def, dimensionNamed(filter.dimension)!, offered, field);
      }
    }
    // A filter reads its dimension's area (products by customer tell about customers): its view permission and plan.
    requireAreas(
      admin,
      filters.map((filter) => dimensionNamed(filter.dimension)!.area),
    );
    // Values resolved first: both checkout kinds named are no filter at all, and can go with any other.
    const request = { ...unfiltered, filters: await this.values.resolveFilters(calendar.storeId, filters) };
    for (const spec of this.queries(request)) this.engine.check(spec);
    return request;
  }

  /**
   * The dimensions the report can be filtered by, beside its request's filters: those every query of
   * its totals and table can take (its series' measures are among its totals'), and, for the tables
   * that list records, those the records have.
   */
  private filterable(request: ReportRequest): string[] {
    const records = REPORT_TABLES[request.def.table.kind].recordFilters;
    return this.engine.filterable(this.queries(request)).filter((name) => !records || name in records);
  }

  /** The queries of the report's totals and of its table (none for a table that lists records). */
  private queries(request: ReportRequest): QuerySpec[] {
    const { def, resolved } = request;
    const totals = def.totals.length > 0 ? [querySpec(request, resolved.range, measuresNamed(def.totals), [])] : [];
    return [...totals, ...REPORT_TABLES[def.table.kind].queries(request)];
  }

  private sortOf(def: ReportDef, sort: string | undefined): ReportRequest['sort'] {
    const table = REPORT_TABLES[def.table.kind];
    if (sort === undefined) return table.defaultSort?.(def.table);
    const descending = sort.startsWith('-');
    const measure = descending ? sort.slice(1) : sort;
    const sortable = table.sortable(def.table);
    if (!sortable.includes(measure)) {
      if (!measureNamed(measure) && !REPORT_COLUMNS.some((column) => column.name === measure)) {
        throw new ApiError('unknown_measure', { details: { measure } });
      }
      throw invalidField('sort', 'notInReport', {
        en: `This report's table can be sorted by: ${sortable.join(', ') || 'nothing (its order is fixed)'}.`,
        ar: `يمكن ترتيب جدول هذا التقرير حسب: ${sortable.join('، ') || 'لا شيء (ترتيبه ثابت)'}.`,
      });
    }
    return { measure, descending };
  }

  // --- totals ---

  private async totals(request: ReportRequest, range: DateRange): Promise<Values> {
    if (request.def.totals.length === 0) return {};
    const { rows } = await this.engine.rows(querySpec(request, range, measuresNamed(request.def.totals), []));
    return rows[0] ?? {};
  }

  // --- columns ---

  /** The answer's columns: the table's, then the measures of its totals and series. */
  private columns(def: ReportDef, grain: TimeGrain): ReportColumnDoc[] {
    const table = this.tableColumns(def, grain);
    const extra = [...(REPORT_TABLES[def.table.kind].totals ?? []), ...def.totals, ...def.series];
    const named = new Set(table.map((column) => column.name));
    return [...table, ...[...new Set(extra)].filter((name) => !named.has(name)).map(measureColumn)];
  }

  /** The columns of the table's rows, dimensions first. */
  private tableColumns(def: ReportDef, grain: TimeGrain): ReportColumnDoc[] {
    const [dimensions, measures] = REPORT_TABLES[def.table.kind].columns(def.table, grain);
    return [...dimensions.map(dimensionColumn), ...measures.map(measureColumn)];
  }
}

/** A filter by a dimension the report never takes: 400 on the filter, naming the report and what it can be filtered by. */
function notFilterableBy(def: ReportDef, dimension: DimensionDef, offered: string[], field: string): ApiError {
  const named = offered.map((name) => ({ name, label: dimensionNamed(name)!.label }));
  return invalidField(field, 'notFilterable', {
    en: `${def.title.en} cannot be filtered by ${dimension.label.en} (${dimension.name}). ${
      named.length > 0
        ? `It can be filtered by: ${named.map(({ name, label }) => `${label.en} (${name})`).join(', ')}.`
        : 'It cannot be filtered.'
    }`,
    ar: `لا يمكن تصفية «${def.title.ar}» حسب ${dimension.label.ar} (${dimension.name}). ${
      named.length > 0 ? `يمكن تصفيته حسب: ${named.map(({ name, label }) => `${label.ar} (${name})`).join('، ')}.` : 'لا يمكن تصفيته.'
    }`,
  });
}

/** `dimension:value` filters, one per dimension with its values OR'd. */
export function parseFilters(raw: string[]): Filter[] {
  const byDimension = new Map<string, string[]>();
  raw.forEach((entry, index) => {
    const colon = entry.indexOf(':');
    if (colon <= 0) {
      throw invalidField(`filter[${index}]`, 'format', {
        en: 'A filter is dimension:value, e.g. payment_method:card.',
        ar: 'المرشّح بصيغة dimension:value، مثل payment_method:card.',
      });
    }
    const name = entry.slice(0, colon);
    const dimension = dimensionNamed(name);
    if (!dimension) throw new ApiError('unknown_dimension', { details: { dimension: name } });
    if (!dimension.filterable) {
      throw invalidField(`filter[${index}]`, 'notFilterable', {
        en: `${name} is a time grain: choose the range with last or from and to instead.`,
        ar: `${name} وحدة زمنية: اختر النطاق بـ last أو from وto بدلًا من ذلك.`,
      });
    }
    byDimension.set(name, [...(byDimension.get(name) ?? []), entry.slice(colon + 1)]);
  });
  return [...byDimension].map(([dimension, values]) => ({ dimension, op: 'in', values }));
}
