import { KeysetExport } from '../../infra/database/record-export.js';

/**
 * How the data hub's exports read the catalogue (structures products, variants, stock, prices,
 * categories and brands): references to other records by their slugs, as imports take them.
 */
export const productsExport = new KeysetExport(`
    select p.slug, p.name_en, p.name_ar, p.description_en, p.description_ar, c.slug as category, b.slug as brand, p.status
    from products p left join categories c on c.id = p.category_id left join brands b on b.id = p.brand_id
    where p.store_id = $1 and ($2::text is null or p.slug > $2) order by p.slug limit $3`);

export const variantsExport = new KeysetExport(`
    select v.sku, p.slug as product, v.price, v.compare_at_price, v.stock, v.position
    from product_variants v join products p on p.id = v.product_id
    where v.store_id = $1 and ($2::text is null or v.sku > $2) order by v.sku limit $3`);

export const stockExport = new KeysetExport(`
    select v.sku, v.stock from product_variants v
    where v.store_id = $1 and ($2::text is null or v.sku > $2) order by v.sku limit $3`);

export const pricesExport = new KeysetExport(`
    select v.sku, v.price, v.compare_at_price from product_variants v
    where v.store_id = $1 and ($2::text is null or v.sku > $2) order by v.sku limit $3`);

export const categoriesExport = new KeysetExport(`
    select c.slug, c.name_en, c.name_ar, c.description_en, c.description_ar, parent.slug as parent, c.position
    from categories c left join categories parent on parent.id = c.parent_id
    where c.store_id = $1 and ($2::text is null or c.slug > $2) order by c.slug limit $3`);

export const brandsExport = new KeysetExport(`
    select b.slug, b.name_en, b.name_ar, b.description_en, b.description_ar from brands b
    where b.store_id = $1 and ($2::text is null or b.slug > $2) order by b.slug limit $3`);
