import type { Locale } from '../common/locale.js';
import { pick, WeightedTable, type Random } from './random.js';

export interface CatalogueWords {
  products: { nameEn: string; nameAr: string; brandEn: string | null; brandAr: string | null }[];
  categories: { en: string; ar: string }[];
  brands: { en: string; ar: string }[];
}

export interface PoolQuery {
  /** As typed: capitals, typos and all. */
  query: string;
  normalized: string;
  locale: Locale;
}

// Things shoppers look for that the demo store does not sell: the zero-result share of the searches report.
const NOT_SOLD: Record<Locale, string[]> = {
  en: ['iphone 17 pro max', 'ps5', 'playstation 5', 'gift card', 'baby stroller', 'car seat', 'sunglasses', 'gaming chair', 'printer ink'],
  ar: ['ايفون 17', 'بلايستيشن 5', 'بطاقة هدايا', 'عربة أطفال', 'نظارات شمسية', 'كرسي قيمنق', 'حبر طابعة', 'مكنسة كهربائية', 'تمور'],
};
const NOT_SOLD_SHARE = 0.05;
const TYPO_SHARE = 0.07;
const CAPITALISED_SHARE = 0.15;
const ZIPF_EXPONENT = 0.9;
/** Arabic diacritics and the tatweel: not part of how a word is spelled. */
export const ARABIC_MARKS = '[\u064B-\u0652\u0640]';
const ARABIC_MARKS_PATTERN = new RegExp(ARABIC_MARKS, 'g');

/**
 * How a query is grouped in the searches log: lower case, single spaces, Arabic without diacritics and
 * with its common spelling variants folded (أ إ آ → ا, ى → ي, ة → ه). The seeder counts results with
 * the same folding in SQL.
 */
export function normaliseQuery(text: string): string {
  return text
    .toLowerCase()
    .replace(ARABIC_MARKS_PATTERN, '')
    .replace(/[أإآ]/g, 'ا')
    .replace(/ى/g, 'ي')
    .replace(/ة/g, 'ه')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * What shoppers of this catalogue type into the search box, per locale, with how often: category and
 * brand names, product nouns and phrases from the product names, typos of them, and things not sold.
 */
export function buildQueryPool(rng: Random, words: CatalogueWords): Record<Locale, WeightedTable<PoolQuery>> {
  const base: Record<Locale, Map<string, { text: string; weight: number }>> = { en: new Map(), ar: new Map() };
  const add = (locale: Locale, text: string, weight: number) => {
    const clean = text.replace(/\s+/g, ' ').trim();
    if (clean.length < 2 || clean.length > 200) return;
    const key = normaliseQuery(clean);
    const existing = base[locale].get(key);
    if (existing) existing.weight += weight;
    else base[locale].set(key, { text: clean, weight });
  };

  for (const category of words.categories) {
    for (const part of category.en.split(/\s*&\s*/)) add('en', part.toLowerCase(), 3);
    add('ar', category.ar, 3);
    if (!category.ar.includes(' ')) add('ar', withoutArticle(category.ar), 2);
  }
  for (const brand of words.brands) {
    add('en', brand.en.toLowerCase(), 2);
    add('ar', brand.ar, 2);
  }
  for (const product of words.products) {
    const en =
      product.brandEn && product.nameEn.startsWith(`${product.brandEn} `)
        ? product.nameEn.slice(product.brandEn.length + 1)
        : product.nameEn;
    const enWords = en.toLowerCase().split(' ');
    add('en', en.toLowerCase(), 0.4);
    for (let i = 0; i + 1 < enWords.length; i++) add('en', `${enWords[i]} ${enWords[i + 1]}`, 0.5);
    if (product.brandEn) add('en', `${product.brandEn.toLowerCase()} ${enWords[enWords.length - 1]}`, 0.3);

    // Arabic names read "noun brand adjective ...": the noun is what people search for.
    const brandAt = product.brandAr ? product.nameAr.indexOf(` ${product.brandAr}`) : -1;
    if (brandAt > 0) {
      const noun = product.nameAr.slice(0, brandAt);
      const tail = product.nameAr
        .slice(brandAt + product.brandAr!.length + 2)
        .split(' ')
        .filter(Boolean);
      add('ar', noun, 1);
      add('ar', `${noun} ${product.brandAr}`, 0.4);
      if (tail.length > 0) add('ar', `${noun} ${withoutArticle(tail[0])}`, 0.5);
    } else add('ar', product.nameAr, 0.4);
  }

  const pool = (locale: Locale): WeightedTable<PoolQuery> => {
    const entries = shuffle(rng, [...base[locale].values()]);
    const items: PoolQuery[] = [];
    const weights: number[] = [];
    const push = (query: string, weight: number) => {
      items.push({ query, normalized: normaliseQuery(query), locale });
      weights.push(weight);
    };
    entries.forEach((entry, rank) => {
      const weight = entry.weight / (rank + 1) ** ZIPF_EXPONENT;
      push(typo(rng, entry.text), weight * TYPO_SHARE);
      if (locale === 'en') {
        push(entry.text, weight * (1 - TYPO_SHARE - CAPITALISED_SHARE));
        push(capitalised(entry.text), weight * CAPITALISED_SHARE);
      } else push(entry.text, weight * (1 - TYPO_SHARE));
    });
    const soldWeight = weights.reduce((sum, weight) => sum + weight, 0);
    const notSold = NOT_SOLD[locale];
    for (const query of notSold) push(query, (soldWeight * NOT_SOLD_SHARE) / (1 - NOT_SOLD_SHARE) / notSold.length);
    return new WeightedTable(items, weights);
  };
  return { en: pool('en'), ar: pool('ar') };
}

function withoutArticle(text: string): string {
  return text.startsWith('ال') && text.length > 4 ? text.slice(2) : text;
}

function capitalised(text: string): string {
  return text.replace(/\b[a-z]/g, (letter) => letter.toUpperCase());
}

/** One slip of the finger in the longest word: a swap, a dropped or a doubled letter. */
function typo(rng: Random, text: string): string {
  const words = text.split(' ');
  const longest = words.reduce((best, word, i) => (word.length > words[best].length ? i : best), 0);
  const word = [...words[longest]];
  if (word.length < 4) return text;
  const at = 1 + Math.floor(rng() * (word.length - 2));
  const kind = pick(rng, ['swap', 'drop', 'double'] as const);
  if (kind === 'swap') [word[at], word[at + 1]] = [word[at + 1], word[at]];
  else if (kind === 'drop') word.splice(at, 1);
  else word.splice(at, 0, word[at]);
  words[longest] = word.join('');
  return words.join(' ');
}

function shuffle<T>(rng: Random, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}
