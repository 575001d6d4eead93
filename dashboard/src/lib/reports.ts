import type { Formatter } from '../i18n/format.js';
import type { Lang, MessageKey } from '../i18n/messages.js';
import type { Row } from './types.js';

/**
 * The built-in reports (contract section 8) as the dashboard shows them: the area whose view
 * permission and plan entitlement open each, and the chart that suits its shape: a line over time, bars
 * for a ranked dimension, a heat map of cohorts by month, a funnel of steps, or the table alone.
 */
export type ChartKind = 'line' | 'bar' | 'heatmap' | 'funnel' | 'table';
export interface ReportEntry {
  name: string;
  area: 'sales' | 'products' | 'customers' | 'fulfilment' | 'finance' | 'behaviour';
  chart: ChartKind;
  /** The measures its table sorts by, where not all of them (the service refuses the others). */
  sortable?: readonly string[];
}

export const REPORTS: readonly ReportEntry[] = [
  { name: 'overview', area: 'sales', chart: 'line' },
  { name: 'products', area: 'products', chart: 'bar' },
  { name: 'variants', area: 'products', chart: 'bar' },
  { name: 'categories', area: 'products', chart: 'bar' },
  { name: 'brands', area: 'products', chart: 'bar' },
  { name: 'not_selling', area: 'products', chart: 'table', sortable: ['days_since_last_sale', 'stock'] },
  { name: 'customers', area: 'customers', chart: 'bar' },
  { name: 'cohorts', area: 'customers', chart: 'heatmap', sortable: [] },
  { name: 'top_customers', area: 'customers', chart: 'bar' },
  { name: 'customer_groups', area: 'customers', chart: 'bar' },
  { name: 'fulfilment', area: 'fulfilment', chart: 'bar' },
  { name: 'late_orders', area: 'fulfilment', chart: 'line', sortable: ['late_by'] },
  { name: 'payments', area: 'finance', chart: 'bar' },
  { name: 'tax', area: 'finance', chart: 'line' },
  { name: 'funnel', area: 'behaviour', chart: 'funnel', sortable: [] },
  { name: 'searches', area: 'behaviour', chart: 'bar' },
];

/** Which plan first has an area (contract section 7), for the upgrade hint in the navigation. */
export const AREA_PLAN: Record<ReportEntry['area'], string> = {
  sales: 'basic',
  products: 'basic',
  customers: 'growth',
  fulfilment: 'growth',
  finance: 'growth',
  behaviour: 'pro',
};

/**
 * Whether a report's page shows figures over the range that a compared range and a grain change (its line
 * or ranked bars, its totals): not a heat map of cohorts by month, the funnel's steps or the list of
 * products not selling, each a shape of its own, where neither is offered.
 */
export const showsOverTime = (entry: ReportEntry) => entry.chart === 'line' || entry.chart === 'bar';

export const reportTitle = (name: string) => `report.${name}` as MessageKey;
export const findReport = (name: string) => REPORTS.find((report) => report.name === name);

/** The time grains a range is split by (`grain`), which the builder also takes as a dimension. */
export const TIME_GRAINS = ['hour', 'day', 'week', 'month', 'quarter', 'year'];

/**
 * The chart of an answer: a built-in report's own (a saved one's too); a builder query's a line over time
 * when it is split by a time grain alone (or not at all), else bars of its first dimension.
 */
export function chartKindOf(report: string, dimensions: string[]): ChartKind {
  const builtIn = findReport(report);
  if (builtIn) return builtIn.chart;
  return dimensions.length === 0 || (dimensions.length === 1 && TIME_GRAINS.includes(dimensions[0])) ? 'line' : 'bar';
}

/** Dimensions whose values are months, given as their first day. */
const MONTHS = new Set(['month', 'cohort']);

/**
 * A row's value of a column as the page names it: the API's name in the page's language, but a month
 * named as one ("Nov 2025", not its first day) and a tax rate (basis points) as a percentage written in the
 * member's digits.
 */
export function valueText(row: Row, column: { name: string; type: string }, lang: Lang, fmt: Formatter): string {
  const value = row[column.name];
  if (MONTHS.has(column.name) && typeof value === 'string') return fmt.month(value);
  if (column.name === 'tax_rate' && /^\d+$/.test(String(value))) return fmt.percent(Number(value) / 10_000);
  return row.labels?.[column.name]?.[lang] ?? fmt.value(value, column.type);
}
