import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { ApiError } from '../../common/errors/api-error.js';
import { decodeCursor, UTC_MICROS_PATTERN, UUID_PATTERN } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { bilingual, matchesIdOrSlug, PRODUCT_DOCUMENT, PRODUCT_JOINS, reference } from './catalogue.queries.js';
import { RenderedJson, renderPage } from '../../infra/http/rendered-json.js';
import type { CataloguePage } from './catalogue-cache.js';
import type { ListCategoriesQuery } from './dto/list-categories.query.js';
import type { ListProductsQuery } from './dto/list-products.query.js';

/** One response document as JSON text, built by PostgreSQL. */
interface DocumentRow {
  doc: string;
}

/**
 * Read side of the catalogue. Every query is bounded by the caller's store: there is no other way in.
 * PostgreSQL builds the JSON documents (shapes in dto/catalogue.response.ts) and hands them over as
 * text, which goes out as it is: no parse and re-serialise per request.
 */
@Injectable()
export class CatalogueService {
  constructor(private readonly em: EntityManager) {}

  private get db() {
    return this.em.getKysely();
  }

  async listProducts(storeId: string, query: ListProductsQuery): Promise<CataloguePage> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor<[string, string]>(query.cursor, [UTC_MICROS_PATTERN, UUID_PATTERN]) : undefined;
    const { rows } = await sql<DocumentRow & { id: string; sort_at: string }>`
      select ${PRODUCT_DOCUMENT}::text as doc, p.id, iso_utc_micros(p.created_at) as sort_at
      from products p
      ${PRODUCT_JOINS}
      where p.store_id = ${storeId} and p.status = 'active'
      ${query.category ? sql`and p.category_id in (select sub.id from categories sub where sub.store_id = ${storeId} and sub.path @> array[(select cat.id from categories cat where cat.store_id = ${storeId} and ${matchesIdOrSlug('cat', query.category)})])` : sql``}
      ${query.brand ? sql`and p.brand_id = (select br.id from brands br where br.store_id = ${storeId} and ${matchesIdOrSlug('br', query.brand)})` : sql``}
      ${after ? sql`and (p.created_at, p.id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql``}
      order by p.created_at desc, p.id desc
      limit ${limit + 1}`.execute(this.db);
    return { page: renderPage(rows, limit, (row) => [row.sort_at, row.id]), productIds: rows.slice(0, limit).map((row) => row.id) };
  }

  async getProduct(storeId: string, idOrSlug: string): Promise<CataloguePage> {
    const { rows } = await sql<DocumentRow & { id: string }>`
      select ${PRODUCT_DOCUMENT}::text as doc, p.id
      from products p
      ${PRODUCT_JOINS}
      where p.store_id = ${storeId} and p.status = 'active' and ${matchesIdOrSlug('p', idOrSlug)}`.execute(this.db);
    return { page: found(rows[0]?.doc), productIds: rows.map((row) => row.id) };
  }

  async listCategories(storeId: string, query: ListCategoriesQuery): Promise<CataloguePage> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor<[number, number, string]>(query.cursor, ['number', 'number', 'string']) : undefined;
    let parentFilter = sql``;
    if (query.parent === 'root') parentFilter = sql`and c.parent_id is null`;
    else if (query.parent) {
      parentFilter = sql`and c.parent_id = (select par.id from categories par where par.store_id = ${storeId} and ${matchesIdOrSlug('par', query.parent)})`;
    }
    const { rows } = await sql<DocumentRow & { depth: number; position: number; slug: string }>`
      select ${categoryDocument()}::text as doc, cardinality(c.path) - 1 as depth, c.position, c.slug
      from categories c
      where c.store_id = ${storeId} ${parentFilter}
      ${after ? sql`and (cardinality(c.path) - 1, c.position, c.slug) > (${after[0]}, ${after[1]}, ${after[2]})` : sql``}
      order by cardinality(c.path), c.position, c.slug
      limit ${limit + 1}`.execute(this.db);
    return withoutStock(renderPage(rows, limit, (row) => [row.depth, row.position, row.slug]));
  }

  async getCategory(storeId: string, idOrSlug: string): Promise<CataloguePage> {
    const { rows } = await sql<DocumentRow>`
      select (${categoryDocument()}::jsonb || jsonb_build_object(
        'ancestors', (select coalesce(jsonb_agg(${reference('a')} order by cardinality(a.path)), '[]')
                      from categories a where a.id = any(c.path) and a.id <> c.id),
        'children', (select coalesce(jsonb_agg(${reference('ch')} order by ch.position, ch.slug), '[]')
                     from categories ch where ch.parent_id = c.id)
      ))::text as doc
      from categories c
      where c.store_id = ${storeId} and ${matchesIdOrSlug('c', idOrSlug)}`.execute(this.db);
    return withoutStock(found(rows[0]?.doc));
  }

  async listBrands(storeId: string, query: ListQueryDto): Promise<CataloguePage> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor<[string]>(query.cursor, ['string']) : undefined;
    const { rows } = await sql<DocumentRow & { slug: string }>`
      select ${brandDocument()}::text as doc, b.slug
      from brands b
      where b.store_id = ${storeId} ${after ? sql`and b.slug > ${after[0]}` : sql``}
      order by b.slug
      limit ${limit + 1}`.execute(this.db);
    return withoutStock(renderPage(rows, limit, (row) => [row.slug]));
  }

  async getBrand(storeId: string, idOrSlug: string): Promise<CataloguePage> {
    const { rows } = await sql<DocumentRow>`
      select ${brandDocument()}::text as doc
      from brands b
      where b.store_id = ${storeId} and ${matchesIdOrSlug('b', idOrSlug)}`.execute(this.db);
    return withoutStock(found(rows[0]?.doc));
  }
}

function categoryDocument() {
  return sql`json_build_object(
    'id', c.id, 'slug', c.slug, 'name', ${bilingual('c', 'name')}, 'description', ${bilingual('c', 'description')},
    'parentId', c.parent_id, 'depth', cardinality(c.path) - 1, 'position', c.position,
    'childCount', (select count(*) from categories ch where ch.parent_id = c.id)::int)`;
}

function brandDocument() {
  return sql`json_build_object(
    'id', b.id, 'slug', b.slug, 'name', ${bilingual('b', 'name')}, 'description', ${bilingual('b', 'description')},
    'productCount', (select count(*) from products bp where bp.brand_id = b.id and bp.status = 'active')::int)`;
}

function found(document: string | undefined): RenderedJson {
  if (!document) throw new ApiError('NOT_FOUND');
  return RenderedJson.fromText(document);
}

/** Categories and brands show no stock: a stock change never needs to drop them. */
function withoutStock(page: RenderedJson): CataloguePage {
  return { page, productIds: [] };
}
