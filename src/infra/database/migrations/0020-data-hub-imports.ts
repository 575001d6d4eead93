import { Migration } from '@mikro-orm/migrations';

/**
 * Imports of every structure. A preview may read only a file's first rows (`first_rows`).
 *
 * The categories' search trigger compared a row with a subquery of three columns, which PostgreSQL
 * refuses ("subquery must return only one column"): any update of categories failed. Nothing updated
 * them until the data hub's categories import; now a renamed or moved category refreshes the search
 * documents of its subtree's products, as intended.
 */
export class Migration0020DataHubImports extends Migration {
  override name = '0020-data-hub-imports';

  override up(): void {
    this.addSql(`
      alter table data_hub_runs add column first_rows int null;

      create or replace function product_search_categories_fn() returns trigger language plpgsql as $$
      begin
        perform queue_product_search(array(
          select p.id from products p join categories c on c.id = p.category_id
          where c.path && array(select n.id from new_rows n join old_rows o on o.id = n.id
                                where (n.name_en, n.name_ar, n.path) is distinct from (o.name_en, o.name_ar, o.path))));
        return null;
      end $$;
    `);
  }
}
