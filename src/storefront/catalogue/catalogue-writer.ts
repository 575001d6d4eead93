import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Bilingual } from '../../common/bilingual.js';

const BATCH_ROWS = 1000;

export interface CategoryInput {
  /** Names the category within this input; `parentKey` refers to another category's key. */
  key: string;
  parentKey: string | null;
  slug: string;
  name: Bilingual;
  description: Bilingual;
  position: number;
}

export interface BrandInput {
  key: string;
  slug: string;
  name: Bilingual;
  description: Bilingual;
}

export interface VariantInput {
  sku: string;
  options: { name: Bilingual; value: Bilingual }[];
  price: number;
  compareAtPrice: number | null;
  stock: number;
}

export interface ProductInput {
  slug: string;
  name: Bilingual;
  description: Bilingual;
  categoryKey: string;
  brandKey: string;
  variants: VariantInput[];
}

/** A whole catalogue to write into an empty store, whoever made it (the demo generator, an import). */
export interface CatalogueInput {
  currency: string;
  categories: CategoryInput[];
  brands: BrandInput[];
  products: ProductInput[];
}

export interface CatalogueCounts {
  categories: number;
  brands: number;
  products: number;
  variants: number;
}

/** Writes a whole catalogue into one empty store, all or nothing, in batched multi-row inserts. */
@Injectable()
export class CatalogueWriter {
  constructor(private readonly em: EntityManager) {}

  async writeInto(storeId: string, catalogue: CatalogueInput): Promise<CatalogueCounts> {
    const counts = await this.write(storeId, catalogue);
    // Fresh statistics, or the planner keeps its empty-table guesses until autovacuum runs.
    await sql`analyze categories, brands, products, product_variants`.execute(this.em.getKysely());
    return counts;
  }

  private write(storeId: string, catalogue: CatalogueInput): Promise<CatalogueCounts> {
    return this.em.fork().transactional(async (em) => {
      const db = em.getKysely() as unknown as Kysely<unknown>;
      const existing = await sql<{ count: number }>`select count(*)::int as count from products where store_id = ${storeId}`.execute(db);
      if (existing.rows[0].count > 0) throw new CatalogueNotEmptyError(storeId);

      const categoryIds = new Map(catalogue.categories.map((category) => [category.key, randomUUID()]));
      const pathOf = (key: string): string[] => {
        const category = catalogue.categories.find((candidate) => candidate.key === key)!;
        return [...(category.parentKey ? pathOf(category.parentKey) : []), categoryIds.get(key)!];
      };
      await insertRows(
        db,
        'categories',
        ['id', 'store_id', 'parent_id', 'path', 'slug', 'name_en', 'name_ar', 'description_en', 'description_ar', 'position'],
        catalogue.categories.map((c) => [
          categoryIds.get(c.key),
          storeId,
          c.parentKey ? categoryIds.get(c.parentKey) : null,
          `{${pathOf(c.key).join(',')}}`,
          c.slug,
          c.name.en,
          c.name.ar,
          c.description.en,
          c.description.ar,
          c.position,
        ]),
      );

      const brandIds = new Map(catalogue.brands.map((brand) => [brand.key, randomUUID()]));
      await insertRows(
        db,
        'brands',
        ['id', 'store_id', 'slug', 'name_en', 'name_ar', 'description_en', 'description_ar'],
        catalogue.brands.map((b) => [brandIds.get(b.key), storeId, b.slug, b.name.en, b.name.ar, b.description.en, b.description.ar]),
      );

      // Spread creation times over the past year so "newest first" means something.
      const now = Date.now();
      const productRows: unknown[][] = [];
      const variantRows: unknown[][] = [];
      catalogue.products.forEach((product, index) => {
        const id = randomUUID();
        const createdAt = new Date(now - (catalogue.products.length - index) * ((365 * 86_400_000) / catalogue.products.length));
        productRows.push([
          id,
          storeId,
          categoryIds.get(product.categoryKey),
          brandIds.get(product.brandKey),
          product.slug,
          product.name.en,
          product.name.ar,
          product.description.en,
          product.description.ar,
          createdAt,
          createdAt,
        ]);
        product.variants.forEach((variant, position) =>
          variantRows.push([
            randomUUID(),
            storeId,
            id,
            variant.sku,
            JSON.stringify(variant.options),
            variant.price,
            variant.compareAtPrice,
            catalogue.currency,
            variant.stock,
            position,
            createdAt,
          ]),
        );
      });
      await insertRows(
        db,
        'products',
        [
          'id',
          'store_id',
          'category_id',
          'brand_id',
          'slug',
          'name_en',
          'name_ar',
          'description_en',
          'description_ar',
          'created_at',
          'updated_at',
        ],
        productRows,
      );
      await insertRows(
        db,
        'product_variants',
        ['id', 'store_id', 'product_id', 'sku', 'options', 'price', 'compare_at_price', 'currency', 'stock', 'position', 'created_at'],
        variantRows,
      );
      return {
        categories: catalogue.categories.length,
        brands: catalogue.brands.length,
        products: productRows.length,
        variants: variantRows.length,
      };
    });
  }
}

/** Sets when products went on sale (epoch seconds), their variants with them: for catalogues that arrive with a history. */
export async function backdateProducts(db: Kysely<any>, storeId: string, productIds: string[], createdAt: number[]): Promise<void> {
  await sql`
    update products p set created_at = to_timestamp(l.at), updated_at = to_timestamp(l.at)
    from unnest(${productIds}::uuid[], ${createdAt}::float8[]) as l(id, at) where p.id = l.id and p.store_id = ${storeId}`.execute(db);
  await sql`
    update product_variants v set created_at = p.created_at
    from products p where p.id = v.product_id and p.store_id = ${storeId}`.execute(db);
}

export class CatalogueNotEmptyError extends Error {
  constructor(storeId: string) {
    super(`store ${storeId} already has a catalogue; a whole catalogue is only written into an empty store`);
  }
}

async function insertRows(db: Kysely<unknown>, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  for (let start = 0; start < rows.length; start += BATCH_ROWS) {
    const batch = rows.slice(start, start + BATCH_ROWS);
    const values = sql.join(batch.map((row) => sql`(${sql.join(row.map((value) => sql`${value}`))})`));
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))}) values ${values}`.execute(db);
  }
}
