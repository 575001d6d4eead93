import { sql, type Kysely } from 'kysely';
import type { TimeGrain } from '../../definitions/dimensions.js';
import type { Filter } from '../../definitions/filters.js';
import type { ReportTable } from '../../definitions/reports.js';
import type { QueryEngine, QuerySpec, Row } from '../../query/query-engine.js';
import { EXPORT_BATCH_ROWS } from '../../query/report-rows.js';
import { measuresNamed, querySpec, type ReportRequest } from '../report-request.js';
import type { ReportTableStrategy, TableContext, TablePage } from './table-strategy.js';

type SplitTable = Extract<ReportTable, { kind: 'split' }>;

/** The table's dimensions: the range's grain first when it has one. */
function dimensionsOf(table: SplitTable, grain: TimeGrain): string[] {
  return [...(table.grain ? [grain] : []), ...table.dimensions];
}

function tableQuery(request: ReportRequest<SplitTable>, sorted = false): QuerySpec {
  const { table } = request.def;
  return querySpec(request, request.resolved.range, measuresNamed(table.measures), dimensionsOf(table, request.resolved.grain), sorted);
}

async function splitPage(request: ReportRequest<SplitTable>, { db, engine, values }: TableContext): Promise<TablePage> {
  const spec = tableQuery(request, true);
  const dimensions = spec.dimensions;
  const bound = dimensions.join() === 'customer' && request.filters.length === 0 ? topCustomerBound(request.sort) : undefined;
  const { rows, more } = bound ? await topCustomers(db, engine, spec, bound, request.page) : await engine.rows(spec, request.page);
  return { rows: await values.labelRows(request.calendar.storeId, rows, dimensions), more };
}

/**
 * The top customers of a range without adding up every customer's range: customers are taken in
 * the order of what they have bought of all time (a bound of what they bought in any range, kept by
 * the rollups), a batch at a time, and their ranges added up, until no customer left could make
 * the page. Answers exactly what the full aggregation would, in its order.
 */
async function topCustomers(
  db: Kysely<unknown>,
  engine: QueryEngine,
  spec: QuerySpec,
  bound: 'orders' | 'gross_sales',
  page: ReportRequest['page'],
): Promise<{ rows: Row[]; more: boolean }> {
  const needed = page.offset + page.limit + 1;
  const measure = spec.sort!.measure;
  let best: Row[] = [];
  // Batches start at a few times the page and grow: the best customers of a range are mostly among the best of all time.
  for (let scanned = 0, batch = Math.max(4 * needed, 100); ; batch *= 4) {
    const { rows: candidates } = await sql<{ customer_id: string; bound: string }>`
      select customer_id::text, ${sql.ref(bound)} as bound from insights_customer_totals
      where store_id = ${spec.storeId}::uuid order by ${sql.ref(bound)} desc, customer_id
      limit ${batch} offset ${scanned}`.execute(db);
    if (candidates.length === 0) break;
    scanned += candidates.length;
    const filters: Filter[] = [{ dimension: 'customer', op: 'in', values: candidates.map((candidate) => candidate.customer_id) }];
    const { rows } = await engine.rows({ ...spec, filters });
    best = [...best, ...rows].sort((a, b) => compareRows(a, b, measure)).slice(0, needed);
    const unseenAtMost = Number(candidates[candidates.length - 1].bound);
    if (best.length >= needed && Number(best[needed - 1][measure]) > unseenAtMost) break;
  }
  return { rows: best.slice(page.offset, page.offset + page.limit), more: best.length > page.offset + page.limit };
}

/**
 * The all-time figure that bounds a customer's figure in any range for this sort, largest first: what
 * they ordered (net sales and gross sales of a range are at most the gross sales of all time), or
 * how many orders. Other sorts add up every customer.
 */
function topCustomerBound(sort: ReportRequest['sort']): 'orders' | 'gross_sales' | undefined {
  if (!sort?.descending) return undefined;
  if (sort.measure === 'orders') return 'orders';
  return sort.measure === 'net_sales' || sort.measure === 'gross_sales' ? 'gross_sales' : undefined;
}

/** Largest first, then by customer as the query engine orders them. */
function compareRows(a: Row, b: Row, measure: string): number {
  const difference = Number(b[measure]) - Number(a[measure]);
  if (difference !== 0) return difference;
  return String(a.customer) < String(b.customer) ? -1 : String(a.customer) > String(b.customer) ? 1 : 0;
}

/** Measures split by dimensions: most reports' tables, read through the query engine and streamed whole for a file. */
export const SPLIT_TABLE: ReportTableStrategy<SplitTable> = {
  columns: (table, grain) => [dimensionsOf(table, grain), table.measures],
  sortable: (table) => table.measures,
  defaultSort: (table) => (table.sort ? { measure: table.sort, descending: table.descending ?? false } : undefined),
  queries: (request) => [tableQuery(request)],
  page: splitPage,
  async file(request, { engine, values }) {
    const spec = tableQuery(request, true);
    return {
      totalRows: await engine.count(spec, 'export'),
      batches: values.labelBatches(request.calendar.storeId, engine.stream(spec, EXPORT_BATCH_ROWS), spec.dimensions),
    };
  },
};
