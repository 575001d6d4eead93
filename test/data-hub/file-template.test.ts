import { describe, expect, it } from 'vitest';
import { templatePattern } from '../../src/data-hub/connectors/file-template.js';

/** A file name template is a pattern a member writes: it is matched in time linear in the name (issue 24, item 1). */
describe('file name templates', () => {
  it('match names by their tokens and stars as before', () => {
    const daily = templatePattern('stock-{yyyy}{MM}{dd}.csv');
    expect(daily.test('stock-20261120.csv')).toBe(true);
    expect(daily.test('stock-2026112.csv')).toBe(false);
    expect(daily.test('stock-20261120.csv.bak')).toBe(false);
    expect(daily.test('stock-20261120xcsv')).toBe(false);
    const any = templatePattern('prices-*.csv');
    expect(any.test('prices-.csv')).toBe(true);
    expect(any.test('prices-north-2026.csv')).toBe(true);
    expect(any.test('prices-a/b.csv')).toBe(false);
  });

  it('decide at once on a long name that nearly matches many stars', () => {
    // JavaScript's engine took about 1 s for six `*a` over a 60-character name, ten times as long for each more.
    const pattern = templatePattern(`${'*a'.repeat(20)}*b.csv`);
    const started = performance.now();
    expect(pattern.test(`${'a'.repeat(196)}.csv`)).toBe(false);
    expect(pattern.test(`${'a'.repeat(196)}b.csv`)).toBe(true);
    expect(performance.now() - started).toBeLessThan(100);
  });
});
