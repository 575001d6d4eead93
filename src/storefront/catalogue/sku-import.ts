import type { PoolClient } from 'pg';

/**
 * Imports keyed by SKU into the store's variants (the data hub's `stock` and `prices` structures): the
 * catalogue owns the writes, the data hub hands over a staging table of the file's valid rows, inside
 * the run's transaction. Cells left empty (null) leave the variant's value as it is. Rows are locked in
 * id order before they change, as checkout takes them, so an import and a checkout cannot deadlock.
 */
export const SKU_IMPORT_COLUMNS = ['stock', 'price', 'compare_at_price'] as const;
export type SkuImportColumn = (typeof SKU_IMPORT_COLUMNS)[number];

/** The staging table the caller fills: `line`, `key` (the SKU) and the imported columns. */
export const SKU_STAGING = 'data_hub_sku_staging';

export async function createSkuStaging(client: PoolClient): Promise<void> {
  await client.query(`
    create temp table ${SKU_STAGING} (line int primary key, key text not null, stock int, price int, compare_at_price int)
    on commit drop`);
}

export interface SkuImportPlan {
  /** Staged rows whose SKU the store does not have: the structure creates nothing. */
  unknown: { line: number; key: string }[];
  changed: number;
  unchanged: number;
  /** Variants with stock that the file does not hold (what `replace` would set to 0). */
  wouldDeactivate: number;
  /** Variants with stock: the base of the shrink guard's share. */
  activeRecords: number;
}

/** What applying the staged rows would do; nothing is written. */
export async function planSkuImport(client: PoolClient, storeId: string, columns: readonly SkuImportColumn[]): Promise<SkuImportPlan> {
  const { rows: unknown } = await client.query<{ line: number; key: string }>(
    `select s.line, s.key from ${SKU_STAGING} s
     where not exists (select 1 from product_variants v where v.store_id = $1 and v.sku = s.key) order by s.line`,
    [storeId],
  );
  const differs = columns.map((column) => `(s.${column} is not null and s.${column} is distinct from v.${column})`).join(' or ');
  const { rows } = await client.query<{ changed: string; unchanged: string; would_deactivate: string; active: string }>(
    `select
       (select count(*) from ${SKU_STAGING} s join product_variants v on v.store_id = $1 and v.sku = s.key where ${differs}) as changed,
       (select count(*) from ${SKU_STAGING} s join product_variants v on v.store_id = $1 and v.sku = s.key where not (${differs})) as unchanged,
       (select count(*) from product_variants v where v.store_id = $1 and v.stock > 0
          and not exists (select 1 from ${SKU_STAGING} s where s.key = v.sku)) as would_deactivate,
       (select count(*) from product_variants v where v.store_id = $1 and v.stock > 0) as active`,
    [storeId],
  );
  return {
    unknown,
    changed: Number(rows[0].changed),
    unchanged: Number(rows[0].unchanged),
    wouldDeactivate: Number(rows[0].would_deactivate),
    activeRecords: Number(rows[0].active),
  };
}

/** The variants `replace` would set to 0 (with stock, not in the file), by SKU: what a preview lists. */
export async function skusToDeactivate(client: PoolClient, storeId: string): Promise<{ key: string; recordId: string }[]> {
  const { rows } = await client.query<{ key: string; id: string }>(
    `select v.sku as key, v.id from product_variants v
     where v.store_id = $1 and v.stock > 0 and not exists (select 1 from ${SKU_STAGING} s where s.key = v.sku) order by v.sku`,
    [storeId],
  );
  return rows.map((row) => ({ key: row.key, recordId: row.id }));
}

/** Writes the staged values; with `replace`, variants the file does not hold get a stock of 0 (returned). */
export async function applySkuImport(
  client: PoolClient,
  storeId: string,
  columns: readonly SkuImportColumn[],
  replace: boolean,
): Promise<{ deactivated: { key: string; recordId: string }[] }> {
  await client.query(
    `select v.id from product_variants v
     where v.store_id = $1 and (exists (select 1 from ${SKU_STAGING} s where s.key = v.sku) or ($2 and v.stock > 0))
     order by v.id for no key update`,
    [storeId, replace],
  );
  const assignments = columns.map((column) => `${column} = coalesce(s.${column}, v.${column})`).join(', ');
  const differs = columns.map((column) => `(s.${column} is not null and s.${column} is distinct from v.${column})`).join(' or ');
  await client.query(
    `update product_variants v set ${assignments} from ${SKU_STAGING} s where v.store_id = $1 and v.sku = s.key and (${differs})`,
    [storeId],
  );
  if (!replace) return { deactivated: [] };
  const { rows } = await client.query<{ key: string; id: string }>(
    `update product_variants v set stock = 0
     where v.store_id = $1 and v.stock > 0 and not exists (select 1 from ${SKU_STAGING} s where s.key = v.sku)
     returning v.sku as key, v.id`,
    [storeId],
  );
  return { deactivated: rows.map((row) => ({ key: row.key, recordId: row.id })).sort((a, b) => a.key.localeCompare(b.key)) };
}
