import type { Kysely } from 'kysely';
import type { TimeGrain } from '../../definitions/dimensions.js';
import type { ReportTable } from '../../definitions/reports.js';
import type { DimensionValues } from '../../query/dimension-values.js';
import type { QueryEngine, QuerySpec } from '../../query/query-engine.js';
import type { Compare, ResolvedRange } from '../../query/ranges.js';
import { EXPORT_BATCH_ROWS, type ReportColumnDoc } from '../../query/report-rows.js';
import type { ReportRequest, ReportRow, Values } from '../report-request.js';

/** What a table reads with. */
export interface TableContext {
  /** The records a table lists are read where reports read (ReportReads). */
  db: Kysely<unknown>;
  engine: QueryEngine;
  values: DimensionValues;
}

/** A page of a table's rows, and the totals of a table that lists records. */
export interface TablePage {
  rows: ReportRow[];
  more: boolean;
  totals?: Values;
}

/** A table whole, for a file: its rows a batch at a time, and its columns when they are not the table's own. */
export interface TableFile {
  columns?: ReportColumnDoc[];
  totalRows: number;
  batches: AsyncIterable<ReportRow[]>;
}

/**
 * One kind of report table (`table.kind` of a report's definition): its columns, how it sorts and
 * filters, the queries it runs, and its rows, a page at a time or whole for a file.
 */
export interface ReportTableStrategy<Table extends ReportTable = ReportTable> {
  /** The dimensions and then the measures of its rows. */
  columns(table: Table, grain: TimeGrain): [dimensions: string[], measures: string[]];
  /** Totals it adds to the report's, beside its own columns. */
  readonly totals?: string[];
  /** The measures its rows can be sorted by. */
  sortable(table: Table): string[];
  /** Its order when the request names none. */
  defaultSort?(table: Table): ReportRequest['sort'];
  /** Its page size when the request names none. */
  readonly defaultLimit?: number;
  /** The range it covers, for the range asked. */
  range?(asked: ResolvedRange, compare: Compare, today: string): ResolvedRange;
  /** For a table that lists records: the filters it takes, each with the column of the records it compares. */
  readonly recordFilters?: Record<string, string>;
  /** The queries of the query engine it runs (none for a table that lists records). */
  queries(request: ReportRequest<Table>): QuerySpec[];
  page(request: ReportRequest<Table>, context: TableContext): Promise<TablePage>;
  file(request: ReportRequest<Table>, context: TableContext): Promise<TableFile>;
}

/** A table's page, read for a request. */
type ReadPage = (request: ReportRequest, context: TableContext) => Promise<TablePage>;

/** Rows already in memory, as one batch. */
export async function* batchesOf<T>(rows: T[]): AsyncGenerator<T[]> {
  if (rows.length > 0) yield rows;
}

/** A table of a few hundred rows at most (cohorts, customer groups, the funnel): one batch. */
export async function wholeTableFile(read: ReadPage, request: ReportRequest, context: TableContext): Promise<TableFile> {
  const { rows } = await read({ ...request, page: { offset: 0, limit: Number.MAX_SAFE_INTEGER } }, context);
  return { totalRows: rows.length, batches: batchesOf(rows) };
}

/** A table that lists records, for a file: its first page of a batch's rows, and the batches read from it on. */
export async function pagedTableFile(
  read: ReadPage,
  request: ReportRequest,
  context: TableContext,
): Promise<{ first: TablePage; batches: AsyncIterable<ReportRow[]> }> {
  const batched = { ...request, page: { offset: 0, limit: EXPORT_BATCH_ROWS } };
  const first = await read(batched, context);
  return { first, batches: pages(read, batched, context, first) };
}

/** A table read page after page, from its first one. */
async function* pages(read: ReadPage, request: ReportRequest, context: TableContext, first: TablePage): AsyncGenerator<ReportRow[]> {
  let page = first;
  for (let offset = 0; ;) {
    if (page.rows.length > 0) yield page.rows;
    if (!page.more) return;
    offset += request.page.limit;
    page = await read({ ...request, page: { offset, limit: request.page.limit } }, context);
  }
}
