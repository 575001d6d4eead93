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
}

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
}
