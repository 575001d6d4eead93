import { TIME_GRAINS, DIMENSIONS, isTimeGrain, type DimensionDef } from './dimensions.js';
import type { Direction } from './directions.js';
import { MEASURES, type MeasureDef } from './measures.js';
import { REPORT_COLUMNS, REPORT_NAMES, REPORTS, type ReportName } from './reports.js';
import { SOURCES } from './sources.js';
import { FILTER_OPERATORS } from './filters.js';
import { requiredPlan, type InsightsArea, type StorePlan } from '../../common/permissions.js';

/** An entry of `GET /measures` or `GET /dimensions` (contract section 8). */
export interface ReferenceEntry {
  name: string;
  area: string | null;
  type: string;
  label_en: string;
  label_ar: string;
  description_en: string;
  description_ar: string;
  /** Measures: the dimensions it can be split by. Dimensions: the measures it splits. */
  dimensions?: string[];
  measures?: string[];
  /** Measures: whether a rise is good news. */
  direction?: Direction;
  /** Measures: whether the builder takes it (report columns are read in their reports only). */
  builder?: boolean;
  reports?: string[];
  /** Dimensions: filterable ones take `filter[]` and the builder's filters, with these operators. */
  filterable?: boolean;
  operators?: string[];
}

/**
 * The dimensions a measure can be split by: those of each source that has it, from its rollups or
 * its records, and the time grains its rollups keep (records keep every one).
 */
export function dimensionsOf(measure: MeasureDef): string[] {
  const names = new Set<string>();
  for (const source of SOURCES) {
    if (!measure.in[source.name]) continue;
    const records = source.records && !source.records.without?.includes(measure.name) ? source.records : undefined;
    for (const name of Object.keys({ ...source.dimensions, ...records?.dimensions })) names.add(name);
    if (!source.timed) continue;
    for (const grain of TIME_GRAINS) {
      if (grain !== 'hour' || records || source.tables.some((table) => table.granularity === 'hour')) names.add(grain);
    }
  }
  return DIMENSIONS.map((dimension) => dimension.name).filter((name) => names.has(name));
}

function reportsShowing(name: string): string[] {
  return Object.values(REPORTS)
    .filter(
      (report) =>
        report.totals.includes(name) ||
        report.series.includes(name) ||
        (report.table.kind === 'split' && report.table.measures.includes(name)),
    )
    .map((report) => report.name);
}

export function measureReference(): ReferenceEntry[] {
  return [
    ...MEASURES.map((measure) => ({
      name: measure.name,
      area: measure.area,
      type: measure.type,
      direction: measure.direction,
      label_en: measure.label.en,
      label_ar: measure.label.ar,
      description_en: measure.description.en,
      description_ar: measure.description.ar,
      dimensions: dimensionsOf(measure),
      builder: true,
      reports: reportsShowing(measure.name),
    })),
    ...REPORT_COLUMNS.map((column) => ({
      name: column.name,
      area: REPORTS[column.reports[0]].area,
      type: column.type,
      direction: column.direction,
      label_en: column.label.en,
      label_ar: column.label.ar,
      description_en: column.description.en,
      description_ar: column.description.ar,
      dimensions: [],
      builder: false,
      reports: column.reports,
    })),
  ];
}

/** The filter operators a dimension takes: text ones by value, numbers and dates also by order. */
export function operatorsOf(dimension: DimensionDef): string[] {
  if (!dimension.filterable) return [];
  if (dimension.type === 'text') return FILTER_OPERATORS.filter((op) => !['gt', 'gte', 'lt', 'lte', 'between'].includes(op));
  return FILTER_OPERATORS.filter((op) => op !== 'contains');
}

export function dimensionReference(): ReferenceEntry[] {
  return DIMENSIONS.map((dimension) => ({
    name: dimension.name,
    area: dimension.area,
    type: dimension.type,
    label_en: dimension.label.en,
    label_ar: dimension.label.ar,
    description_en: dimension.description.en,
    description_ar: dimension.description.ar,
    measures: MEASURES.filter((measure) => dimensionsOf(measure).includes(dimension.name)).map((measure) => measure.name),
    filterable: dimension.filterable && !isTimeGrain(dimension.name),
    operators: operatorsOf(dimension),
  }));
}

/** An entry of `GET /reports`: a built-in report, the area whose view permission reads it and the plan that first has that area. */
export interface ReportEntry {
  name: ReportName;
  area: InsightsArea;
  plan: StorePlan;
}

export function reportReference(): ReportEntry[] {
  return REPORT_NAMES.map((name) => ({ name, area: REPORTS[name].area, plan: requiredPlan(`area:${REPORTS[name].area}`) }));
}
