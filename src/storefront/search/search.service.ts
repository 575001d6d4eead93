import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import { createHash } from 'node:crypto';
import { invalidField } from '../../common/errors/api-error.js';
import { decodeCursor, encodeCursor, UTC_MICROS_PATTERN, UUID_PATTERN } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/list-query.dto.js';
import { RenderedJson } from '../../infra/http/rendered-json.js';
import { StoreService } from '../../stores/store.service.js';
import type { CataloguePage } from '../catalogue/catalogue-cache.js';
import { bilingual, matchesIdOrSlug, PRODUCT_DOCUMENT, PRODUCT_JOINS } from '../catalogue/catalogue.queries.js';
import type { SearchQuery, SearchSort } from './dto/search.query.js';
import { priceBandBoundaries } from './price-bands.js';
import { SearchContextService } from './search-context.service.js';
import { queryLocale } from './search-recorder.js';
import { correctQuery, FEW_RESULTS } from './spelling.js';

/** Suggestions rank at most this many matching products: typing "s" must not rank a whole catalogue. */
const SUGGESTION_CANDIDATES = 200;
const MAX_SUGGESTIONS = 8;
const MIN_PRODUCT_PREFIX = 2;
/**
 * ts_rank weights for D, C, B, A: names (A) and brand, category names and SKUs (B) rank a match;
 * a word found only in the description (C) matches but does not lift it.
 */
const RANK_WEIGHTS = sql`'{0, 0, 0.4, 1}'::real[]`;
const PG_INT_MAX = 2 ** 31 - 1;

interface SearchRow {
  normalized: string;
  total: number;
  categories: string;
  brands: string;
  price_bands: string;
  doc: string | null;
  id: string | null;
  sort_number: number | null;
  sort_at: string | null;
}

/** A page of results, cacheable like a catalogue page (its items show stock), and how many matched in all. */
export interface SearchAnswer extends CataloguePage {
  total: number;
}

interface SortSpec {
  /** The row's position in this order, as compared by the cursor. */
  key: (alias: string) => RawBuilder<unknown>;
  descending: boolean;
  keyPart: 'number' | typeof UTC_MICROS_PATTERN;
}

const SORTS: Record<SearchSort, SortSpec> = {
  relevance: { key: (a) => sql`${sql.ref(`${a}.rank`)}`, descending: true, keyPart: 'number' },
  // products without a variant (no price) come last either way
  price_asc: { key: (a) => sql`coalesce(${sql.ref(`${a}.min_price`)}, ${PG_INT_MAX})`, descending: false, keyPart: 'number' },
  price_desc: { key: (a) => sql`coalesce(${sql.ref(`${a}.min_price`)}, -1)`, descending: true, keyPart: 'number' },
  newest: { key: (a) => sql`${sql.ref(`${a}.created_at`)}`, descending: true, keyPart: UTC_MICROS_PATTERN },
};

/**
 * Storefront search on PostgreSQL full-text search. Each query reads the store's `product_search`
 * rows (kept by triggers, migration 0003-search), so matching, facets and the page are one
 * statement; the product documents are the catalogue's own.
 */
@Injectable()
export class SearchService {
  constructor(
    private readonly em: EntityManager,
    private readonly context: SearchContextService,
    private readonly stores: StoreService,
  ) {}

  private get db() {
    return this.em.getKysely();
  }

  async search(storeId: string, query: SearchQuery): Promise<SearchAnswer> {
    if (query.priceMin !== undefined && query.priceMax !== undefined && query.priceMin > query.priceMax) {
      throw invalidField('priceMax', 'priceRange', {
        en: 'priceMax must not be below priceMin.',
        ar: 'يجب ألا يقل priceMax عن priceMin.',
      });
    }
    const sort = query.sort ?? 'relevance';
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    // A cursor continues the search it came from, and only that one.
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([query.q, query.category, query.brand, query.priceMin, query.priceMax, sort]))
      .digest('base64url')
      .slice(0, 16);
    const after = query.cursor
      ? decodeCursor<[string, number | string, string]>(query.cursor, [
          { test: (value) => value === fingerprint },
          SORTS[sort].keyPart,
          UUID_PATTERN,
        ])
      : undefined;
    const currency = await this.stores.currencyOf(storeId);
    const run = (text: string) => this.run(storeId, text, query, sort, limit, after, currency);

    let rows = await run(query.q);
    let correctedQuery: string | null = null;
    if (rows[0].total < FEW_RESULTS) {
      const corrected = await correctQuery(this.db, storeId, rows[0].normalized);
      if (corrected) {
        const correctedRows = await run(corrected);
        if (correctedRows[0].total > rows[0].total) {
          rows = correctedRows.map((row) => ({ ...row, normalized: rows[0].normalized }));
          correctedQuery = corrected;
        }
      }
    }

    const { normalized, total, categories, brands, price_bands: priceBands } = rows[0];
    const items = rows.filter((row) => row.doc !== null);
    const shown = items.slice(0, limit);
    const last = shown.at(-1);
    const nextCursor =
      items.length > limit && last ? encodeCursor([fingerprint, sort === 'newest' ? last.sort_at! : last.sort_number!, last.id!]) : null;
    const queryInfo = JSON.stringify({ q: query.q, normalized, correctedQuery });
    return {
      total,
      productIds: shown.map((row) => row.id!),
      page: RenderedJson.fromText(
        `{"items":[${shown.map((row) => row.doc).join(',')}],"nextCursor":${JSON.stringify(nextCursor)},"total":${total},` +
          `"facets":{"categories":${categories},"brands":${brands},"priceBands":${priceBands}},"query":${queryInfo}}`,
      ),
    };
  }

  private async run(
    storeId: string,
    text: string,
    query: SearchQuery,
    sort: SearchSort,
    limit: number,
    after: [string, number | string, string] | undefined,
    currency: string,
  ): Promise<SearchRow[]> {
    const spec = SORTS[sort];
    const direction = spec.descending ? sql`desc` : sql`asc`;
    const order = (alias: string) => sql`${spec.key(alias)} ${direction}, ${sql.ref(`${alias}.product_id`)} ${direction}`;
    const position = after
      ? sql`and (${spec.key('m')}, m.product_id) ${spec.descending ? sql`<` : sql`>`} (${sort === 'newest' ? sql`${after[1]}::timestamptz` : sql`${after[1]}::int`}, ${after[2]}::uuid)`
      : sql``;
    const priceOk = sql`${query.priceMin !== undefined ? sql`ps.min_price >= ${query.priceMin}` : sql`true`} and ${
      query.priceMax !== undefined ? sql`ps.min_price <= ${query.priceMax}` : sql`true`
    }`;
    const boundaries = priceBandBoundaries(currency);
    const { rows } = await sql<SearchRow>`
      with params as (
        select normalize_search_text(${text}) as normalized, search_tsquery(normalize_search_text(${text})) as query,
          ${
            query.category
              ? sql`array(select sub.id from categories sub where sub.store_id = ${storeId} and sub.path @> array[(
                  select cat.id from categories cat where cat.store_id = ${storeId} and ${matchesIdOrSlug('cat', query.category)})])`
              : sql`null::uuid[]`
          } as category_ids,
          ${
            query.brand
              ? sql`(select br.id from brands br where br.store_id = ${storeId} and ${matchesIdOrSlug('br', query.brand)})`
              : sql`null::uuid`
          } as brand_id
      ),
      matched as materialized (
        select ps.product_id, ps.category_id, ps.brand_id, ps.min_price, ps.created_at,
          ${sort === 'relevance' ? sql`(ts_rank(${RANK_WEIGHTS}, ps.document, params.query) * 1000000)::int` : sql`0`} as rank,
          ${query.category ? sql`coalesce(ps.category_id = any(params.category_ids), false)` : sql`true`} as category_ok,
          ${query.brand ? sql`coalesce(ps.brand_id = params.brand_id, false)` : sql`true`} as brand_ok,
          coalesce(${priceOk}, false) as price_ok
        from product_search ps cross join params
        where ps.store_id = ${storeId} and ps.document @@ params.query
      ),
      -- Each facet counts the matches that pass the other filters: choosing a brand narrows the
      -- category counts, not the brand list itself. A category counts its whole subtree.
      category_facet as (
        select coalesce(json_agg(json_build_object(
          'id', c.id, 'slug', c.slug, 'name', ${bilingual('c', 'name')}, 'parentId', c.parent_id,
          'depth', cardinality(c.path) - 1, 'count', totals.count) order by totals.count desc, cardinality(c.path), c.position, c.slug), '[]') as facet
        from (
          select ancestor.id, sum(leaf.count)::int as count
          from (select category_id, count(*) as count from matched where brand_ok and price_ok and category_id is not null group by category_id) leaf
          join categories lc on lc.id = leaf.category_id
          cross join unnest(lc.path) as ancestor(id)
          group by ancestor.id
        ) totals
        join categories c on c.id = totals.id
      ),
      brand_facet as (
        select coalesce(json_agg(json_build_object('id', b.id, 'slug', b.slug, 'name', ${bilingual('b', 'name')}, 'count', totals.count)
          order by totals.count desc, b.slug), '[]') as facet
        from (select brand_id, count(*)::int as count from matched where category_ok and price_ok and brand_id is not null group by brand_id) totals
        join brands b on b.id = totals.brand_id
      ),
      price_facet as (
        select coalesce(json_agg(json_build_object(
          'min', case when band = 0 then 0 else (${boundaries}::int[])[band] end,
          'max', (${boundaries}::int[])[band + 1] - 1,
          'currency', ${currency}::text, 'count', count) order by band), '[]') as facet
        from (
          select width_bucket(min_price, ${boundaries}::int[]) as band, count(*)::int as count
          from matched where category_ok and brand_ok and min_price is not null group by 1
        ) bands
      ),
      page as (
        select m.product_id, m.rank, m.min_price, m.created_at from matched m
        where m.category_ok and m.brand_ok and m.price_ok ${position}
        order by ${order('m')}
        limit ${limit + 1}
      )
      select params.normalized, (select count(*) from matched where category_ok and brand_ok and price_ok)::int as total,
        category_facet.facet::text as categories, brand_facet.facet::text as brands, price_facet.facet::text as price_bands,
        case when p.id is null then null else ${PRODUCT_DOCUMENT}::text end as doc, p.id,
        ${sort === 'newest' ? sql`null::int` : sql`${spec.key('pg')}`} as sort_number,
        ${sort === 'newest' ? sql`iso_utc_micros(pg.created_at)` : sql`null::text`} as sort_at
      from params cross join category_facet cross join brand_facet cross join price_facet
      left join (page pg join products p on p.id = pg.product_id ${PRODUCT_JOINS}) on true
      order by ${order('pg')}`.execute(this.db);
    return rows;
  }

  /**
   * Completions as the shopper types: popular searches of the store, categories and brands whose
   * names start with (or, past three letters, nearly match) the text, and (from two letters on) the
   * best products among the first matches of a prefix query.
   */
  async suggestions(storeId: string, q: string): Promise<CataloguePage> {
    const locale = queryLocale(q);
    const text = await this.suggestionRows(storeId, q);
    let rows = text.rows;
    let correctedQuery: string | null = null;
    if (!rows.some((row) => row.type === 'product')) {
      const corrected = await correctQuery(this.db, storeId, text.normalized);
      if (corrected) {
        const retried = await this.suggestionRows(storeId, corrected);
        if (retried.rows.some((row) => row.type === 'product')) {
          rows = retried.rows;
          correctedQuery = corrected;
        }
      }
    }
    const popular = (await this.context.popular(storeId))
      .filter((entry) => entry.normalized.startsWith(text.normalized) || entry.normalized.includes(` ${text.normalized}`))
      .slice(0, 3)
      .map((entry) => ({ type: 'query', text: entry.query, id: null, slug: null, name: null }));
    const named = rows.map((row) => ({
      type: row.type,
      text: locale === 'ar' ? row.name_ar : row.name_en,
      id: row.id,
      slug: row.slug,
      name: { en: row.name_en, ar: row.name_ar },
    }));
    const places = named.filter((row) => row.type !== 'product').slice(0, 3);
    const products = named.filter((row) => row.type === 'product');
    const items = [...popular, ...places, ...products].slice(0, MAX_SUGGESTIONS);
    return {
      page: RenderedJson.fromText(JSON.stringify({ items, query: { q, normalized: text.normalized, correctedQuery } })),
      productIds: [],
    };
  }

  private async suggestionRows(storeId: string, text: string) {
    const { rows } = await sql<{
      normalized: string;
      type: 'product' | 'category' | 'brand' | null;
      id: string | null;
      slug: string | null;
      name_en: string;
      name_ar: string;
    }>`
      with params as (
        select normalize_search_text(${text}) as normalized, search_tsquery(normalize_search_text(${text}), true) as query
      ),
      candidates as (
        select ps.product_id, ps.document from product_search ps cross join params
        -- one letter prefixes most of a catalogue: products are suggested from the second letter on
        where ${[...text.trim()].length >= MIN_PRODUCT_PREFIX} and ps.store_id = ${storeId} and ps.document @@ params.query
        limit ${SUGGESTION_CANDIDATES}
      ),
      products as (
        select 'product' as type, p.id, p.slug, p.name_en, p.name_ar, 1 as kind, ts_rank(${RANK_WEIGHTS}, c.document, params.query) as score
        from candidates c cross join params join products p on p.id = c.product_id
        order by score desc, p.id
        limit ${MAX_SUGGESTIONS}
      ),
      places as (
        select type, id, slug, name_en, name_ar, 0 as kind,
          case when (' ' || names) like ('% ' || params.pattern || '%') then 1 else word_similarity(params.normalized, names) end as score
        from (
          select 'category' as type, c.id, c.slug, c.name_en, c.name_ar, normalize_search_text(c.name_en || ' ' || c.name_ar) as names
          from categories c where c.store_id = ${storeId}
          union all
          select 'brand', b.id, b.slug, b.name_en, b.name_ar, normalize_search_text(b.name_en || ' ' || b.name_ar)
          from brands b where b.store_id = ${storeId}
        ) named
        cross join (select normalized, replace(replace(replace(normalized, '\\', '\\\\'), '%', '\\%'), '_', '\\_') as pattern from params) params
        where (' ' || names) like ('% ' || params.pattern || '%') or (length(params.normalized) >= 3 and params.normalized <% names)
      )
      select params.normalized, s.type, s.id, s.slug, s.name_en, s.name_ar
      from params left join (select * from places union all select * from products) s on true
      order by s.kind, s.score desc, s.name_en`.execute(this.db);
    return { normalized: rows[0].normalized, rows: rows.filter((row) => row.type !== null) };
  }
}
