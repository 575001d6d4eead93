import { dimensionColumn, measureColumn, seriesOf } from '../report-request.js';
import { batchesOf, type ReportTableStrategy } from './table-strategy.js';

/** A report without a table (the overview): its file is its series, a row per period. */
export const NO_TABLE: ReportTableStrategy = {
  columns: () => [[], []],
  sortable: () => [],
  queries: () => [],
  page: async () => ({ rows: [], more: false }),
  async file(request, { engine }) {
    const grain = request.resolved.grain;
    const series = await seriesOf(engine, request, request.resolved.range);
    const rows = series.map(({ period, ...figures }) => ({ [grain]: period, ...figures }));
    return {
      columns: [dimensionColumn(grain), ...request.def.series.map(measureColumn)],
      totalRows: rows.length,
      batches: batchesOf(rows),
    };
  },
};
