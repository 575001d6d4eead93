import type { MessageKey } from '../i18n/messages.js';

/**
 * The built-in reports (contract section 8) as the dashboard shows them: the area whose view
 * permission and plan entitlement open each, and the chart that suits its shape: a line over time, bars
 * for a ranked dimension, a heat map of cohorts by month, or the table alone.
 */
export type ChartKind = 'line' | 'bar' | 'heatmap' | 'table';
export interface ReportEntry {
  name: string;
  area: 'sales' | 'products' | 'customers' | 'fulfilment' | 'finance' | 'behaviour';
  chart: ChartKind;
}

export const REPORTS: readonly ReportEntry[] = [
  { name: 'overview', area: 'sales', chart: 'line' },
  { name: 'products', area: 'products', chart: 'bar' },
  { name: 'variants', area: 'products', chart: 'bar' },
  { name: 'categories', area: 'products', chart: 'bar' },
  { name: 'brands', area: 'products', chart: 'bar' },
  { name: 'not_selling', area: 'products', chart: 'table' },
  { name: 'customers', area: 'customers', chart: 'bar' },
  { name: 'cohorts', area: 'customers', chart: 'heatmap' },
  { name: 'top_customers', area: 'customers', chart: 'bar' },
  { name: 'customer_groups', area: 'customers', chart: 'bar' },
  { name: 'fulfilment', area: 'fulfilment', chart: 'bar' },
  { name: 'late_orders', area: 'fulfilment', chart: 'line' },
  { name: 'payments', area: 'finance', chart: 'bar' },
  { name: 'tax', area: 'finance', chart: 'line' },
  { name: 'funnel', area: 'behaviour', chart: 'bar' },
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

export const reportTitle = (name: string) => `report.${name}` as MessageKey;
export const findReport = (name: string) => REPORTS.find((report) => report.name === name);
