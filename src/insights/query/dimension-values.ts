import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Bilingual } from '../../common/bilingual.js';
import { dimensionNamed, isTimeGrain, type DimensionDef } from '../definitions/dimensions.js';
import { NONE_ID } from '../rollups/rollup-tables.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';

export interface DimensionValue {
  value: string;
  label_en: string;
  label_ar: string;
}

const NONE_LABELS: Record<string, Bilingual> = {
  product: { en: 'Deleted product', ar: 'منتج محذوف' },
  variant: { en: 'Deleted variant', ar: 'خيار محذوف' },
  category: { en: 'No category', ar: 'بلا فئة' },
  brand: { en: 'No brand', ar: 'بلا علامة تجارية' },
};
/**
 * Batches an export reads ahead of the one being written (their rows in memory, their labels looked up
 * meanwhile). With a million rows in batches of 1,000, one ahead and two were as fast as each other.
 */
const READ_AHEAD_BATCHES = 1;
const PICKUP: Bilingual = { en: 'No shipping (pickup)', ar: 'دون شحن (استلام)' };

interface Labelled {
  value: string;
  en: string;
  ar: string;
}

/**
 * The values of dimensions as people read them: names of products, categories, brands and
 * customers, in both languages; and the values a filter can take, searched in either language.
 */
@Injectable()
export class DimensionValues {
  constructor(private readonly em: EntityManager) {}

  /** Labels of some values of a dimension (the rows of a page). Values without a label are left out. */
  async labels(storeId: string, dimension: DimensionDef, values: string[]): Promise<Map<string, Bilingual>> {
    const wanted = [...new Set(values)];
    if (wanted.length === 0) return new Map();
    // A search query names itself and a tax rate is its percentage: nothing to look up.
    if (dimension.values.kind === 'query') return new Map(wanted.map((value) => [value, { en: value, ar: value }]));
    if (dimension.values.kind === 'tax_rate') return new Map(wanted.map((value) => [value, taxRateLabel(Number(value))]));
    const found = await this.lookup(storeId, dimension, { values: wanted, unordered: true });
    return new Map(found.map((row) => [row.value, { en: row.en, ar: row.ar }]));
  }

  /**
   * Rows with `labels`: the names of their dimensions' values, in both languages, labelled in place.
   * Rows may come with some labels already (QueryEngine.stream joins those of labelJoin): the others are
   * looked up, as are values the join found no label for (a deleted product's NONE_ID).
   */
  async labelRows<T extends Record<string, unknown>>(
    storeId: string,
    batch: T[],
    dimensions: string[],
  ): Promise<(T & { labels?: Record<string, Bilingual> })[]> {
    const rows = batch as (T & { labels?: Record<string, Bilingual> })[];
    const labelled = labelledDimensions(dimensions);
    const found = await Promise.all(
      labelled.map(({ name, dimension }) =>
        this.labels(
          storeId,
          dimension,
          rows.filter((row) => !row.labels?.[name]).map((row) => String(row[name])),
        ),
      ),
    );
    for (const row of rows) {
      let labels = row.labels;
      for (let i = 0; i < labelled.length; i++) {
        if (labels?.[labelled[i].name]) continue;
        const value = found[i].get(String(row[labelled[i].name]));
        if (value) (labels ??= {})[labelled[i].name] = value;
      }
      if (labels) row.labels = labels;
    }
    return rows;
  }

  /**
   * Batches of rows, each with its `labels` (labelRows), looked up a batch at a time.
   * One batch ahead: while the caller writes a batch, the next is read and its labels looked up, so that
   * PostgreSQL's work and the caller's overlap; READ_AHEAD_BATCHES + 1 batches are in memory at most.
   */
  async *labelBatches<T extends Record<string, unknown>>(
    storeId: string,
    batches: AsyncIterable<T[]>,
    dimensions: string[],
  ): AsyncGenerator<(T & { labels?: Record<string, Bilingual> })[]> {
    const source = batches[Symbol.asyncIterator]();
    // Batches are read one after another; their labels are looked up as soon as each is read (with more
    // than one batch ahead, side by side).
    let reading: Promise<T[] | null> = Promise.resolve([]);
    const read = () => {
      reading = reading.then(async (previous) => {
        if (previous === null) return null;
        const next = await source.next();
        return next.done ? null : next.value;
      });
      const labelling = reading.then((rows) => (rows === null ? null : this.labelRows(storeId, rows, dimensions)));
      // A failure of a batch read ahead is thrown when the caller comes to it, not as an unhandled rejection.
      labelling.catch(() => undefined);
      return labelling;
    };
    const ahead = Array.from({ length: READ_AHEAD_BATCHES }, read);
    try {
      for (;;) {
        const rows = await ahead.shift()!;
        if (rows === null) return;
        ahead.push(read());
        yield rows;
      }
    } finally {
      // Stopped early (the file failed): let the batches being read settle, then close the source (its cursor).
      await Promise.allSettled([reading, ...ahead]);
      await source.return?.();
    }
  }

  /** Values matching `query` (in English or Arabic, letter forms and diacritics folded), a page at a time. */
  async search(
    storeId: string,
    dimension: DimensionDef,
    query: string | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ items: DimensionValue[]; more: boolean }> {
    const text = query?.trim() ? query.trim() : undefined;
    const found = await this.lookup(storeId, dimension, { text, limit: page.limit + 1, offset: page.offset });
    return {
      items: found.slice(0, page.limit).map((row) => ({ value: row.value, label_en: row.en, label_ar: row.ar })),
      more: found.length > page.limit,
    };
  }

  private async lookup(
    storeId: string,
    dimension: DimensionDef,
    by: { values?: string[]; text?: string; limit?: number; offset?: number; unordered?: boolean },
  ): Promise<Labelled[]> {
    const source = dimension.values;
    if (source.kind === 'fixed') {
      const folded = by.text ? fold(by.text) : undefined;
      const matching = source.values
        .filter((entry) => !by.values || by.values.includes(entry.value))
        .filter((entry) => !folded || [entry.value, entry.label.en, entry.label.ar].some((label) => fold(label).includes(folded)))
        .map((entry) => ({ value: entry.value, ...entry.label }));
      return matching.slice(by.offset ?? 0, (by.offset ?? 0) + (by.limit ?? matching.length));
    }
    const query = this.query(storeId, dimension, source, by);
    if (!query) return [];
    const page = by.limit === undefined ? sql`` : sql`limit ${by.limit} offset ${by.offset ?? 0}`;
    // Labels for a batch go into a map: their order is nobody's, and sorting them was a tenth of the lookup.
    const order = by.unordered ? sql`` : sql`order by v.en, v.value`;
    const { rows } = await sql<Labelled>`select * from (${query}) v ${order} ${page}`.execute(this.em.getKysely() as Kysely<unknown>);
    const none = NONE_LABELS[dimension.name];
    if (none && by.values?.includes(NONE_ID)) rows.push({ value: NONE_ID, ...none });
    if (dimension.name === 'shipping_method' && by.values?.includes('')) rows.push({ value: '', ...PICKUP });
    return rows;
  }

  /** Labelled values (`value`, `en`, `ar`) of the store for the dimension, as SQL; the caller sorts and pages. */
  private query(
    storeId: string,
    dimension: DimensionDef,
    source: DimensionDef['values'],
    by: { values?: string[]; text?: string },
  ): RawBuilder<unknown> | null {
    const matches = (...columns: RawBuilder<unknown>[]) =>
      by.text === undefined
        ? sql`true`
        : sql`(${sql.join(
            columns.map((column) => sql`normalize_search_text(${column}) like '%' || normalize_search_text(${by.text}) || '%'`),
            sql` or `,
          )})`;
    const among = (column: RawBuilder<unknown>) => (by.values ? sql`${column}::text = any(${by.values}::text[])` : sql`true`);
    // Ids compared as what they are, so that a page's labels are looked up through the primary key.
    const amongIds = (column: RawBuilder<unknown>, type: 'uuid' | 'bigint') => {
      if (!by.values) return sql`true`;
      const valid = by.values.filter((value) => (type === 'uuid' ? UUID_PATTERN.test(value) : /^\d{1,18}$/.test(value)));
      return sql`${column} = any(${valid}::${sql.raw(type)}[])`;
    };
    switch (source.kind) {
      case 'catalogue': {
        if (source.entity === 'variant') {
          return sql`select v.id::text as value, p.name_en || ' — ' || v.sku as en, p.name_ar || ' — ' || v.sku as ar
                     from product_variants v join products p on p.id = v.product_id
                     where v.store_id = ${storeId} and ${amongIds(sql`v.id`, 'uuid')} and ${matches(sql`p.name_en`, sql`p.name_ar`, sql`v.sku`)}`;
        }
        const table = { product: 'products', category: 'categories', brand: 'brands' }[source.entity];
        return sql`select e.id::text as value, e.name_en as en, e.name_ar as ar from ${sql.table(table)} e
                   where e.store_id = ${storeId} and ${amongIds(sql`e.id`, 'uuid')} and ${matches(sql`e.name_en`, sql`e.name_ar`)}`;
      }
      case 'customer':
        return sql`select c.id::text as value, ${CUSTOMER_LABEL} as en, ${CUSTOMER_LABEL} as ar
                   from insights_customers c
                   left join shoppers s on s.store_id = c.store_id and s.email_normalized = c.email
                   where c.store_id = ${storeId} and ${amongIds(sql`c.id`, 'bigint')} and ${matches(sql`c.email`, sql`s.first_name || ' ' || s.last_name`)}`;
      case 'shipping_method':
        return sql`select m.code as value, m.name_en as en, m.name_ar as ar from shipping_methods m
                   where m.store_id = ${storeId} and ${among(sql`m.code`)} and ${matches(sql`m.name_en`, sql`m.name_ar`, sql`m.code`)}`;
      case 'tax_rate':
        return sql`select distinct t.tax_rate_bps::text as value, (t.tax_rate_bps / 100.0)::float8 || '%' as en,
                          (t.tax_rate_bps / 100.0)::float8 || '٪' as ar
                   from insights_sales_monthly t where t.store_id = ${storeId} and ${matches(sql`t.tax_rate_bps::text`)}`;
      case 'query':
        return sql`select distinct t.query as value, t.query as en, t.query as ar from insights_searches_monthly t
                   where t.store_id = ${storeId} and ${matches(sql`t.query`)}`;
      case 'none':
        if (dimension.name === 'cohort') {
          return sql`select distinct to_char(t.cohort_month, 'YYYY-MM-DD') as value, to_char(t.cohort_month, 'YYYY-MM') as en,
                            to_char(t.cohort_month, 'YYYY-MM') as ar
                     from insights_cohorts_monthly t where t.store_id = ${storeId} and ${among(sql`to_char(t.cohort_month, 'YYYY-MM-DD')`)}`;
        }
        return null;
      case 'fixed':
        return null;
    }
  }
}

/** Of a query's dimensions, those whose values have names (not the time grains), with their definitions. */
export function labelledDimensions(names: string[]): { name: string; dimension: DimensionDef }[] {
  return names.flatMap((name) => {
    const dimension = dimensionNamed(name);
    return dimension && !isTimeGrain(name) ? [{ name, dimension }] : [];
  });
}

/** A customer's label (over `c`, insights_customers, and `s`, their shopper if any): `Name <email>`, else the email. */
const CUSTOMER_LABEL = sql`coalesce(nullif(trim(s.first_name || ' ' || s.last_name), '') || ' <' || c.email || '>', c.email)`;
const CATALOGUE_TABLES = { product: 'products', category: 'categories', brand: 'brands' } as const;

/**
 * The label of a dimension's value as SQL that PostgreSQL joins to a table's rows itself (a lateral
 * subquery of `en` and `ar` over `value`, the value as text; no row where it has none), for the
 * dimensions labelled from the store's records (customers, products, variants, categories, brands),
 * as `labels` looks them up; null for the others. An export's statement joins them once, instead of a
 * lookup per batch: at a million customer rows the lookups took twice as long as the statement.
 */
export function labelJoin(storeId: string, dimension: DimensionDef, value: RawBuilder<unknown>): RawBuilder<unknown> | null {
  const source = dimension.values;
  if (source.kind === 'customer') {
    return sql`select ${CUSTOMER_LABEL} as en, ${CUSTOMER_LABEL} as ar from insights_customers c
               left join shoppers s on s.store_id = c.store_id and s.email_normalized = c.email
               where c.store_id = ${storeId}::uuid and c.id = (${value})::bigint`;
  }
  if (source.kind !== 'catalogue') return null;
  if (source.entity === 'variant') {
    return sql`select p.name_en || ' — ' || v.sku as en, p.name_ar || ' — ' || v.sku as ar
               from product_variants v join products p on p.id = v.product_id
               where v.store_id = ${storeId}::uuid and v.id = (${value})::uuid`;
  }
  return sql`select e.name_en as en, e.name_ar as ar from ${sql.table(CATALOGUE_TABLES[source.entity])} e
             where e.store_id = ${storeId}::uuid and e.id = (${value})::uuid`;
}

/** A tax rate in basis points as a percentage: 1500 → 15%. */
function taxRateLabel(basisPoints: number): Bilingual {
  const percent = String(basisPoints / 100);
  return { en: `${percent}%`, ar: `${percent}٪` };
}

/** Case and letter forms folded the way search folds them, for the fixed lists checked in memory. */
function fold(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u064B-\u065F\u0670\u0640\u0300-\u036f]/g, '')
    .replace(/[أإآٱ]/g, 'ا')
    .replace(/ة/g, 'ه')
    .replace(/ى/g, 'ي');
}
