import { sql, type RawBuilder } from 'kysely';
import { FULFILMENT_STATUS_LABELS } from '../../definitions/reports.js';
import { addDays } from '../../query/ranges.js';
import { COUNTED_ORDERS } from '../../rollups/counted-orders.js';
import type { ReportRequest } from '../report-request.js';
import { pagedTableFile, type ReportTableStrategy, type TableContext, type TablePage } from './table-strategy.js';

/** The filters the table takes, and the column of the orders each compares. */
const LATE_ORDER_FILTERS: Record<string, string> = { fulfilment_type: 'fulfilment_type', shipping_method: 'shipping_method_code' };

/** When an order was delivered, or a pickup made ready. */
const FULFILLED_AT = sql`case o.fulfilment_type when 'delivery' then o.delivered_at else o.ready_at end`;
/**
 * Delivered (a pickup: made ready) after the promise and the store's grace (`late_after`). Its first
 * part, after the promise, is what the partial index orders_lateness_index holds: a superset, since
 * the grace is never negative, which keeps the index in use.
 */
const LATE_FULFILMENT = sql`(((o.fulfilment_type = 'delivery' and o.delivered_at > o.promised_by) or (o.fulfilment_type = 'pickup' and o.ready_at > o.promised_by))
  and (${FULFILLED_AT}) > o.late_after)`;
/**
 * Still open past the promise and the grace, not yet delivered (made ready): read through
 * orders_open_promised_by_index by `promised_by < now()`, a superset.
 */
const OPEN_PAST_PROMISE = sql`(o.status = 'open' and o.promised_by < now() and o.late_after < now()
  and case o.fulfilment_type when 'delivery' then o.delivered_at is null else o.ready_at is null end)`;

/** The orders of the late-orders report: promised within the range, of the filters' fulfilment types and methods. */
function lateWithin(request: ReportRequest): RawBuilder<unknown> {
  const { storeId, timezone } = request.calendar;
  const { from, to } = request.resolved.range;
  const conditions = request.filters.map(
    (filter) => sql`coalesce(o.${sql.ref(LATE_ORDER_FILTERS[filter.dimension])}, '') = any(${filter.values}::text[])`,
  );
  return sql`o.store_id = ${storeId}
    and o.promised_by >= (${from}::date)::timestamp at time zone ${timezone}
    and o.promised_by < (${addDays(to, 1)}::date)::timestamp at time zone ${timezone}
    ${conditions.length > 0 ? sql`and ${sql.join(conditions, sql` and `)}` : sql``}`;
}

/** How many rows the late-orders table has: late and fulfilled, or open past the promise. */
async function lateOrderCount(request: ReportRequest, { db }: TableContext): Promise<number> {
  const { rows } = await sql<{ count: string }>`
    select count(*) as count from ${COUNTED_ORDERS} o
    where ${lateWithin(request)} and (${LATE_FULFILMENT} or ${OPEN_PAST_PROMISE})`.execute(db);
  return Number(rows[0].count);
}

/**
 * Orders promised within the range that were delivered (a pickup: made ready) after their promise
 * and the store's grace, or are still open past them, the latest first; `late_by` counts from the
 * promise. Read from the orders Insights counts through two small indexes: the late ones, and the
 * open ones.
 */
async function lateOrders(request: ReportRequest, { db }: TableContext): Promise<TablePage> {
  const within = lateWithin(request);
  // Each kind read in order of lateness through its index, as far as the page goes, then the two merged.
  const needed = request.page.offset + request.page.limit + 1;
  const latestFirst = request.sort?.descending !== false;
  const fulfilledLate = sql`
    select o.id, o.number, o.placed_at, o.promised_by, ${FULFILLED_AT} as fulfilled_at, o.fulfilment_status
    from ${COUNTED_ORDERS} o
    where ${within} and ${LATE_FULFILMENT}
    order by ${FULFILLED_AT} - o.promised_by ${sql.raw(latestFirst ? 'desc' : 'asc')}, o.id
    limit ${needed}`;
  const openLate = sql`
    select o.id, o.number, o.placed_at, o.promised_by, null::timestamptz as fulfilled_at, o.fulfilment_status
    from ${COUNTED_ORDERS} o
    where ${within} and ${OPEN_PAST_PROMISE}
    order by o.promised_by ${sql.raw(latestFirst ? 'asc' : 'desc')}, o.id
    limit ${needed}`;
  const [{ rows }, { rows: open }] = await Promise.all([
    sql<{
      id: string;
      number: string;
      placed_at: string;
      promised_by: string;
      fulfilled_at: string | null;
      status: string;
      late_by: number;
    }>`
      select l.id::text, l.number::text, iso_utc(l.placed_at) as placed_at, iso_utc(l.promised_by) as promised_by,
             iso_utc(l.fulfilled_at) as fulfilled_at, l.fulfilment_status as status,
             round(extract(epoch from coalesce(l.fulfilled_at, now()) - l.promised_by))::int as late_by
      from ((${fulfilledLate}) union all (${openLate})) l
      order by late_by ${sql.raw(latestFirst ? 'desc' : 'asc')}, l.id
      limit ${request.page.limit + 1} offset ${request.page.offset}`.execute(db),
    sql<{ count: string }>`select count(*) as count from ${COUNTED_ORDERS} o where ${within} and ${OPEN_PAST_PROMISE}`.execute(db),
  ]);
  return {
    rows: rows.slice(0, request.page.limit).map(({ id, number, ...row }) => ({
      order: id,
      ...row,
      labels: {
        order: { en: `#${number}`, ar: `#${number}` },
        ...(FULFILMENT_STATUS_LABELS[row.status] ? { status: FULFILMENT_STATUS_LABELS[row.status] } : {}),
      },
    })),
    more: rows.length > request.page.limit,
    totals: { open_past_promise: Number(open[0].count) },
  };
}

/** Late orders: a list of orders, read from the orders Insights counts. */
export const LATE_ORDERS_TABLE: ReportTableStrategy = {
  columns: () => [['order'], ['placed_at', 'promised_by', 'fulfilled_at', 'status', 'late_by']],
  totals: ['open_past_promise'],
  sortable: () => ['late_by'],
  recordFilters: LATE_ORDER_FILTERS,
  queries: () => [],
  page: lateOrders,
  async file(request, context) {
    const { batches } = await pagedTableFile(lateOrders, request, context);
    return { totalRows: await lateOrderCount(request, context), batches };
  },
};
