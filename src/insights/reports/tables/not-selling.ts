import { sql } from 'kysely';
import type { Bilingual } from '../../../common/bilingual.js';
import type { ReportRequest } from '../report-request.js';
import { pagedTableFile, type ReportTableStrategy, type TableContext, type TablePage } from './table-strategy.js';

/** The filters the table takes, and the column of the products each compares. */
const NOT_SELLING_FILTERS: Record<string, string> = { product: 'id', category: 'category_id', brand: 'brand_id' };

const NEVER_SOLD: Bilingual = { en: 'Never sold', ar: 'لم يُبع قط' };

/** Active products with stock that sold nothing in the range, longest unsold first. */
async function notSelling(request: ReportRequest, { db }: TableContext): Promise<TablePage> {
  const { storeId, today } = request.calendar;
  const { from, to } = request.resolved.range;
  const conditions = request.filters.map(
    (filter) => sql`p.${sql.ref(NOT_SELLING_FILTERS[filter.dimension])}::text = any(${filter.values}::text[])`,
  );
  // A product never sold has no days since a sale (null), rather than days since it went on sale.
  const candidates = sql`
    select p.id, p.name_en, p.name_ar, stock.units as stock, last.day as last_sold_on, ${today}::date - last.day as days_since_last_sale
    from products p
    cross join lateral (select coalesce(sum(v.stock), 0)::int as units from product_variants v where v.product_id = p.id) stock
    left join lateral (
      select max(r.day) as day from insights_products_daily r where r.store_id = p.store_id and r.product_id = p.id and r.units_sold > 0
    ) last on true
    where p.store_id = ${storeId} and p.status = 'active' and stock.units > 0
      and not exists (
        select 1 from insights_products_daily r
        where r.store_id = p.store_id and r.product_id = p.id and r.day between ${from}::date and ${to}::date and r.units_sold > 0)
      ${conditions.length > 0 ? sql`and ${sql.join(conditions, sql` and `)}` : sql``}`;
  const sort = request.sort ?? { measure: 'days_since_last_sale', descending: true };
  // Never sold counts as the longest unsold: first when the longest come first, last otherwise.
  const direction = sql.raw(sort.descending ? 'desc nulls first' : 'asc nulls last');
  const [{ rows }, { rows: summary }] = await Promise.all([
    sql<{
      id: string;
      name_en: string;
      name_ar: string;
      stock: number;
      last_sold_on: string | null;
      days_since_last_sale: number | null;
    }>`
      select id::text, name_en, name_ar, stock, to_char(last_sold_on, 'YYYY-MM-DD') as last_sold_on, days_since_last_sale
      from (${candidates}) c order by ${sql.ref(sort.measure)} ${direction}, name_en, id
      limit ${request.page.limit + 1} offset ${request.page.offset}`.execute(db),
    sql<{
      products: string;
      stock: string;
    }>`select count(*) as products, coalesce(sum(stock), 0) as stock from (${candidates}) c`.execute(db),
  ]);
  return {
    rows: rows.slice(0, request.page.limit).map((row) => ({
      product: row.id,
      stock: row.stock,
      last_sold_on: row.last_sold_on,
      days_since_last_sale: row.days_since_last_sale,
      labels: { product: { en: row.name_en, ar: row.name_ar }, ...(row.last_sold_on === null ? { last_sold_on: NEVER_SOLD } : {}) },
    })),
    more: rows.length > request.page.limit,
    totals: { products_not_selling: Number(summary[0].products), stock: Number(summary[0].stock) },
  };
}

/** Products not selling: a list of products, read from the catalogue and the products rollup. */
export const NOT_SELLING_TABLE: ReportTableStrategy = {
  columns: () => [['product'], ['stock', 'last_sold_on', 'days_since_last_sale']],
  totals: ['products_not_selling'],
  sortable: () => ['days_since_last_sale', 'stock'],
  recordFilters: NOT_SELLING_FILTERS,
  queries: () => [],
  page: notSelling,
  async file(request, context) {
    const { first, batches } = await pagedTableFile(notSelling, request, context);
    return { totalRows: Number(first.totals!.products_not_selling), batches };
  },
};
