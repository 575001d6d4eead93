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
    const found = await this.lookup(storeId, dimension, { values: wanted });
    return new Map(found.map((row) => [row.value, { en: row.en, ar: row.ar }]));
  }

  /** Rows with `labels`: the names of their dimensions' values, in both languages. */
  async labelRows<T extends Record<string, unknown>>(
    storeId: string,
    rows: T[],
    dimensions: string[],
  ): Promise<(T & { labels?: Record<string, Bilingual> })[]> {
    const labels = new Map<string, Map<string, Bilingual>>();
    for (const name of dimensions) {
      const dimension = dimensionNamed(name);
      if (!dimension || isTimeGrain(name)) continue;
      labels.set(
        name,
        await this.labels(
          storeId,
          dimension,
          rows.map((row) => String(row[name])),
        ),
      );
    }
    return rows.map((row) => {
      const found = Object.fromEntries(
        [...labels].flatMap(([name, byValue]) => {
          const label = byValue.get(String(row[name]));
          return label ? [[name, label]] : [];
        }),
      );
      return Object.keys(found).length > 0 ? { ...row, labels: found } : row;
    });
  }

  /** Batches of rows, each with its `labels`, looked up a batch at a time. */
  async *labelBatches<T extends Record<string, unknown>>(storeId: string, batches: AsyncIterable<T[]>, dimensions: string[]) {
    for await (const rows of batches) yield await this.labelRows(storeId, rows, dimensions);
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
    by: { values?: string[]; text?: string; limit?: number; offset?: number },
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
    const { rows } = await sql<Labelled>`select * from (${query}) v order by v.en, v.value ${page}`.execute(
      this.em.getKysely() as Kysely<unknown>,
    );
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
        return sql`select c.id::text as value, coalesce(nullif(trim(s.first_name || ' ' || s.last_name), '') || ' <' || c.email || '>', c.email) as en,
                          coalesce(nullif(trim(s.first_name || ' ' || s.last_name), '') || ' <' || c.email || '>', c.email) as ar
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
