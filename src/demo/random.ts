import { seededRandom } from './demo-catalogue.js';

export type Random = () => number;

/**
 * A generator of its own for one purpose (names, order times, searches...), derived from the seed: a
 * change in how one aspect draws its numbers does not shift every other aspect of the demo data.
 */
export function randomStream(seed: number, purpose: number): Random {
  return seededRandom(mixSeed(seed, purpose));
}

/** A well-spread 32-bit seed from two integers (murmur3 finaliser). */
export function mixSeed(a: number, b: number): number {
  let h = Math.imul((a ^ 0x9e3779b9) >>> 0, 0x85ebca6b) ^ Math.imul(b >>> 0, 0xcc9e2d51);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export function between(rng: Random, min: number, max: number): number {
  return min + rng() * (max - min);
}

export function intBetween(rng: Random, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

export function pick<T>(rng: Random, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)];
}

/** Draws items in proportion to their weights (binary search over the cumulative weights). */
export class WeightedTable<T> {
  private readonly cumulative: Float64Array;
  private readonly total: number;

  constructor(
    readonly items: readonly T[],
    weights: readonly number[],
  ) {
    this.cumulative = new Float64Array(weights.length);
    let sum = 0;
    weights.forEach((weight, i) => {
      sum += Math.max(0, weight);
      this.cumulative[i] = sum;
    });
    if (items.length === 0 || sum <= 0) throw new RangeError('a weighted table needs at least one item with a positive weight');
    this.total = sum;
  }

  static of<T>(entries: readonly (readonly [T, number])[]): WeightedTable<T> {
    return new WeightedTable(
      entries.map(([item]) => item),
      entries.map(([, weight]) => weight),
    );
  }

  draw(rng: Random): T {
    const target = rng() * this.total;
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.cumulative[middle] > target) high = middle;
      else low = middle + 1;
    }
    return this.items[low];
  }
}

/** Splits `total` into whole shares proportional to `weights` (largest remainder), summing exactly to `total`. */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, w) => a + w, 0);
  const exact = weights.map((w) => (total * w) / sum);
  const shares = exact.map(Math.floor);
  let left = total - shares.reduce((a, s) => a + s, 0);
  const byRemainder = exact.map((value, i) => [value - shares[i], i] as const).sort((x, y) => y[0] - x[0] || x[1] - y[1]);
  for (let k = 0; left > 0; k++, left--) shares[byRemainder[k % byRemainder.length][1]] += 1;
  return shares;
}

/** Weights that are added and changed as the data is generated, drawn in O(log n) (a Fenwick tree). */
export class DynamicWeights {
  private weights = new Float64Array(1024);
  private tree = new Float64Array(1024);
  private count = 0;
  private sum = 0;

  get total(): number {
    return this.sum;
  }

  add(weight: number): number {
    if (this.count === this.weights.length) this.grow();
    const index = this.count++;
    this.set(index, weight);
    return index;
  }

  set(index: number, weight: number): void {
    const delta = weight - this.weights[index];
    this.weights[index] = weight;
    this.sum += delta;
    for (let i = index + 1; i <= this.tree.length; i += i & -i) this.tree[i - 1] += delta;
  }

  /** An index drawn in proportion to its weight; the total must be positive. */
  draw(rng: Random): number {
    let target = rng() * this.sum;
    let position = 0;
    for (let step = this.tree.length; step > 0; step >>= 1) {
      const next = position + step;
      if (next <= this.tree.length && this.tree[next - 1] <= target) {
        position = next;
        target -= this.tree[next - 1];
      }
    }
    // Rounding can step past the last item with weight; walk back to one that has some.
    let index = Math.min(position, this.count - 1);
    while (index > 0 && this.weights[index] === 0) index--;
    return index;
  }

  private grow(): void {
    const weights = new Float64Array(this.weights.length * 2);
    weights.set(this.weights);
    this.weights = weights;
    this.tree = new Float64Array(weights.length);
    for (let i = 1; i <= this.tree.length; i++) {
      this.tree[i - 1] += weights[i - 1];
      const parent = i + (i & -i);
      if (parent <= this.tree.length) this.tree[parent - 1] += this.tree[i - 1];
    }
  }
}
