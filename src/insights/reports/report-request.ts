import { dimensionNamed } from '../definitions/dimensions.js';
import type { Filter } from '../definitions/filters.js';
import { emptyValueOf, measureNamed, type MeasureDef } from '../definitions/measures.js';
import { REPORT_COLUMNS, REPORT_DIMENSIONS, type ReportDef, type ReportTable } from '../definitions/reports.js';
import type { QueryEngine, QuerySpec } from '../query/query-engine.js';
import { periodsOf, type DateRange, type ResolvedRange } from '../query/ranges.js';
import type { ReportColumnDoc } from '../query/report-rows.js';
import type { StoreCalendar } from '../query/store-calendar.js';

export type Values = Record<string, number | string | null>;
export type ReportRow = Record<string, unknown>;

/** A report's request once checked: what every part of the answer is computed over. */
export interface ReportRequest<Table extends ReportTable = ReportTable> {
  def: ReportDef & { table: Table };
  calendar: StoreCalendar;
  resolved: ResolvedRange;
  filters: Filter[];
  sort?: { measure: string; descending: boolean };
  page: { limit: number; offset: number };
}

export function measuresNamed(names: string[]): MeasureDef[] {
  return names.map((name) => measureNamed(name)!);
}

export function querySpec(
  request: ReportRequest,
  range: DateRange,
  measures: MeasureDef[],
  dimensions: string[],
  sorted = false,
): QuerySpec {
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

/** One point per period of the range, zero-filled; measures not kept at the grain (customers by the hour) are left out. */
export async function seriesOf(engine: QueryEngine, request: ReportRequest, range: DateRange): Promise<Values[]> {
  const grain = request.resolved.grain;
  const measures = measuresNamed(request.def.series).filter((measure) => {
    try {
      engine.check(querySpec(request, range, [measure], [grain]));
      return true;
    } catch {
      return false;
    }
  });
  const periods = periodsOf(range, grain, request.calendar.weekStartsOn);
  if (measures.length === 0) return request.def.series.length === 0 ? [] : periods.map((period) => ({ period }));
  const { rows } = await engine.rows(querySpec(request, range, measures, [grain]));
  const byPeriod = new Map(rows.map((row) => [row[grain] as string, row]));
  return periods.map((period) => {
    const row = byPeriod.get(period);
    const point: Values = { period };
    for (const measure of measures) point[measure.name] = row ? row[measure.name] : emptyValueOf(measure);
    return point;
  });
}

export function dimensionColumn(name: string): ReportColumnDoc {
  const dimension = dimensionNamed(name);
  const label = dimension?.label ?? REPORT_DIMENSIONS[name].label;
  return { name, kind: 'dimension', type: dimension?.type === 'date' ? 'date' : 'text', label_en: label.en, label_ar: label.ar };
}

export function measureColumn(name: string): ReportColumnDoc {
  const column = measureNamed(name) ?? REPORT_COLUMNS.find((candidate) => candidate.name === name)!;
  return { name, kind: 'measure', type: column.type, label_en: column.label.en, label_ar: column.label.ar, direction: column.direction };
}
