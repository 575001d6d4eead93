import { sql, type Kysely } from 'kysely';

/** Fewer matches than this and the query is checked for typos against the store's vocabulary. */
export const FEW_RESULTS = 3;
/** The same split into words as the SQL `search_words` and `search_tsquery` make. */
const WORD_SEPARATOR = /[^a-z0-9\u00DF-\u024F\u0621-\u064A]+/;

/**
 * Edit distance with adjacent transpositions counted as one edit (optimal string alignment): "shrit"
 * is one edit from "shirt", as a shopper's fingers see it.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The words one swap of neighbouring letters away: trigram similarity misses these. */
export function transpositions(word: string): string[] {
  const letters = [...word];
  const variants = new Set<string>();
  for (let i = 0; i + 1 < letters.length; i++) {
    if (letters[i] === letters[i + 1]) continue;
    const swapped = letters.slice();
    [swapped[i], swapped[i + 1]] = [swapped[i + 1], swapped[i]];
    variants.add(swapped.join(''));
  }
  return [...variants];
}

/** How many edits a correction of a word this long may make. */
export function allowedEdits(word: string): number {
  const length = [...word].length;
  if (length < 3) return 0;
  return length <= 5 ? 1 : 2;
}

/**
 * The query with each word the store does not know replaced by the closest word it does (at most
 * one edit for short words, two for longer ones; a swap of neighbours is one edit), or null when
 * nothing changes. Candidates come from the trigram index of the store's vocabulary plus the
 * words one swap away.
 */
export async function correctQuery(db: Kysely<any>, storeId: string, normalized: string): Promise<string | null> {
  return (await correctQueries(db, storeId, [normalized])).get(normalized) ?? null;
}

/**
 * correctQuery for many queries in one statement (the demo seeder records what search found for
 * thousands): each query that changes, mapped to its correction.
 */
export async function correctQueries(db: Kysely<any>, storeId: string, queries: string[]): Promise<Map<string, string>> {
  const wordsOf = new Map(queries.map((query) => [query, query.split(WORD_SEPARATOR).filter((word) => word !== '')]));
  const unknown = [...new Set([...wordsOf.values()].flat().filter((word) => allowedEdits(word) > 0))];
  const corrections = new Map<string, string>();
  if (unknown.length === 0) return corrections;
  const { rows } = await sql<{ word: string; known: boolean; candidates: { term: string; count: number }[] | null }>`
    select w.word,
      -- a word the query leaves out (a stop word or particle) is never "corrected"
      search_tsquery(w.word) is null
        or exists (select 1 from search_terms k where k.store_id = ${storeId} and k.term = w.word and k.product_count > 0) as known,
      (select json_agg(json_build_object('term', t.term, 'count', t.product_count) order by similarity(t.term, w.word) desc, t.product_count desc)
       from (
         select t.term, t.product_count from search_terms t
         where t.store_id = ${storeId} and t.product_count > 0
           and (t.term % w.word or t.term = any(string_to_array(w.swaps, ' ')))
         order by similarity(t.term, w.word) desc, t.product_count desc
         limit 20
       ) t) as candidates
    from unnest(${unknown}::text[], ${unknown.map((word) => transpositions(word).join(' '))}::text[]) as w(word, swaps)`.execute(db);
  const replacements = new Map<string, string>();
  for (const row of rows) {
    if (row.known || !row.candidates) continue;
    let best: { term: string; distance: number; count: number } | undefined;
    for (const candidate of row.candidates) {
      const distance = editDistance(row.word, candidate.term);
      if (distance > allowedEdits(row.word)) continue;
      if (!best || distance < best.distance || (distance === best.distance && candidate.count > best.count)) {
        best = { term: candidate.term, distance, count: candidate.count };
      }
    }
    if (best) replacements.set(row.word, best.term);
  }
  for (const [query, words] of wordsOf) {
    if (words.some((word) => replacements.has(word))) corrections.set(query, words.map((word) => replacements.get(word) ?? word).join(' '));
  }
  return corrections;
}
