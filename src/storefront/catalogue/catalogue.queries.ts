import { sql, type RawBuilder } from 'kysely';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';

/** `{idOrSlug}` paths: a UUID matches the id, anything else the store-unique slug. */
export function matchesIdOrSlug(alias: string, idOrSlug: string): RawBuilder<unknown> {
  return UUID_PATTERN.test(idOrSlug) ? sql`${sql.ref(`${alias}.id`)} = ${idOrSlug}::uuid` : sql`${sql.ref(`${alias}.slug`)} = ${idOrSlug}`;
}

export function bilingual(alias: string, field: 'name' | 'description'): RawBuilder<unknown> {
  return sql`json_build_object('en', ${sql.ref(`${alias}.${field}_en`)}, 'ar', ${sql.ref(`${alias}.${field}_ar`)})`;
}

/** `{ id, slug, name }` of a category or brand, as embedded in other documents. */
export function reference(alias: string): RawBuilder<unknown> {
  return sql`json_build_object('id', ${sql.ref(`${alias}.id`)}, 'slug', ${sql.ref(`${alias}.slug`)}, 'name', ${bilingual(alias, 'name')})`;
}

/**
 * One product document per row, built by PostgreSQL: variants, price range and availability in a
 * single lateral aggregate, so a page of products is one query.
 */
export const PRODUCT_DOCUMENT = sql`
  json_build_object(
    'id', p.id,
    'slug', p.slug,
    'name', ${bilingual('p', 'name')},
    'description', ${bilingual('p', 'description')},
    'category', case when c.id is null then null else ${reference('c')} end,
    'brand', case when b.id is null then null else ${reference('b')} end,
    'priceRange', json_build_object('min', v.min_price, 'max', v.max_price, 'currency', v.currency),
    'inStock', coalesce(v.in_stock, false),
    'variants', v.variants,
    'createdAt', iso_utc(p.created_at),
    'updatedAt', iso_utc(p.updated_at)
  )`;

export const PRODUCT_JOINS = sql`
  left join categories c on c.id = p.category_id
  left join brands b on b.id = p.brand_id
  cross join lateral (
    select min(pv.price) as min_price, max(pv.price) as max_price, min(pv.currency) as currency, bool_or(pv.stock > 0) as in_stock,
           coalesce(json_agg(json_build_object(
             'id', pv.id, 'sku', pv.sku, 'options', pv.options, 'price', pv.price, 'compareAtPrice', pv.compare_at_price,
             'currency', pv.currency, 'stock', pv.stock, 'inStock', pv.stock > 0
           ) order by pv.position, pv.sku), '[]') as variants
    from product_variants pv
    where pv.product_id = p.id
  ) v`;
