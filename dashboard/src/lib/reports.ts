import type { Formatter } from '../i18n/format.js';
import type { Lang, MessageKey } from '../i18n/messages.js';
import type { Row, Schema } from './types.js';

/** A built-in report's name, as `GET /admin/insights/reports` lists them with their areas and plans. */
export type ReportName = Schema<'ReportEntryDoc'>['name'];

/**
 * How the dashboard shows each built-in report: the chart that suits its shape (a line over time, bars for a
 * ranked dimension, a heat map of cohorts by month, a funnel of steps, or the table alone) and the measures
 * its table sorts by, where not all of them (the service refuses the others).
 */
export type ChartKind = 'line' | 'bar' | 'heatmap' | 'funnel' | 'table';
export interface ReportView {
  name: ReportName;
  chart: ChartKind;
}

const VIEWS: Record<ReportName, Omit<ReportView, 'name'>> = {
  overview: { chart: 'line' },
  products: { chart: 'bar' },
  variants: { chart: 'bar' },
  categories: { chart: 'bar' },
  brands: { chart: 'bar' },
  not_selling: { chart: 'table' },
  customers: { chart: 'bar' },
  cohorts: { chart: 'heatmap' },
  top_customers: { chart: 'bar' },
  customer_groups: { chart: 'bar' },
  fulfilment: { chart: 'bar' },
  late_orders: { chart: 'line' },
  payments: { chart: 'bar' },
  tax: { chart: 'line' },
  funnel: { chart: 'funnel' },
  searches: { chart: 'bar' },
};
export const REPORTS: readonly ReportView[] = Object.entries(VIEWS).map(([name, view]) => ({ name: name as ReportName, ...view }));

/**
 * Whether a report's page shows figures over the range that a compared range and a grain change (its line
 * or ranked bars, its totals): not a heat map of cohorts by month, the funnel's steps or the list of
 * products not selling, each a shape of its own, where neither is offered.
 */
export const showsOverTime = (view: ReportView) => view.chart === 'line' || view.chart === 'bar';

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
