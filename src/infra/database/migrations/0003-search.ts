import { Migration } from '@mikro-orm/migrations';

/**
 * Storefront search: one search row per active product (weighted bilingual tsvector, the product's
 * category, brand and "from" price for facets), the store's vocabulary for spelling correction, and
 * the SQL that keeps both current whatever writes the catalogue.
 *
 * Text is compared in one normalised form on both sides (documents and queries): lower case, Arabic
 * diacritics and tatweel removed, alef forms, taa marbuta, alef maqsura and hamza carriers unified,
 * Arabic-Indic and Persian digits as ASCII, accented Latin letters without their accents.
 */
export class Migration0003Search extends Migration {
  override name = '0003-search';

  override up(): void {
    this.addSql(`
      create extension if not exists pg_trgm;
      create extension if not exists btree_gin;

      create function normalize_search_text(input text) returns text
        language sql immutable strict parallel safe
        return btrim(regexp_replace(translate(
          regexp_replace(lower(input), '[\u064B-\u065F\u0670\u0640]', '', 'g'),
          'أإآٱةىؤئیک٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹àáâãäåāăąçćčďèéêëēėęěìíîïīįłñńňòóôõöøōőŕřùúûüūůűųýÿžźżšśşťğ',
          'ااااهيوييك01234567890123456789aaaaaaaaacccdeeeeeeeeiiiiiilnnnoooooooorruuuuuuuuyyzzzssstg'
        ), '[[:space:]]+', ' ', 'g'));

      -- The words of normalised text: runs of Latin or Arabic letters and digits.
      create function search_words(normalized text) returns text[]
        language sql immutable strict parallel safe
        return array(
          select distinct word
          from regexp_split_to_table(normalized, '[^a-z0-9\u00DF-\u024F\u0621-\u064A]+') as word
          where length(word) >= 1
        );

      -- A query as PostgreSQL full-text search reads it: every word must match, in English or Arabic
      -- (each with its stemmer); a word either stemmer drops as a stop word is left out, and so is an
      -- Arabic particle (PostgreSQL's Arabic stemmer has no stop words: "حقيبة من جلد" must not
      -- require the product's text to say "من"). With
      -- complete_last, the last word also matches as the beginning of a word of the names, brand or
      -- categories (typing ahead).
      -- Null when no word is left: it matches nothing.
      create function search_tsquery(normalized text, complete_last boolean default false) returns tsquery
        language plpgsql immutable strict parallel safe as $$
      declare
        words text[] := array(
          select word from regexp_split_to_table(normalized, '[^a-z0-9\u00DF-\u024F\u0621-\u064A]+') with ordinality as w(word, n)
          where word <> '' order by n limit 12);
        word_count int := coalesce(array_length(words, 1), 0);
        result tsquery;
        english tsquery;
        arabic tsquery;
        term tsquery;
      begin
        for i in 1 .. word_count loop
          english := plainto_tsquery('english', words[i]);
          arabic := plainto_tsquery('arabic', words[i]);
          if complete_last and i = word_count then
            term := english || arabic || to_tsquery('simple', words[i] || ':*AB');
          elsif numnode(english) = 0 or numnode(arabic) = 0
            or words[i] = any('{في,من,الي,عن,مع,او,ثم,و,ان,هذا,هذه,ذلك,التي,الذي,لا,ما,قد,بين,عند,حتي,كل,لل}'::text[]) then
            continue;
          else
            term := english || arabic;
          end if;
          result := case when result is null then term else result && term end;
        end loop;
        return result;
      end $$;

      create table product_search (
        product_id uuid not null constraint product_search_product_id_foreign references products (id) on delete cascade,
        store_id uuid not null constraint product_search_store_id_foreign references stores (id),
        -- copies of the product's own columns, so that filters, facets and sorts read one table
        category_id uuid null,
        brand_id uuid null,
        -- the lowest variant price ("from" price): price filters and bands classify a product by it
        min_price int null,
        currency varchar(3) null,
        created_at timestamptz not null,
        -- names A, brand and category names and SKUs B, descriptions C: what a query must match, and
        -- (names, brand and category names and SKUs only: see RANK_WEIGHTS in search.service.ts) what results are ranked by
        document tsvector not null,
        constraint product_search_pkey primary key (product_id)
      );
      -- btree_gin puts the store in the same index as the words: a search reads only its store's entries
      create index product_search_store_id_document_index on product_search using gin (store_id, document);

      create table search_terms (
        store_id uuid not null constraint search_terms_store_id_foreign references stores (id),
        term varchar(200) not null,
        -- active products whose names, brand or categories hold the word
        product_count int not null,
        constraint search_terms_pkey primary key (store_id, term)
      );
      create index search_terms_store_id_term_index on search_terms using gin (store_id, term gin_trgm_ops);

      -- The normalised names of each active product, its brand and categories: what the vocabulary counts.
      -- Apart from product_search, whose rows a broad query reads by the thousand: the narrower they are, the
      -- fewer pages it reads (a bulk write's search rows halve in size without it).
      create table product_terms (
        product_id uuid not null constraint product_terms_product_id_foreign references products (id) on delete cascade,
        store_id uuid not null constraint product_terms_store_id_foreign references stores (id),
        terms_text text not null,
        constraint product_terms_pkey primary key (product_id)
      );

      -- Recomputes the search and terms rows of the given products: active products get up-to-date rows, the others none.
      create function refresh_product_search(ids uuid[]) returns void language sql as $$
        delete from product_search ps
        where ps.product_id = any(ids) and not exists (select 1 from products p where p.id = ps.product_id and p.status = 'active');
        delete from product_terms pt
        where pt.product_id = any(ids) and not exists (select 1 from products p where p.id = pt.product_id and p.status = 'active');

        with computed as (
        select p.id, p.store_id, p.category_id, p.brand_id, v.min_price, v.currency, p.created_at, terms.text,
          -- SKUs split into their letter and digit runs, as queries are: "KLM-2" must not become the number -2
          terms.ranked || setweight(to_tsvector('simple', regexp_replace(lower(coalesce(v.skus, '')), '[^a-z0-9]+', ' ', 'g')), 'B')
            || setweight(to_tsvector('english', normalize_search_text(p.description_en)), 'C')
            || setweight(to_tsvector('arabic', normalize_search_text(p.description_ar)), 'C') as document
        from products p
        left join brands b on b.id = p.brand_id
        left join lateral (
          select string_agg(a.name_en, ' ' order by cardinality(a.path)) as names_en, string_agg(a.name_ar, ' ' order by cardinality(a.path)) as names_ar
          from categories c join categories a on a.id = any(c.path)
          where c.id = p.category_id
        ) cat on true
        left join lateral (
          select min(pv.price) as min_price, min(pv.currency) as currency, string_agg(pv.sku, ' ') as skus
          from product_variants pv where pv.product_id = p.id
        ) v on true
        cross join lateral (
          select
          -- "T-Shirt" also as "tshirt": shoppers type it both ways
          normalize_search_text(concat_ws(' ', p.name_en, nullif(replace(p.name_en, '-', ''), p.name_en), p.name_ar,
            b.name_en, b.name_ar, cat.names_en, cat.names_ar)) as text,
          setweight(to_tsvector('english', normalize_search_text(concat_ws(' ', p.name_en, nullif(replace(p.name_en, '-', ''), p.name_en)))), 'A')
            || setweight(to_tsvector('arabic', normalize_search_text(p.name_ar)), 'A')
            || setweight(to_tsvector('simple', normalize_search_text(p.name_en || ' ' || p.name_ar)), 'A')
            || setweight(to_tsvector('english', normalize_search_text(concat_ws(' ', b.name_en, cat.names_en))), 'B')
            || setweight(to_tsvector('arabic', normalize_search_text(concat_ws(' ', b.name_ar, cat.names_ar))), 'B') as ranked
        ) terms
        where p.id = any(ids) and p.status = 'active'
        ),
        -- prices, stock and SKUs change often, names seldom: most refreshes leave the terms row as it is
        terms_written as (
          insert into product_terms (product_id, store_id, terms_text)
          select id, store_id, text from computed
          on conflict (product_id) do update set store_id = excluded.store_id, terms_text = excluded.terms_text
          where (product_terms.store_id, product_terms.terms_text) is distinct from (excluded.store_id, excluded.terms_text)
        )
        insert into product_search (product_id, store_id, category_id, brand_id, min_price, currency, created_at, document)
        select id, store_id, category_id, brand_id, min_price, currency, created_at, document from computed
        on conflict (product_id) do update set
          store_id = excluded.store_id, category_id = excluded.category_id, brand_id = excluded.brand_id,
          min_price = excluded.min_price, currency = excluded.currency, created_at = excluded.created_at,
          document = excluded.document
        where (product_search.store_id, product_search.category_id, product_search.brand_id, product_search.min_price,
               product_search.currency, product_search.created_at, product_search.document)
          is distinct from (excluded.store_id, excluded.category_id, excluded.brand_id, excluded.min_price,
               excluded.currency, excluded.created_at, excluded.document);
      $$;

      -- Catalogue writes queue their products; the queue is refreshed once, when the transaction commits.
      -- An import that writes products and then their variants so computes and writes each search row once,
      -- not once per statement (which left the table at twice its size until vacuumed).
      create table product_search_pending (
        product_id uuid not null,
        constraint product_search_pending_pkey primary key (product_id)
      );

      create function queue_product_search(ids uuid[]) returns void language sql as $$
        -- in id order: two statements queueing overlapping products wait for each other in one order, never in a cycle
        insert into product_search_pending (product_id)
        select distinct id from unnest(ids) as queued(id) where id is not null order by id
        on conflict do nothing;
      $$;

      -- Fires at commit once per queued product: the first to run refreshes the whole queue, the others find
      -- their product gone from it. The queue only ever holds rows of uncommitted transactions, each seeing its own.
      create function product_search_pending_fn() returns trigger language plpgsql as $$
      declare
        queued uuid[];
      begin
        if not exists (select 1 from product_search_pending where product_id = new.product_id) then
          return null;
        end if;
        with flushed as (delete from product_search_pending returning product_id)
        select array_agg(product_id) into queued from flushed;
        perform refresh_product_search(queued);
        return null;
      end $$;

      create constraint trigger product_search_pending_flush after insert on product_search_pending
        deferrable initially deferred for each row execute function product_search_pending_fn();

      create function product_search_products_fn() returns trigger language plpgsql as $$
      begin
        perform queue_product_search(array(select id from changed_rows));
        return null;
      end $$;

      -- Stock moves with every order: only what search reads (price, currency, SKU, owner) refreshes.
      create function product_search_variants_fn() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' then
          perform queue_product_search(array(
            select n.product_id from new_rows n join old_rows o on o.id = n.id
            where (n.price, n.currency, n.sku, n.product_id) is distinct from (o.price, o.currency, o.sku, o.product_id)
            union select o.product_id from new_rows n join old_rows o on o.id = n.id where n.product_id <> o.product_id));
        elsif tg_op = 'INSERT' then
          perform queue_product_search(array(select distinct product_id from new_rows));
        else
          perform queue_product_search(array(select distinct product_id from old_rows));
        end if;
        return null;
      end $$;

      -- A renamed or moved category changes the documents of every product in its subtree.
      create function product_search_categories_fn() returns trigger language plpgsql as $$
      begin
        perform queue_product_search(array(
          select p.id from products p join categories c on c.id = p.category_id
          where c.path && array(select id from new_rows n where (n.name_en, n.name_ar, n.path) is distinct from
            (select o.name_en, o.name_ar, o.path from old_rows o where o.id = n.id))));
        return null;
      end $$;

      create function product_search_brands_fn() returns trigger language plpgsql as $$
      begin
        perform queue_product_search(array(
          select p.id from products p join new_rows n on n.id = p.brand_id join old_rows o on o.id = n.id
          where (n.name_en, n.name_ar) is distinct from (o.name_en, o.name_ar)));
        return null;
      end $$;

      create type search_term_change as (store_id uuid, term text, change int);
      create function apply_search_term_changes(changes search_term_change[]) returns void language sql as $$
        insert into search_terms (store_id, term, product_count)
        select store_id, term, sum(change)::int from unnest(changes)
        where length(term) between 2 and 200
        group by store_id, term
        having sum(change) <> 0
        -- one lock order for every writer: concurrent catalogue writes cannot deadlock here
        order by store_id, term
        on conflict (store_id, term) do update set product_count = search_terms.product_count + excluded.product_count;
      $$;

      -- The store's vocabulary: +1 for every word of a new terms row, -1 for every word of a removed one.
      -- A word whose count reaches 0 keeps its row (readers skip it): no delete scan on every write.
      create function search_terms_fn() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform apply_search_term_changes(array(
            select row(n.store_id, w.term, 1)::search_term_change from new_rows n cross join unnest(search_words(n.terms_text)) as w(term)));
        elsif tg_op = 'UPDATE' then
          -- most updates (prices, SKUs) leave the words alone
          perform apply_search_term_changes(array(
            select row(n.store_id, w.term, 1)::search_term_change
            from new_rows n join old_rows o on o.product_id = n.product_id cross join unnest(search_words(n.terms_text)) as w(term)
            where n.terms_text is distinct from o.terms_text or n.store_id <> o.store_id
            union all
            select row(o.store_id, w.term, -1)::search_term_change
            from old_rows o join new_rows n on n.product_id = o.product_id cross join unnest(search_words(o.terms_text)) as w(term)
            where n.terms_text is distinct from o.terms_text or n.store_id <> o.store_id));
        else
          perform apply_search_term_changes(array(
            select row(o.store_id, w.term, -1)::search_term_change from old_rows o cross join unnest(search_words(o.terms_text)) as w(term)));
        end if;
        return null;
      end $$;
    `);
    // plpgsql cannot name a transition table its trigger does not declare, even in a branch that does not run.
    for (const [event, past, referencing] of [
      ['insert', 'inserted', 'new table as new_rows'],
      ['update', 'updated', 'old table as old_rows new table as new_rows'],
      ['delete', 'deleted', 'old table as old_rows'],
    ]) {
      this.addSql(`
        create trigger product_terms_vocabulary_${past} after ${event} on product_terms
          referencing ${referencing} for each statement execute function search_terms_fn();
        create trigger product_variants_search_${past} after ${event} on product_variants
          referencing ${referencing} for each statement execute function product_search_variants_fn();
      `);
    }
    this.addSql(`
      create trigger products_search_inserted after insert on products
        referencing new table as changed_rows for each statement execute function product_search_products_fn();
      create trigger products_search_updated after update on products
        referencing new table as changed_rows for each statement execute function product_search_products_fn();
      create trigger categories_search_updated after update on categories
        referencing old table as old_rows new table as new_rows for each statement execute function product_search_categories_fn();
      create trigger brands_search_updated after update on brands
        referencing old table as old_rows new table as new_rows for each statement execute function product_search_brands_fn();

      select refresh_product_search(array(select id from products));
    `);
  }
}
