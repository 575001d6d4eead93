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
