import { describe, expect, it } from 'vitest';
import { checkValue, STRUCTURES, structureNamed, type StructureField } from '../../src/data-hub/structures/structures.js';
import { ARABIC } from '../support/problem.js';

const spec = (structure: string, name: string): StructureField => structureNamed(structure)!.fields.find((field) => field.name === name)!;
const valueOf = (field: StructureField, raw: unknown) => {
  const checked = checkValue(field, raw);
  return 'value' in checked ? checked.value : `!${checked.problem.code}`;
};

describe('data hub structures (contract section 9)', () => {
  it('declares at least the contract’s structures, each keyed by a required field of its own, described in both languages', () => {
    expect(STRUCTURES.map((structure) => structure.name)).toEqual(
      expect.arrayContaining(['products', 'variants', 'stock', 'prices', 'categories', 'brands', 'customers', 'orders']),
    );
    expect(structureNamed('orders')!.directions).toEqual(['export']);
    expect(structureNamed('customers')!.directions).toEqual(['import', 'export']);
    for (const structure of STRUCTURES) {
      const names = structure.fields.map((field) => field.name);
      expect(new Set(names).size, structure.name).toBe(names.length);
      expect(structure.fields.find((field) => field.name === structure.key)?.required, structure.name).toBe(true);
      for (const field of structure.fields) {
        expect(field.description_en.length, `${structure.name}.${field.name}`).toBeGreaterThan(3);
        expect(field.description_ar, `${structure.name}.${field.name}`).toMatch(ARABIC);
      }
      if (structure.deactivation) expect(structure.deactivation.ar).toMatch(ARABIC);
    }
    expect(structureNamed('variants')!.fields.map((field) => field.name)).toEqual(expect.arrayContaining(['sku', 'price', 'stock']));
  });

  it('checks each value against its field: empty cells, lengths, slugs, SKUs, emails, whole numbers, booleans and locales', () => {
    const sku = spec('stock', 'sku');
    const stock = spec('stock', 'stock');
    expect([valueOf(sku, ' A-100/x '), valueOf(sku, 'A 100'), valueOf(sku, ''), valueOf(sku, null), valueOf(sku, 'x'.repeat(65))]).toEqual([
      'A-100/x',
      '!not_a_sku',
      '!required',
      '!required',
      '!not_a_sku',
    ]);
    expect([
      valueOf(stock, '12'),
      valueOf(stock, 12),
      valueOf(stock, '-1'),
      valueOf(stock, '1.5'),
      valueOf(stock, 2 ** 31),
      valueOf(stock, '١٢'),
    ]).toEqual([12, 12, '!out_of_range', '!not_an_integer', '!out_of_range', '!not_an_integer']);
    const compareAt = spec('prices', 'compare_at_price');
    expect([valueOf(compareAt, '  '), valueOf(compareAt, null), valueOf(compareAt, 1999)]).toEqual([null, null, 1999]);
    const slug = spec('products', 'slug');
    expect([
      valueOf(slug, 'red-shirt-2'),
      valueOf(slug, 'قميص-أحمر'),
      valueOf(slug, 'Red-Shirt'),
      valueOf(slug, 'red--shirt'),
      valueOf(slug, '-red'),
    ]).toEqual(['red-shirt-2', 'قميص-أحمر', '!not_a_slug', '!not_a_slug', '!not_a_slug']);
    const email = spec('customers', 'email');
    expect([valueOf(email, ' Lina@Example.COM '), valueOf(email, 'lina@'), valueOf(email, 'a b@example.com')]).toEqual([
      'lina@example.com',
      '!not_an_email',
      '!not_an_email',
    ]);
    const optIn = spec('customers', 'marketing_opt_in');
    expect([valueOf(optIn, 'Yes'), valueOf(optIn, 'نعم'), valueOf(optIn, false), valueOf(optIn, '0'), valueOf(optIn, 'maybe')]).toEqual([
      true,
      true,
      false,
      false,
      '!not_a_boolean',
    ]);
    expect([valueOf(spec('customers', 'locale'), 'ar'), valueOf(spec('customers', 'locale'), 'fr')]).toEqual(['ar', '!not_a_locale']);
    expect([valueOf(spec('products', 'status'), 'draft'), valueOf(spec('products', 'status'), 'deleted')]).toEqual([
      'draft',
      '!not_allowed',
    ]);
    expect([valueOf(spec('customers', 'first_name'), 'x'.repeat(100)), valueOf(spec('customers', 'first_name'), 'x'.repeat(101))]).toEqual([
      'x'.repeat(100),
      '!too_long',
    ]);
    expect(valueOf(spec('products', 'name_ar'), ['a', 'b'])).toBe('!not_a_value');
    const refused = checkValue(sku, 'A 1');
    expect('problem' in refused && refused.problem.message_ar).toMatch(ARABIC);
  });
});
