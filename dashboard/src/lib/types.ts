/** The API's shapes the dashboard reads (contract sections 7 and 8). */
export interface Me {
  staff: { id: string; email: string; name: string; role: string } | null;
  support: { agent: string; reason: string; expiresAt: string } | null;
  store: { id: string; name: string; plan: string; timezone: string; currency: string };
  permissions: string[];
  entitlements: string[];
  readOnly: boolean;
}

export interface Status {
  dataAsOf: string | null;
  lagSeconds: number | null;
  timezone: string;
  currency: string;
}

export interface Column {
  name: string;
  kind: 'dimension' | 'measure';
  type: 'money' | 'count' | 'ratio' | 'duration' | 'text' | 'date';
  label_en: string;
  label_ar: string;
  /** A measure's: whether a rise is good news, bad news or neither (dimensions carry none). */
  direction?: Direction;
}

export type Direction = 'higher_is_better' | 'lower_is_better' | 'neutral';

export type Row = Record<string, unknown> & { labels?: Record<string, { en: string; ar: string }> };

export interface ReportResponse {
  report: string;
  range: { from: string; to: string; timezone: string; grain: string };
  compareRange: { from: string; to: string } | null;
  currency: string;
  columns: Column[];
  totals: Record<string, number | null>;
  compareTotals: Record<string, number | null> | null;
  series: ({ period: string } & Record<string, number | string | null>)[];
  compareSeries: ({ period: string } & Record<string, number | string | null>)[] | null;
  rows: Row[];
  nextCursor: string | null;
  dataAsOf: string | null;
  /** The dimensions the report can be filtered by. */
  filterable: string[];
}

/** Insights catalogue, builder, saved reports, exports, schedules and settings (contract section 8). */
export interface CatalogueItem {
  name: string;
  area: string | null;
  type: string;
  label_en: string;
  label_ar: string;
  description_en: string;
  description_ar: string;
  dimensions?: string[];
  builder?: boolean;
  filterable?: boolean;
  operators?: string[];
  /** A measure's: whether a rise is good news, bad news or neither. */
  direction?: Direction;
}

export interface DimensionValue {
  value: string;
  label_en: string;
  label_ar: string;
}

export interface BuilderFilter {
  dimension: string;
  op: string;
  values: string[];
}

export interface BuilderQuery {
  measures: string[];
  dimensions?: string[];
  filters?: BuilderFilter[];
  last?: number | 'all';
  from?: string;
  to?: string;
  compare?: string;
  sort?: string;
  limit?: number;
}

export type ReportDefinition = { report: string; params?: Record<string, unknown> } | { builder: BuilderQuery };

export interface SavedReport {
  id: string;
  name: string;
  definition: ReportDefinition;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface InsightsExport {
  id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  format: 'csv' | 'xlsx';
  progress: { rows: number; totalRows: number | null; percent: number | null };
  file: { name: string; bytes: number; contentType: string; expiresAt: string; expired?: boolean } | null;
  error?: { code: string; message_en: string; message_ar: string } | null;
  createdAt: string;
}

export interface Cadence {
  frequency: 'daily' | 'weekly' | 'monthly';
  time: string;
  weekday?: string;
  dayOfMonth?: number;
}

export interface Schedule {
  id: string;
  savedReportId: string;
  name: string;
  cadence: Cadence;
  format: 'csv' | 'xlsx';
  destination: { kind: 'email'; recipients: string[] } | { kind: 'connection'; connectionId: string; pathTemplate: string };
  /** A due time whose report has no rows is recorded as skipped, and nothing is sent. */
  skipEmpty: boolean;
  paused: boolean;
  nextRunAt: string | null;
  lastDelivery: Delivery | null;
}

export interface Delivery {
  id: string;
  dueAt: string;
  /** `manual`: asked for with Deliver now, outside the cadence. */
  trigger: 'schedule' | 'manual';
  status: 'queued' | 'running' | 'delivered' | 'failed' | 'skipped';
  attempts: number;
  rows: number | null;
  bytes: number | null;
  /** The recipients mailed, or the connection's name and the file written (`Drop/sales-20260105.csv`). */
  sentTo: string[];
  error?: { code: string; message_en: string; message_ar: string } | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface InsightsSettings {
  timezone: string;
  currency: string;
  weekStartsOn: 'saturday' | 'sunday' | 'monday';
  language: 'en' | 'ar';
  excludeTestOrders: boolean;
  lateAfterHours: number | null;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
