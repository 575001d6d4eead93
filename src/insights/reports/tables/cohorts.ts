import type { Row } from '../../query/query-engine.js';
import { cohortRanges, monthsBetween } from '../../query/ranges.js';
import { measuresNamed, querySpec, type ReportRequest } from '../report-request.js';
import { wholeTableFile, type ReportTableStrategy, type TableContext, type TablePage } from './table-strategy.js';

const COHORT_MEASURES = ['cohort_customers', 'retention_rate', 'cohort_orders', 'cohort_net_sales'];

const cohortQuery = (request: ReportRequest) =>
  querySpec(request, request.resolved.range, measuresNamed(COHORT_MEASURES), ['cohort', 'months_since']);

/** Every cohort of the range, each with every month from its first to the range's end, empty months as zeros. */
async function cohortGrid(request: ReportRequest, { engine }: TableContext): Promise<TablePage> {
  const { rows } = await engine.rows(cohortQuery(request));
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

/** First-order month × months since, as a triangle. */
export const COHORTS_TABLE: ReportTableStrategy = {
  columns: () => [['cohort', 'months_since'], COHORT_MEASURES],
  sortable: () => [],
  // The table is the whole triangle of the range unless a limit pages it: the heat map reads it at once.
  defaultLimit: Number.MAX_SAFE_INTEGER,
  // Cohorts are months: their report covers the whole months the range touches, and its answer's range says so.
  range: cohortRanges,
  queries: (request) => [cohortQuery(request)],
  page: cohortGrid,
  file: (request, context) => wholeTableFile(cohortGrid, request, context),
};
