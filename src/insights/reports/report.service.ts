import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { AdminPrincipal } from '../../auth/access/principal.js';
import type { Bilingual } from '../../common/bilingual.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { decodeCursor, encodeCursor } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/list-query.dto.js';
import { dimensionNamed, type DimensionDef, type TimeGrain } from '../definitions/dimensions.js';
import type { Filter } from '../definitions/filters.js';
import { emptyValueOf, measureNamed, type MeasureDef } from '../definitions/measures.js';
import {
  CUSTOMER_ROW,
  FULFILMENT_STATUS_LABELS,
  REPORT_COLUMNS,
  REPORT_DIMENSIONS,
  REPORTS,
  type ReportDef,
  type ReportName,
} from '../definitions/reports.js';
import { readableDimensions, requireAreas } from '../query/area-access.js';
import { DimensionValues } from '../query/dimension-values.js';
import { FreshnessService } from '../query/freshness.js';
import { QueryEngine, type QuerySpec, type Row } from '../query/query-engine.js';
import {
  addDays,
  cohortRanges,
  monthsBetween,
  periodsOf,
  resolveRange,
  type Compare,
  type DateRange,
  type ResolvedRange,
} from '../query/ranges.js';
import { EXPORT_BATCH_ROWS, type ReportColumnDoc, type ReportRows } from '../query/report-rows.js';
import { StoreCalendars, type StoreCalendar } from '../query/store-calendar.js';
import { COUNTED_ORDERS } from '../rollups/counted-orders.js';

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

type Values = Record<string, number | string | null>;
type ReportRow = Record<string, unknown>;

export interface ReportResponse {
  report: ReportName;
  range: DateRange & { timezone: string; grain: TimeGrain };
  compareRange: (DateRange & { timezone: string; grain: TimeGrain }) | null;
  currency: string;
  columns: ReportColumnDoc[];
  /** The dimensions the report can be filtered by, beside the filters it has. */
  filterable: string[];
  totals: Values;
  compareTotals: Values | null;
  series: Values[];
  compareSeries: Values[] | null;
  /** Dimension values and measures, with `labels` naming the dimensions' values in both languages. */
  rows: ReportRow[];
  nextCursor: string | null;
  dataAsOf: string;
}

/** A report's request once checked: what every part of the answer is computed over. */
interface Request {
  def: ReportDef;
  calendar: StoreCalendar;
  resolved: ResolvedRange;
  filters: Filter[];
  sort?: { measure: string; descending: boolean };
  page: { limit: number; offset: number };
}

/** The steps of the funnel, in order, as rows of the funnel report. */
const FUNNEL_STEPS: [step: string, measure: string, label: Bilingual][] = [
  ['sessions', 'sessions', { en: 'Sessions', ar: 'الجلسات' }],
  ['product_viewed', 'sessions_with_product_view', { en: 'Viewed a product', ar: 'شاهدوا منتجًا' }],
  ['added_to_cart', 'sessions_with_cart_addition', { en: 'Added to cart', ar: 'أضافوا إلى السلة' }],
  ['reached_checkout', 'sessions_reaching_checkout', { en: 'Reached checkout', ar: 'وصلوا إلى الدفع' }],
  ['ordered', 'sessions_with_order', { en: 'Ordered', ar: 'قدّموا طلبًا' }],
];

/** The groups of the customer_groups report: each a value of one customer dimension. */
const CUSTOMER_GROUPS: [group: string, dimension: string, value: string, label: Bilingual][] = [
  ['new', 'customer_type', 'new', { en: 'New customers', ar: 'العملاء الجدد' }],
  ['returning', 'customer_type', 'returning', { en: 'Returning customers', ar: 'العملاء العائدون' }],
  ['registered', 'customer_kind', 'registered', { en: 'Registered shoppers', ar: 'المتسوقون المسجّلون' }],
  ['guest', 'customer_kind', 'guest', { en: 'Guests', ar: 'الضيوف' }],
  ['arabic', 'locale', 'ar', { en: 'Shopping in Arabic', ar: 'يتسوقون بالعربية' }],
  ['english', 'locale', 'en', { en: 'Shopping in English', ar: 'يتسوقون بالإنجليزية' }],
];

const COHORT_MEASURES = ['cohort_customers', 'retention_rate', 'cohort_orders', 'cohort_net_sales'];

/** The filters of the tables that list records, and the column of the records each compares. */
const NOT_SELLING_FILTERS: Record<string, string> = { product: 'id', category: 'category_id', brand: 'brand_id' };
const LATE_ORDER_FILTERS: Record<string, string> = { fulfilment_type: 'fulfilment_type', shipping_method: 'shipping_method_code' };
const RECORD_FILTERS: Partial<Record<ReportDef['table']['kind'], Record<string, string>>> = {
  not_selling: NOT_SELLING_FILTERS,
  late_orders: LATE_ORDER_FILTERS,
};

const NEVER_SOLD: Bilingual = { en: 'Never sold', ar: 'لم يُبع قط' };

/**
 * The built-in reports: headline totals (and those of the compare range), a zero-filled time series
 * per grain period, and the report's table, sorted and paginated. Every figure comes from the query
 * engine over the rollups; the late-orders and not-selling tables list records (orders, products)
 * that the rollups point at.
 */
@Injectable()
export class ReportService {
  constructor(
    private readonly em: EntityManager,
    private readonly engine: QueryEngine,
    private readonly calendars: StoreCalendars,
    private readonly values: DimensionValues,
    private readonly freshness: FreshnessService,
  ) {}

  async run(name: ReportName, params: ReportParams, admin: AdminPrincipal): Promise<ReportResponse> {
    const request = await this.check(REPORTS[name], params, admin);
    const { def, calendar, resolved } = request;
    const [totals, compareTotals, series, compareSeries, table, freshness] = await Promise.all([
      this.totals(request, resolved.range),
      resolved.compare ? this.totals(request, resolved.compare) : null,
      this.series(request, resolved.range),
      resolved.compare ? this.series(request, resolved.compare) : null,
      this.tablePage(request),
      this.freshness.of(calendar.storeId),
    ]);
    const rangeDoc = (range: DateRange) => ({ ...range, timezone: calendar.timezone, grain: resolved.grain });
    return {
      report: name,
      range: rangeDoc(resolved.range),
      compareRange: resolved.compare ? rangeDoc(resolved.compare) : null,
      currency: calendar.currency,
      columns: this.columns(def, resolved.grain),
      filterable: readableDimensions(admin, this.filterable(request)),
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
    const file = { report: name, range: resolved.range, currency: calendar.currency };
    const table = def.table;
    const page = { offset: 0, limit: EXPORT_BATCH_ROWS };
    switch (table.kind) {
      case 'none': {
        const grain = resolved.grain;
        const series = await this.series(request, resolved.range);
        const rows = series.map(({ period, ...figures }) => ({ [grain]: period, ...figures }));
        return {
          ...file,
          columns: [dimensionColumn(grain), ...def.series.map(measureColumn)],
          totalRows: rows.length,
          batches: batchesOf(rows),
        };
      }
      case 'split': {
        const dimensions = [...(table.grain ? [resolved.grain] : []), ...table.dimensions];
        const spec = this.spec(request, resolved.range, this.measures(table.measures), dimensions, true);
        return {
          ...file,
          columns: this.tableColumns(def, resolved.grain),
          totalRows: await this.engine.count(spec),
          batches: this.values.labelBatches(calendar.storeId, this.engine.stream(spec, EXPORT_BATCH_ROWS), dimensions),
        };
      }
      case 'not_selling':
      case 'late_orders': {
        const first = await this.tablePage({ ...request, page });
        const totalRows = table.kind === 'not_selling' ? Number(first.totals!.products_not_selling) : await this.lateOrderCount(request);
        return { ...file, columns: this.tableColumns(def, resolved.grain), totalRows, batches: this.pages({ ...request, page }, first) };
      }
      default: {
        // Cohorts, customer groups and the funnel are a few hundred rows at most: one batch.
        const { rows } = await this.tablePage({ ...request, page: { offset: 0, limit: Number.MAX_SAFE_INTEGER } });
        return { ...file, columns: this.tableColumns(def, resolved.grain), totalRows: rows.length, batches: batchesOf(rows) };
      }
    }
  }

  /** A table read page after page, from its first one. */
  private async *pages(request: Request, first: { rows: ReportRow[]; more: boolean }): AsyncGenerator<ReportRow[]> {
    let page = first;
    for (let offset = 0; ;) {
      if (page.rows.length > 0) yield page.rows;
      if (!page.more) return;
      offset += request.page.limit;
      page = await this.tablePage({ ...request, page: { offset, limit: request.page.limit } });
    }
  }

  // --- the request ---

  private async check(def: ReportDef, params: ReportParams, admin: AdminPrincipal): Promise<Request> {
    const calendar = await this.calendars.of(admin.storeId);
    const asked = resolveRange(params, { today: calendar.today, firstOrderDay: calendar.firstOrderDay, entitlements: admin.entitlements });
    // Cohorts are months: their report covers the whole months the range touches, and its answer's range says so.
    const resolved = def.table.kind === 'cohorts' ? cohortRanges(asked, params.compare ?? 'none', calendar.today) : asked;
    const raw = params.filters ?? [];
    const filters = parseFilters(raw);
    const sort = this.sortOf(def, params.sort);
    const offset = params.cursor === undefined ? 0 : decodeCursor<[number]>(params.cursor, ['number'])[0];
    if (offset < 0) throw invalidField('cursor', 'invalidCursor', { en: 'This cursor is not valid here.', ar: 'هذا المؤشر غير صالح هنا.' });
    // The cohort table is the whole triangle of the range unless a limit pages it: the heat map reads it at once.
    const limit = params.limit ?? (def.table.kind === 'cohorts' ? Number.MAX_SAFE_INTEGER : DEFAULT_PAGE_SIZE);
    const unfiltered: Request = { def, calendar, resolved, filters: [], sort, page: { limit, offset } };
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
  private filterable(request: Request): string[] {
    const records = RECORD_FILTERS[request.def.table.kind];
    return this.engine.filterable(this.queries(request)).filter((name) => !records || name in records);
  }

  /** The queries of the report's totals and of its table (none for a table that lists records). */
  private queries(request: Request): QuerySpec[] {
    const { def, resolved } = request;
    const query = (measures: string[], dimensions: string[]) => this.spec(request, resolved.range, this.measures(measures), dimensions);
    const totals = def.totals.length > 0 ? [query(def.totals, [])] : [];
    const table = def.table;
    switch (table.kind) {
      case 'split':
        return [...totals, query(table.measures, [...(table.grain ? [resolved.grain] : []), ...table.dimensions])];
      case 'cohorts':
        return [...totals, query(COHORT_MEASURES, ['cohort', 'months_since'])];
      case 'customer_groups':
        return [
          ...totals,
          ...[...new Set(CUSTOMER_GROUPS.map(([, dimension]) => dimension))].map((dimension) => query(CUSTOMER_ROW, [dimension])),
        ];
      case 'funnel':
        return [
          ...totals,
          query(
            FUNNEL_STEPS.map(([, measure]) => measure),
            [],
          ),
        ];
      default:
        return totals;
    }
  }

  private sortOf(def: ReportDef, sort: string | undefined): Request['sort'] {
    if (sort === undefined) {
      return def.table.kind === 'split' && def.table.sort
        ? { measure: def.table.sort, descending: def.table.descending ?? false }
        : undefined;
    }
    const descending = sort.startsWith('-');
    const measure = descending ? sort.slice(1) : sort;
    const sortable = this.sortable(def);
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

  private sortable(def: ReportDef): string[] {
    switch (def.table.kind) {
      case 'split':
        return def.table.measures;
      case 'not_selling':
        return ['days_since_last_sale', 'stock'];
      case 'late_orders':
        return ['late_by'];
      case 'customer_groups':
        return CUSTOMER_ROW;
      default:
        return [];
    }
  }

  private measures(names: string[]): MeasureDef[] {
    return names.map((name) => measureNamed(name)!);
  }

  private spec(request: Request, range: DateRange, measures: MeasureDef[], dimensions: string[], sorted = false): QuerySpec {
    return {
      storeId: request.calendar.storeId,
      measures,
      dimensions,
      filters: request.filters,
      range,
      weekStartsOn: request.calendar.weekStartsOn,
      sort: sorted ? request.sort : undefined,
    };
  }

  // --- totals and series ---

  private async totals(request: Request, range: DateRange): Promise<Values> {
    if (request.def.totals.length === 0) return {};
    const { rows } = await this.engine.rows(this.spec(request, range, this.measures(request.def.totals), []));
    return rows[0] ?? {};
  }

  /** One point per period of the range, zero-filled; measures not kept at the grain (customers by the hour) are left out. */
  private async series(request: Request, range: DateRange): Promise<Values[]> {
    const grain = request.resolved.grain;
    const measures = this.measures(request.def.series).filter((measure) => {
      try {
        this.engine.check(this.spec(request, range, [measure], [grain]));
        return true;
      } catch {
        return false;
      }
    });
    const periods = periodsOf(range, grain, request.calendar.weekStartsOn);
    if (measures.length === 0) return request.def.series.length === 0 ? [] : periods.map((period) => ({ period }));
    const { rows } = await this.engine.rows(this.spec(request, range, measures, [grain]));
    const byPeriod = new Map(rows.map((row) => [row[grain] as string, row]));
    return periods.map((period) => {
      const row = byPeriod.get(period);
      const point: Values = { period };
      for (const measure of measures) point[measure.name] = row ? row[measure.name] : emptyValueOf(measure);
      return point;
    });
  }

  // --- tables ---

  private async tablePage(request: Request): Promise<{ rows: ReportRow[]; more: boolean; totals?: Values }> {
    const table = request.def.table;
    switch (table.kind) {
      case 'none':
        return { rows: [], more: false };
      case 'split': {
        const dimensions = [...(table.grain ? [request.resolved.grain] : []), ...table.dimensions];
        const spec = this.spec(request, request.resolved.range, this.measures(table.measures), dimensions, true);
        const bound = dimensions.join() === 'customer' && request.filters.length === 0 ? topCustomerBound(request.sort) : undefined;
        const { rows, more } = bound ? await this.topCustomers(spec, bound, request.page) : await this.engine.rows(spec, request.page);
        return { rows: await this.values.labelRows(request.calendar.storeId, rows, dimensions), more };
      }
      case 'cohorts':
        return this.cohorts(request);
      case 'customer_groups':
        return this.customerGroups(request);
      case 'funnel':
        return this.funnel(request);
      case 'not_selling':
        return this.notSelling(request);
      case 'late_orders':
        return this.lateOrders(request);
    }
  }

  /**
   * The top customers of a range without adding up every customer's range: customers are taken in
   * the order of what they have bought of all time (a bound of what they bought in any range, kept by
   * the rollups), a batch at a time, and their ranges added up, until no customer left could make
   * the page. Answers exactly what the full aggregation would, in its order.
   */
  private async topCustomers(
    spec: QuerySpec,
    bound: 'orders' | 'gross_sales',
    page: Request['page'],
  ): Promise<{ rows: Row[]; more: boolean }> {
    const needed = page.offset + page.limit + 1;
    const measure = spec.sort!.measure;
    const db = this.em.getKysely() as Kysely<unknown>;
    let best: Row[] = [];
    // Batches start at a few times the page and grow: the best customers of a range are mostly among the best of all time.
    for (let scanned = 0, batch = Math.max(4 * needed, 100); ; batch *= 4) {
      const { rows: candidates } = await sql<{ customer_id: string; bound: string }>`
        select customer_id::text, ${sql.ref(bound)} as bound from insights_customer_totals
        where store_id = ${spec.storeId}::uuid order by ${sql.ref(bound)} desc, customer_id
        limit ${batch} offset ${scanned}`.execute(db);
      if (candidates.length === 0) break;
      scanned += candidates.length;
      const filters: Filter[] = [{ dimension: 'customer', op: 'in', values: candidates.map((candidate) => candidate.customer_id) }];
      const { rows } = await this.engine.rows({ ...spec, filters });
      best = [...best, ...rows].sort((a, b) => compareRows(a, b, measure)).slice(0, needed);
      const unseenAtMost = Number(candidates[candidates.length - 1].bound);
      if (best.length >= needed && Number(best[needed - 1][measure]) > unseenAtMost) break;
    }
    return { rows: best.slice(page.offset, page.offset + page.limit), more: best.length > page.offset + page.limit };
  }

  /** Every cohort of the range, each with every month from its first to the range's end, empty months as zeros. */
  private async cohorts(request: Request): Promise<{ rows: ReportRow[]; more: boolean }> {
    const { rows } = await this.engine.rows(
      this.spec(request, request.resolved.range, this.measures(COHORT_MEASURES), ['cohort', 'months_since']),
    );
    const found = new Map(rows.map((row) => [`${row.cohort}/${row.months_since}`, row]));
    const cohorts = [...new Set(rows.map((row) => String(row.cohort)))].sort();
    const lastMonth = request.resolved.range.to.slice(0, 7);
    const grid: Row[] = cohorts.flatMap((cohort) => {
      const months = monthsBetween(cohort.slice(0, 7), lastMonth);
      return Array.from({ length: months + 1 }, (_, since) => {
        const row = found.get(`${cohort}/${since}`);
        const empty: Row = { cohort, months_since: since, cohort_customers: 0, retention_rate: 0, cohort_orders: 0, cohort_net_sales: 0 };
        return row ? { ...row, months_since: since } : empty;
      });
    });
    for (const row of grid) row.months_since = Number(row.months_since);
    const { offset, limit } = request.page;
    return { rows: grid.slice(offset, offset + limit), more: grid.length > offset + limit };
  }

  private async customerGroups(request: Request): Promise<{ rows: ReportRow[]; more: boolean }> {
    const measures = this.measures(CUSTOMER_ROW);
    const byDimension = new Map<string, Map<string, Row>>();
    for (const dimension of new Set(CUSTOMER_GROUPS.map(([, name]) => name))) {
      const { rows } = await this.engine.rows(this.spec(request, request.resolved.range, measures, [dimension]));
      byDimension.set(dimension, new Map(rows.map((row) => [String(row[dimension]), row])));
    }
    const rows = CUSTOMER_GROUPS.map(([group, dimension, value, label]) => {
      const row = byDimension.get(dimension)!.get(value);
      const figures = Object.fromEntries(measures.map((measure) => [measure.name, row ? row[measure.name] : emptyValueOf(measure)]));
      return { group, ...figures, labels: { group: label } };
    });
    if (request.sort) {
      const { measure, descending } = request.sort;
      rows.sort((a, b) => compareValues(a[measure as keyof typeof a], b[measure as keyof typeof b], descending));
    }
    return { rows, more: false };
  }

  private async funnel(request: Request): Promise<{ rows: ReportRow[]; more: boolean }> {
    const { rows } = await this.engine.rows(
      this.spec(request, request.resolved.range, this.measures(FUNNEL_STEPS.map(([, measure]) => measure)), []),
    );
    const totals = rows[0] ?? {};
    const started = Number(totals.sessions ?? 0);
    let previous = started;
    return {
      rows: FUNNEL_STEPS.map(([step, measure, label]) => {
        const sessions = Number(totals[measure] ?? 0);
        const row = {
          step,
          step_sessions: sessions,
          step_conversion: previous > 0 ? sessions / previous : null,
          overall_conversion: started > 0 ? sessions / started : null,
          labels: { step: label },
        };
        previous = sessions;
        return row;
      }),
      more: false,
    };
  }

  /** Active products with stock that sold nothing in the range, longest unsold first. */
  private async notSelling(request: Request): Promise<{ rows: ReportRow[]; more: boolean; totals: Values }> {
    const { storeId, today } = request.calendar;
    const { from, to } = request.resolved.range;
    const conditions = request.filters.map(
      (filter) => sql`p.${sql.ref(NOT_SELLING_FILTERS[filter.dimension])}::text = any(${filter.values}::text[])`,
    );
    // A product never sold has no days since a sale (null), rather than days since it went on sale.
    const candidates = sql`
      select p.id, p.name_en, p.name_ar, stock.units as stock, last.day as last_sold_on, ${today}::date - last.day as days_since_last_sale
      from products p
      cross join lateral (select coalesce(sum(v.stock), 0)::int as units from product_variants v where v.product_id = p.id) stock
      left join lateral (
        select max(r.day) as day from insights_products_daily r where r.store_id = p.store_id and r.product_id = p.id and r.units_sold > 0
      ) last on true
      where p.store_id = ${storeId} and p.status = 'active' and stock.units > 0
        and not exists (
          select 1 from insights_products_daily r
          where r.store_id = p.store_id and r.product_id = p.id and r.day between ${from}::date and ${to}::date and r.units_sold > 0)
        ${conditions.length > 0 ? sql`and ${sql.join(conditions, sql` and `)}` : sql``}`;
    const sort = request.sort ?? { measure: 'days_since_last_sale', descending: true };
    // Never sold counts as the longest unsold: first when the longest come first, last otherwise.
    const direction = sql.raw(sort.descending ? 'desc nulls first' : 'asc nulls last');
    const db = this.em.getKysely() as Kysely<unknown>;
    const [{ rows }, { rows: summary }] = await Promise.all([
      sql<{
        id: string;
        name_en: string;
        name_ar: string;
        stock: number;
        last_sold_on: string | null;
        days_since_last_sale: number | null;
      }>`
        select id::text, name_en, name_ar, stock, to_char(last_sold_on, 'YYYY-MM-DD') as last_sold_on, days_since_last_sale
        from (${candidates}) c order by ${sql.ref(sort.measure)} ${direction}, name_en, id
        limit ${request.page.limit + 1} offset ${request.page.offset}`.execute(db),
      sql<{
        products: string;
        stock: string;
      }>`select count(*) as products, coalesce(sum(stock), 0) as stock from (${candidates}) c`.execute(db),
    ]);
    return {
      rows: rows.slice(0, request.page.limit).map((row) => ({
        product: row.id,
        stock: row.stock,
        last_sold_on: row.last_sold_on,
        days_since_last_sale: row.days_since_last_sale,
        labels: { product: { en: row.name_en, ar: row.name_ar }, ...(row.last_sold_on === null ? { last_sold_on: NEVER_SOLD } : {}) },
      })),
      more: rows.length > request.page.limit,
      totals: { products_not_selling: Number(summary[0].products), stock: Number(summary[0].stock) },
    };
  }

  /** The orders of the late-orders report: promised within the range, of the filters' fulfilment types and methods. */
  private lateWithin(request: Request): RawBuilder<unknown> {
    const { storeId, timezone } = request.calendar;
    const { from, to } = request.resolved.range;
    const conditions = request.filters.map(
      (filter) => sql`coalesce(o.${sql.ref(LATE_ORDER_FILTERS[filter.dimension])}, '') = any(${filter.values}::text[])`,
    );
    return sql`o.store_id = ${storeId}
      and o.promised_by >= (${from}::date)::timestamp at time zone ${timezone}
      and o.promised_by < (${addDays(to, 1)}::date)::timestamp at time zone ${timezone}
      ${conditions.length > 0 ? sql`and ${sql.join(conditions, sql` and `)}` : sql``}`;
  }

  /** How many rows the late-orders table has: late and fulfilled, or open past the promise. */
  private async lateOrderCount(request: Request): Promise<number> {
    const { rows } = await sql<{ count: string }>`
      select count(*) as count from ${COUNTED_ORDERS} o
      where ${this.lateWithin(request)} and (${LATE_FULFILMENT} or ${OPEN_PAST_PROMISE})`.execute(this.em.getKysely() as Kysely<unknown>);
    return Number(rows[0].count);
  }

  /**
   * Orders promised within the range that were delivered (a pickup: made ready) after their promise
   * and the store's grace, or are still open past them, the latest first; `late_by` counts from the
   * promise. Read from the orders Insights counts through two small indexes: the late ones, and the
   * open ones.
   */
  private async lateOrders(request: Request): Promise<{ rows: ReportRow[]; more: boolean; totals: Values }> {
    const within = this.lateWithin(request);
    // Each kind read in order of lateness through its index, as far as the page goes, then the two merged.
    const needed = request.page.offset + request.page.limit + 1;
    const latestFirst = request.sort?.descending !== false;
    const fulfilledLate = sql`
      select o.id, o.number, o.placed_at, o.promised_by, ${FULFILLED_AT} as fulfilled_at, o.fulfilment_status
      from ${COUNTED_ORDERS} o
      where ${within} and ${LATE_FULFILMENT}
      order by ${FULFILLED_AT} - o.promised_by ${sql.raw(latestFirst ? 'desc' : 'asc')}, o.id
      limit ${needed}`;
    const openLate = sql`
      select o.id, o.number, o.placed_at, o.promised_by, null::timestamptz as fulfilled_at, o.fulfilment_status
      from ${COUNTED_ORDERS} o
      where ${within} and ${OPEN_PAST_PROMISE}
      order by o.promised_by ${sql.raw(latestFirst ? 'asc' : 'desc')}, o.id
      limit ${needed}`;
    const db = this.em.getKysely() as Kysely<unknown>;
    const [{ rows }, { rows: open }] = await Promise.all([
      sql<{
        id: string;
        number: string;
        placed_at: string;
        promised_by: string;
        fulfilled_at: string | null;
        status: string;
        late_by: number;
      }>`
        select l.id::text, l.number::text, iso_utc(l.placed_at) as placed_at, iso_utc(l.promised_by) as promised_by,
               iso_utc(l.fulfilled_at) as fulfilled_at, l.fulfilment_status as status,
               round(extract(epoch from coalesce(l.fulfilled_at, now()) - l.promised_by))::int as late_by
        from ((${fulfilledLate}) union all (${openLate})) l
        order by late_by ${sql.raw(latestFirst ? 'desc' : 'asc')}, l.id
        limit ${request.page.limit + 1} offset ${request.page.offset}`.execute(db),
      sql<{ count: string }>`select count(*) as count from ${COUNTED_ORDERS} o where ${within} and ${OPEN_PAST_PROMISE}`.execute(db),
    ]);
    return {
      rows: rows.slice(0, request.page.limit).map(({ id, number, ...row }) => ({
        order: id,
        ...row,
        labels: {
          order: { en: `#${number}`, ar: `#${number}` },
          ...(FULFILMENT_STATUS_LABELS[row.status] ? { status: FULFILMENT_STATUS_LABELS[row.status] } : {}),
        },
      })),
      more: rows.length > request.page.limit,
      totals: { open_past_promise: Number(open[0].count) },
    };
  }

  // --- columns ---

  /** The answer's columns: the table's, then the measures of its totals and series. */
  private columns(def: ReportDef, grain: TimeGrain): ReportColumnDoc[] {
    const table = this.tableColumns(def, grain);
    const extra = [...(TABLE_TOTALS[def.table.kind] ?? []), ...def.totals, ...def.series];
    const named = new Set(table.map((column) => column.name));
    return [...table, ...[...new Set(extra)].filter((name) => !named.has(name)).map(measureColumn)];
  }

  /** The columns of the table's rows, dimensions first. */
  private tableColumns(def: ReportDef, grain: TimeGrain): ReportColumnDoc[] {
    const table = def.table;
    const [dimensions, measures]: [string[], string[]] = (() => {
      switch (table.kind) {
        case 'none':
          return [[], []];
        case 'split':
          return [[...(table.grain ? [grain] : []), ...table.dimensions], table.measures];
        case 'cohorts':
          return [['cohort', 'months_since'], COHORT_MEASURES];
        case 'customer_groups':
          return [['group'], CUSTOMER_ROW];
        case 'funnel':
          return [['step'], ['step_sessions', 'step_conversion', 'overall_conversion']];
        case 'not_selling':
          return [['product'], ['stock', 'last_sold_on', 'days_since_last_sale']];
        case 'late_orders':
          return [['order'], ['placed_at', 'promised_by', 'fulfilled_at', 'status', 'late_by']];
      }
    })();
    return [...dimensions.map(dimensionColumn), ...measures.map(measureColumn)];
  }
}

/** Totals of the tables shaped by their report, beside the table's own columns. */
const TABLE_TOTALS: Partial<Record<ReportDef['table']['kind'], string[]>> = {
  not_selling: ['products_not_selling'],
  late_orders: ['open_past_promise'],
};

function dimensionColumn(name: string): ReportColumnDoc {
  const dimension = dimensionNamed(name);
  const label = dimension?.label ?? REPORT_DIMENSIONS[name].label;
  return { name, kind: 'dimension', type: dimension?.type === 'date' ? 'date' : 'text', label_en: label.en, label_ar: label.ar };
}

function measureColumn(name: string): ReportColumnDoc {
  const column = measureNamed(name) ?? REPORT_COLUMNS.find((candidate) => candidate.name === name)!;
  return { name, kind: 'measure', type: column.type, label_en: column.label.en, label_ar: column.label.ar, direction: column.direction };
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

/** Rows already in memory, as one batch. */
async function* batchesOf<T>(rows: T[]): AsyncGenerator<T[]> {
  if (rows.length > 0) yield rows;
}

/** When an order was delivered, or a pickup made ready. */
const FULFILLED_AT = sql`case o.fulfilment_type when 'delivery' then o.delivered_at else o.ready_at end`;
/**
 * Delivered (a pickup: made ready) after the promise and the store's grace (`late_after`). Its first
 * part, after the promise, is what the partial index orders_lateness_index holds: a superset, since
 * the grace is never negative, which keeps the index in use.
 */
const LATE_FULFILMENT = sql`(((o.fulfilment_type = 'delivery' and o.delivered_at > o.promised_by) or (o.fulfilment_type = 'pickup' and o.ready_at > o.promised_by))
  and (${FULFILLED_AT}) > o.late_after)`;
/**
 * Still open past the promise and the grace, not yet delivered (made ready): read through
 * orders_open_promised_by_index by `promised_by < now()`, a superset.
 */
const OPEN_PAST_PROMISE = sql`(o.status = 'open' and o.promised_by < now() and o.late_after < now()
  and case o.fulfilment_type when 'delivery' then o.delivered_at is null else o.ready_at is null end)`;

/**
 * The all-time figure that bounds a customer's figure in any range for this sort, largest first: what
 * they ordered (net sales and gross sales of a range are at most the gross sales of all time), or
 * how many orders. Other sorts add up every customer.
 */
function topCustomerBound(sort: Request['sort']): 'orders' | 'gross_sales' | undefined {
  if (!sort?.descending) return undefined;
  if (sort.measure === 'orders') return 'orders';
  return sort.measure === 'net_sales' || sort.measure === 'gross_sales' ? 'gross_sales' : undefined;
}

/** Largest first, then by customer as the query engine orders them. */
function compareRows(a: Row, b: Row, measure: string): number {
  const difference = Number(b[measure]) - Number(a[measure]);
  if (difference !== 0) return difference;
  return String(a.customer) < String(b.customer) ? -1 : String(a.customer) > String(b.customer) ? 1 : 0;
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

function compareValues(a: unknown, b: unknown, descending: boolean): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return (descending ? -1 : 1) * ((a as number) - (b as number));
}
