import type { PoolClient } from 'pg';
import { KeyedImport } from '../../infra/database/keyed-import.js';
import { IMPORT_STAGING, resolveReferences, type StagedRejection, type StagedRow } from '../../infra/database/record-import.js';

/**
 * How the data hub's imports write the catalogue (structures products, variants, stock, prices,
 * categories and brands): the catalogue's tables, their natural keys, what a new record gets, and what
 * `replace` deactivates. Changes go through the tables' triggers, so the catalogue cache, search and
 * Insights see them as they see any other write.
 */
const NAMES = {
  name_en: 'name_en',
  name_ar: 'name_ar',
  description_en: { column: 'description_en', clearedTo: "''" },
  description_ar: { column: 'description_ar', clearedTo: "''" },
};
const NAME_COLUMNS = { name_en: 'text', name_ar: 'text', description_en: 'text', description_ar: 'text' } as const;
const NEW_NAMES = {
  name_en: 's.name_en',
  name_ar: 's.name_ar',
  description_en: "coalesce(s.description_en, '')",
  description_ar: "coalesce(s.description_ar, '')",
};

const VARIANT = { en: 'variant with SKU', ar: 'صنف برمز' };
/** A variant out of stock is what `replace` leaves of one the file no longer holds (variants have no status). */
const VARIANT_DEACTIVATION = { active: 'r.stock > 0', set: { stock: '0' } };
const COMPARE_AT_PRICE = { column: 'compare_at_price', clearedTo: 'null' };
/** A slug as a file writes it, for a column holding the id of a record of `table`. */
const slugOf = (table: string) => (id: string) => `(select slug from ${table} where id = ${id})`;
/** No product is in the category, and no category under it but those removed with it (SQL over `r`). */
const categoryUnused = (removed: string) =>
  `not exists (select 1 from products p where p.category_id = r.id)
   and not exists (select 1 from categories c where c.parent_id = r.id and c.id not in ${removed})`;

export const stockImport = new KeyedImport(
  { table: 'product_variants', key: 'sku', keyField: 'sku', sets: { stock: 'stock' }, deactivation: VARIANT_DEACTIVATION, noun: VARIANT },
  { stock: 'int' },
);

export const pricesImport = new KeyedImport(
  { table: 'product_variants', key: 'sku', keyField: 'sku', sets: { price: 'price', compare_at_price: COMPARE_AT_PRICE }, noun: VARIANT },
  { price: 'int', compare_at_price: 'int' },
);

export const variantsImport = new KeyedImport(
  {
    table: 'product_variants',
    key: 'sku',
    keyField: 'sku',
    sets: {
      product_id: { column: 'product_id', field: 'product', shown: slugOf('products') },
      price: 'price',
      compare_at_price: COMPARE_AT_PRICE,
      stock: 'stock',
      position: 'position',
    },
    creates: {
      product_id: 's.product_id',
      options: `'[]'::jsonb`,
      price: 's.price',
      compare_at_price: 's.compare_at_price',
      currency: '(select currency from stores where id = $1)',
      stock: 'coalesce(s.stock, 0)',
      position: 'coalesce(s.position, 0)',
    },
    deactivation: VARIANT_DEACTIVATION,
    noun: VARIANT,
  },
  { product: 'text', price: 'int', compare_at_price: 'int', stock: 'int', position: 'int' },
  { product_id: 'uuid' },
  {
    resolve: (client, storeId) =>
      resolveReferences(client, storeId, [
        { field: 'product', into: 'product_id', table: 'products', key: 'slug', noun: { en: 'product', ar: 'منتجًا بالمعرّف' } },
      ]),
  },
);

export const productsImport = new KeyedImport(
  {
    table: 'products',
    key: 'slug',
    keyField: 'slug',
    sets: {
      ...NAMES,
      category_id: { column: 'category_id', field: 'category', shown: slugOf('categories'), clearedTo: 'null' },
      brand_id: { column: 'brand_id', field: 'brand', shown: slugOf('brands'), clearedTo: 'null' },
      status: 'status',
    },
    touch: 'updated_at = now()',
    creates: { ...NEW_NAMES, category_id: 's.category_id', brand_id: 's.brand_id', status: "coalesce(s.status, 'active')" },
    deactivation: { active: "r.status <> 'archived'", set: { status: "'archived'::text" } },
    noun: { en: 'product', ar: 'منتجًا بالمعرّف' },
  },
  { ...NAME_COLUMNS, category: 'text', brand: 'text', status: 'text' },
  { category_id: 'uuid', brand_id: 'uuid' },
  {
    resolve: (client, storeId) =>
      resolveReferences(client, storeId, [
        { field: 'category', into: 'category_id', table: 'categories', key: 'slug', noun: { en: 'category', ar: 'فئة بالمعرّف' } },
        { field: 'brand', into: 'brand_id', table: 'brands', key: 'slug', noun: { en: 'brand', ar: 'علامة تجارية بالمعرّف' } },
      ]),
  },
);

export const brandsImport = new KeyedImport(
  {
    table: 'brands',
    key: 'slug',
    keyField: 'slug',
    sets: NAMES,
    creates: NEW_NAMES,
    unused: () => 'not exists (select 1 from products p where p.brand_id = r.id)',
    noun: { en: 'brand', ar: 'علامة تجارية بالمعرّف' },
  },
  NAME_COLUMNS,
);

export const categoriesImport = new KeyedImport(
  {
    table: 'categories',
    key: 'slug',
    keyField: 'slug',
    sets: {
      ...NAMES,
      parent_id: { column: 'parent_id', field: 'parent', shown: slugOf('categories'), clearedTo: 'null' },
      position: 'position',
    },
    creates: { id: 's.id', ...NEW_NAMES, parent_id: 's.parent_id', path: 'array[s.id]', position: 'coalesce(s.position, 0)' },
    unused: categoryUnused,
    noun: { en: 'category', ar: 'فئة بالمعرّف' },
  },
  { ...NAME_COLUMNS, parent: 'text', position: 'int' },
  { id: 'uuid', parent_id: 'uuid' },
  { resolve: resolveParents, applied: refreshCategoryPaths },
);

/**
 * A category's parent is a category of the store or one the same file creates. Rows apply in the
 * file's order: one that would put a category inside itself (directly or through the rows before it)
 * is rejected, and so is a row naming a parent that is neither in the store nor in the file (nor
 * rejected): every category still reaches a root.
 */
async function resolveParents(client: PoolClient, storeId: string): Promise<StagedRejection[]> {
  await client.query(
    `update ${IMPORT_STAGING} s set id = coalesce((select c.id from categories c where c.store_id = $1 and c.slug = s.key), gen_random_uuid())`,
    [storeId],
  );
  const rejected: StagedRejection[] = [];
  const reject = (row: StagedRow, code: string, en: string, ar: string) =>
    rejected.push({ row, errors: [{ field: 'parent', code, message_en: en, message_ar: ar }] });
  await resolveParentIds(client, storeId);
  const { rows: existing } = await client.query<{ id: string; parent_id: string | null }>(
    `select id, parent_id from categories where store_id = $1`,
    [storeId],
  );
  const parents = new Map(existing.map((category) => [category.id, category.parent_id]));
  const { rows: staged } = await client.query<StagedRow & { id: string; parent: string; parent_id: string }>(
    `select * from ${IMPORT_STAGING} where parent_id is not null order by line`,
  );
  for (const row of staged) if (!parents.has(row.id)) parents.set(row.id, null);
  const cyclic: number[] = [];
  for (const row of staged) {
    let above: string | null = row.parent_id;
    while (above !== null && above !== row.id) above = parents.get(above) ?? null;
    if (above === row.id) {
      cyclic.push(row.line);
      reject(
        row,
        'parent_cycle',
        `Under ${row.parent}, ${row.key} would end up inside itself.`,
        `تحت ${row.parent} ستصبح ${row.key} داخل نفسها.`,
      );
    } else parents.set(row.id, row.parent_id);
  }
  // Ids resolved above stay right until rows are removed: resolve again only after a removal.
  if (cyclic.length > 0) {
    await client.query(`delete from ${IMPORT_STAGING} where line = any($1::int[])`, [cyclic]);
    await resolveParentIds(client, storeId);
  }
  for (;;) {
    const { rows } = await client.query<StagedRow & { parent: string }>(
      `delete from ${IMPORT_STAGING} s where s.parent is not null and s.parent_id is null returning s.*`,
    );
    if (rows.length === 0) return rejected;
    for (const row of rows) {
      reject(
        row,
        'unknown_reference',
        `The store has no category ${row.parent}, and no accepted row of the file creates it.`,
        `لا يوجد في المتجر فئة بالمعرّف ${row.parent}، ولا يُنشئها أي صف مقبول في الملف.`,
      );
    }
    await resolveParentIds(client, storeId);
  }
}

/** Each staged parent slug as the id of the file's row or the store's category of that slug. */
async function resolveParentIds(client: PoolClient, storeId: string): Promise<void> {
  await client.query(
    `update ${IMPORT_STAGING} s set parent_id = coalesce(
       (select p.id from ${IMPORT_STAGING} p where p.key = s.parent),
       (select c.id from categories c where c.store_id = $1 and c.slug = s.parent))
     where s.parent is not null`,
    [storeId],
  );
}

/** Each category's path (ids from the root down) after parents moved or categories arrived. */
async function refreshCategoryPaths(client: PoolClient, storeId: string): Promise<void> {
  await client.query(
    `with recursive tree as (
       select id, array[id] as path from categories where store_id = $1 and parent_id is null
       union all
       select c.id, t.path || c.id from categories c join tree t on c.parent_id = t.id)
     update categories c set path = t.path from tree t where c.id = t.id and c.path is distinct from t.path`,
    [storeId],
  );
}
