import { Injectable } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import type { Bilingual } from '../../common/bilingual.js';
import { ApiError } from '../../common/errors/api-error.js';
import { dimensionNamed, isTimeGrain, type DimensionDef } from '../definitions/dimensions.js';
import type { Filter } from '../definitions/filters.js';
import { NONE_ID } from '../rollups/rollup-tables.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import { ReportReads } from '../../infra/database/report-reads.js';

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
/** The closest values a filter value that names none is answered with. */
const CLOSEST_VALUES = 5;

/** Of a filter value: the values whose folded name it is, and the values closest to it. */
interface Folded {
  named: DimensionValue[];
  closest: DimensionValue[];
}

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
  constructor(private readonly reads: ReportReads) {}

  /** Labels of some values of a dimension (the rows of a page). Values without a label are left out. */
  async labels(storeId: string, dimension: DimensionDef, values: string[]): Promise<Map<string, Bilingual>> {
    const wanted = [...new Set(values)];
    if (wanted.length === 0) return new Map();
    // A search query names itself, a tax rate is its percentage and a fixed value's name is declared: nothing to look up.
    const source = dimension.values;
    if (source.kind === 'query') return new Map(wanted.map((value) => [value, { en: value, ar: value }]));
    if (source.kind === 'tax_rate') return new Map(wanted.map((value) => [value, taxRateLabel(Number(value))]));
    if (source.kind === 'fixed') {
      return new Map(source.values.filter((entry) => wanted.includes(entry.value)).map((entry) => [entry.value, entry.label]));
    }
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

  /** `value` as it is (an id, a code) with its names: one item, or none when the dimension has no such value. */
  async named(storeId: string, dimension: DimensionDef, value: string): Promise<DimensionValue[]> {
    const found = await this.lookup(storeId, dimension, { values: [value], unordered: true });
    return found.filter((row) => row.value === value).map((row) => ({ value: row.value, label_en: row.en, label_ar: row.ar }));
  }

  /**
   * Filters with the values of `in` and `not_in` as their dimension's values (the other operators
   * compare text, numbers and dates as they are). Each given value is a value as it is (an id, a
   * code), else a slug (of a product, category or brand; a variant's SKU), else exactly a value's
   * name in English or Arabic (a customer's also their email), compared as search compares text:
   * case, Arabic letter forms and diacritics folded (normalize_search_text). One that names no value,
   * or a name several values share, is 400 unknown_dimension_value with the closest values.
   */
  async resolveFilters(storeId: string, filters: Filter[]): Promise<Filter[]> {
    return Promise.all(
      filters.map(async (filter) =>
        filter.op === 'in' || filter.op === 'not_in'
          ? { ...filter, values: await this.resolve(storeId, dimensionNamed(filter.dimension)!, filter.values) }
          : filter,
      ),
    );
  }

  private async resolve(storeId: string, dimension: DimensionDef, given: string[]): Promise<string[]> {
    const wanted = [...new Set(given)];
    if (dimension.values.kind === 'none') {
      // Not listed (months since the first order): a value of the dimension's type is one.
      const invalid = wanted.find((value) => dimension.type === 'number' && !/^\d{1,4}$/.test(value));
      if (invalid !== undefined) throw unknownValue(dimension, invalid, []);
      return wanted;
    }
    // Values as they are first (ids through their primary key, the way the dashboard sends them), then slugs and
    // names as written in any case (a comparison of the names as stored), and only then names folded as search folds
    // them, which normalises every name of the dimension: 100,000 products take seconds.
    const known = new Set((await this.lookup(storeId, dimension, { values: wanted, unordered: true })).map((row) => row.value));
    const unknown = wanted.filter((value) => !known.has(value));
    const written = unknown.length > 0 ? await this.namedAsWritten(storeId, dimension, unknown) : new Map<string, DimensionValue[]>();
    const unwritten = unknown.filter((value) => !written.get(value)?.length);
    const folded = unwritten.length > 0 ? await this.namedFolded(storeId, dimension, unwritten) : new Map<string, Folded>();
    const resolved = wanted.map((value) => {
      if (known.has(value)) return value;
      const { named, closest } = folded.get(value) ?? { named: written.get(value)!, closest: [] };
      if (named.length === 1) return named[0].value;
      throw named.length > 1 ? unknownValue(dimension, value, named, true) : unknownValue(dimension, value, closest);
    });
    return [...new Set(resolved)];
  }

  /** The values each of `given` names by its slug (exactly), else by a name as written, in any case. */
  private async namedAsWritten(storeId: string, dimension: DimensionDef, given: string[]): Promise<Map<string, DimensionValue[]>> {
    // Equalities only, each a hash join: a join on "slug or any name" compared every value with every one given.
    const { rows } = await sql<DimensionValue & { input: string; by_slug: boolean }>`
      with c as materialized (${this.candidates(storeId, dimension, given)}),
           given as (select input, lower(input) as key from unnest(${given}::text[]) as input)
      select g.input, c.value, c.en as label_en, c.ar as label_ar, true as by_slug from c join given g on c.slug = g.input
      union
      select g.input, c.value, c.en, c.ar, false
      from c cross join lateral unnest(array[lower(c.en), lower(c.ar), lower(c.alias)]) as k(key) join given g on k.key = g.key`.execute(
      this.reads.db,
    );
    return new Map(
      given.map((input) => {
        const mine = rows.filter((row) => row.input === input);
        const bySlug = mine.filter((row) => row.by_slug);
        return [input, (bySlug.length > 0 ? bySlug : mine).map(valueOf)];
      }),
    );
  }

  /**
   * For each of `given`, the values whose name is it once both are folded as search folds text
   * (normalize_search_text), and, for the first of `given` that names none (the one a refusal names), the
   * values closest to it: those whose folded names hold it, then those most alike (trigram similarity).
   * Every name of the dimension is folded once, and matched to all of `given` by a hash join, so that many
   * values cost about what one does.
   */
  private async namedFolded(storeId: string, dimension: DimensionDef, given: string[]): Promise<Map<string, Folded>> {
    const { rows } = await sql<DimensionValue & { input: string | null }>`
      with given as materialized (
             select input, ordinality, normalize_search_text(input) as key from unnest(${given}::text[]) with ordinality as input),
           v as materialized (
             select c.value, c.en, c.ar,
                    normalize_search_text(c.en) as key_en, normalize_search_text(c.ar) as key_ar, normalize_search_text(c.alias) as key_alias
             from (${this.candidates(storeId, dimension, given)}) c),
           named as (
             select distinct g.input, v.value, v.en, v.ar
             from given g join (select v.*, k.key from v cross join lateral unnest(array[v.key_en, v.key_ar, v.key_alias]) as k(key)) v
               on v.key = g.key),
           first_unnamed as (
             select g.key from given g where not exists (select 1 from named n where n.input = g.input) order by g.ordinality limit 1)
      select n.input, n.value, n.en as label_en, n.ar as label_ar from named n
      union all
      (select null, v.value, v.en, v.ar from v cross join first_unnamed f
       order by greatest(strpos(v.key_en, f.key), strpos(v.key_ar, f.key), strpos(v.key_alias, f.key)) > 0 desc,
                greatest(similarity(v.key_en, f.key), similarity(v.key_ar, f.key), similarity(v.key_alias, f.key)) desc, v.en, v.value
       limit ${CLOSEST_VALUES})`.execute(this.reads.db);
    const namedBy = new Map(given.map((input) => [input, rows.filter((row) => row.input === input).map(valueOf)]));
    const firstUnnamed = given.find((input) => namedBy.get(input)!.length === 0);
    const closest = rows.filter((row) => row.input === null).map(valueOf);
    return new Map(given.map((input) => [input, { named: namedBy.get(input)!, closest: input === firstUnnamed ? closest : [] }]));
  }

  /**
   * The values a filter value may name, as SQL: `value`, its labels (`en`, `ar`, the names it goes
   * by), its `slug` if it has one (a catalogue entry's; a variant's SKU) and the `alias` it also goes
   * by if any (a customer's email), with the names of the absent value (a deleted product, pickup's empty shipping
   * method). Customers are too many to compare every one: only those whose email `given` holds (alone
   * or as a label's `<email>`), and the few that follow each in the order of emails, as the closest.
   */
  private candidates(storeId: string, dimension: DimensionDef, given: string[]): RawBuilder<unknown> {
    const source = dimension.values;
    const absent = NONE_LABELS[dimension.name]
      ? { value: NONE_ID, ...NONE_LABELS[dimension.name] }
      : dimension.name === 'shipping_method'
        ? { value: '', ...PICKUP }
        : undefined;
    const extra = absent
      ? sql` union all select ${absent.value}::text, ${absent.en}::text, ${absent.ar}::text, null::text, null::text`
      : sql``;
    const listed = (): RawBuilder<unknown> => {
      switch (source.kind) {
        case 'catalogue': {
          if (source.entity === 'variant') {
            return sql`select v.id::text as value, p.name_en || ' — ' || v.sku as en, p.name_ar || ' — ' || v.sku as ar, v.sku as slug,
                              null::text as alias
                       from product_variants v join products p on p.id = v.product_id where v.store_id = ${storeId}`;
          }
          return sql`select e.id::text as value, e.name_en as en, e.name_ar as ar, e.slug, null::text as alias
                     from ${sql.table(CATALOGUE_TABLES[source.entity])} e where e.store_id = ${storeId}`;
        }
        case 'customer': {
          const emails = given.map((value) => (/<([^<>]+)>\s*$/.exec(value)?.[1] ?? value).trim().toLowerCase());
          const following = emails.map((email) => email.split('@')[0]).filter((start) => start.length > 0);
          return sql`select c.id::text as value, ${CUSTOMER_LABEL} as en, ${CUSTOMER_LABEL} as ar, null::text as slug, c.email as alias
                     from insights_customers c
                     left join shoppers s on s.store_id = c.store_id and s.email_normalized = c.email
                     where c.store_id = ${storeId} and c.id in (
                       select n.id from insights_customers n where n.store_id = ${storeId} and n.email = any(${emails}::text[])
                       union all
                       select f.id from unnest(${following}::text[]) as start cross join lateral (
                         select n.id from insights_customers n where n.store_id = ${storeId} and n.email >= start
                         order by n.email limit ${CLOSEST_VALUES}) f)`;
        }
        default:
          return sql`select l.value, l.en, l.ar, null::text as slug, null::text as alias from (${this.query(storeId, source, {})}) l`;
      }
    };
    return sql`${listed()}${extra}`;
  }

  private async lookup(
    storeId: string,
    dimension: DimensionDef,
    by: { values?: string[]; text?: string; limit?: number; offset?: number; unordered?: boolean },
  ): Promise<Labelled[]> {
    const source = dimension.values;
    const query = this.query(storeId, source, by);
    if (!query) return [];
    const page = by.limit === undefined ? sql`` : sql`limit ${by.limit} offset ${by.offset ?? 0}`;
    // Labels for a batch go into a map: their order is nobody's, and sorting them was a tenth of the lookup.
    const order = by.unordered ? sql`` : sql`order by v.en, v.value`;
    const { rows } = await sql<Labelled>`select * from (${query}) v ${order} ${page}`.execute(this.reads.db);
    const none = NONE_LABELS[dimension.name];
    if (none && by.values?.includes(NONE_ID)) rows.push({ value: NONE_ID, ...none });
    if (dimension.name === 'shipping_method' && by.values?.includes('')) rows.push({ value: '', ...PICKUP });
    return rows;
  }

  /** Labelled values (`value`, `en`, `ar`) of the store for the dimension, as SQL; the caller sorts and pages. */
  private query(storeId: string, source: DimensionDef['values'], by: { values?: string[]; text?: string }): RawBuilder<unknown> | null {
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
                   from insights_sales_monthly t
                   where t.store_id = ${storeId} and ${among(sql`t.tax_rate_bps`)} and ${matches(sql`t.tax_rate_bps::text`)}`;
      case 'query':
        return sql`select distinct t.query as value, t.query as en, t.query as ar from insights_searches_monthly t
                   where t.store_id = ${storeId} and ${among(sql`t.query`)} and ${matches(sql`t.query`)}`;
      case 'cohort':
        return sql`select distinct to_char(t.cohort_month, 'YYYY-MM-DD') as value, to_char(t.cohort_month, 'YYYY-MM') as en,
                          to_char(t.cohort_month, 'YYYY-MM') as ar
                   from insights_cohorts_monthly t where t.store_id = ${storeId} and ${among(sql`to_char(t.cohort_month, 'YYYY-MM-DD')`)}`;
      case 'fixed': {
        const entries = source.values.map((entry) => sql`(${entry.value}::text, ${entry.label.en}::text, ${entry.label.ar}::text)`);
        return sql`select f.value, f.en, f.ar from (values ${sql.join(entries)}) as f(value, en, ar)
                   where ${among(sql`f.value`)} and ${matches(sql`f.value`, sql`f.en`, sql`f.ar`)}`;
      }
      case 'none':
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

/** A value with its labels, without what else a row holds. */
function valueOf({ value, label_en, label_ar }: DimensionValue): DimensionValue {
  return { value, label_en, label_ar };
}

/**
 * A filter value that names no value of its dimension, or (`shared`) a name several values share:
 * 400 naming the dimension and the value, with the closest values (or the values sharing the name).
 */
function unknownValue(dimension: DimensionDef, value: string, closest: DimensionValue[], shared = false): ApiError {
  const listEn = closest.map((candidate) => (shared ? `${candidate.label_en} (${candidate.value})` : candidate.label_en)).join(', ');
  const listAr = closest.map((candidate) => (shared ? `${candidate.label_ar} (${candidate.value})` : candidate.label_ar)).join('، ');
  const valuesUrl = `GET /admin/insights/dimensions/${dimension.name}/values`;
  return new ApiError('unknown_dimension_value', {
    details: { dimension: dimension.name, value },
    message: shared
      ? {
          en: `“${value}” is the name of ${closest.length} values of ${dimension.label.en}: filter by the value of the one you mean.`,
          ar: `«${value}» اسمٌ تشترك فيه عدة قيم (${closest.length}) من ${dimension.label.ar}: صفِّ حسب قيمة ما تقصده منها.`,
        }
      : {
          en: `${dimension.label.en} has no value “${value}”: a filter value is a value’s id, its slug, or its name in English or Arabic.`,
          ar: `لا قيمة «${value}» في ${dimension.label.ar}: قيمة المرشّح هي معرّف القيمة أو اسمها المختصر (slug) أو اسمها بالعربية أو الإنجليزية.`,
        },
    suggestion: {
      code: 'closest_values',
      message_en: shared
        ? `The values named so: ${listEn}.`
        : closest.length > 0
          ? `Closest values: ${listEn}.`
          : `No value of ${dimension.label.en} is like it; ${valuesUrl} lists them.`,
      message_ar: shared
        ? `القيم التي تحمل هذا الاسم: ${listAr}.`
        : closest.length > 0
          ? `أقرب القيم: ${listAr}.`
          : `لا قيمة مشابهة في ${dimension.label.ar}؛ تعرض ${valuesUrl} قيمه.`,
      dimension: dimension.name,
      values: closest,
    },
  });
}
