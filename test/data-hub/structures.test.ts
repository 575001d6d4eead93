import { beforeAll, describe, expect, it } from 'vitest';
import { TRANSFORMS } from '../../src/data-hub/mappings/transforms/registry.js';
import { checkValue, STRUCTURES, structureNamed, type StructureField } from '../../src/data-hub/structures/structures.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC } from '../support/problem.js';
import { ok } from '../support/responses.js';

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

/** A label a merchant reads: English words (not the identifier itself, unless it is a word such as SKU) and Arabic. */
function expectLabelled(item: { name?: string; label_en?: string; label_ar?: string }, what: string) {
  expect(item.label_en, what).toMatch(/^[A-Z\u0600-\u06FF]/);
  expect(item.label_en, what).not.toMatch(/_/);
  expect(item.label_ar, what).toMatch(ARABIC);
}

describe('the data hub speaks the merchant’s language (issue 25, item 10)', () => {
  const t = useTestApp();
  let reader: string;

  beforeAll(async () => {
    const store = await t.store();
    reader = await staffToken(t.app, await addStaff(t.app, store.storeId, 'custom', { permissions: ['data.flows.read'] }));
  });

  it('GET /structures labels each structure and each field in English and Arabic, beside its identifier', async () => {
    const structures = ok(await adminCall(t.app, 'GET', '/admin/data-hub/structures', reader)).items;
    expect(structures.map((structure: { name: string }) => structure.name)).toEqual(STRUCTURES.map((structure) => structure.name));
    for (const structure of structures) {
      expectLabelled(structure, structure.name);
      for (const field of structure.fields) expectLabelled(field, `${structure.name}.${field.name}`);
    }
    const prices = structures.find((structure: { name: string }) => structure.name === 'prices');
    expect(prices).toMatchObject({ label_en: 'Prices', label_ar: 'الأسعار' });
    expect(prices.fields.find((field: { name: string }) => field.name === 'compare_at_price')).toMatchObject({
      label_en: 'Price before discount',
      label_ar: 'السعر قبل الخصم',
    });
  });

  it('GET /transforms labels each transform and each of its args, the args’ JSON schema left as it was', async () => {
    const transforms = ok(await adminCall(t.app, 'GET', '/admin/data-hub/transforms', reader)).items;
    expect(transforms.map((transform: { name: string }) => transform.name)).toEqual(TRANSFORMS.map((transform) => transform.name));
    for (const transform of transforms) {
      expectLabelled(transform, transform.name);
      const properties = Object.keys(transform.args.properties ?? {});
      expect(Object.keys(transform.argLabels).sort(), transform.name).toEqual(properties.sort());
      for (const arg of properties) expectLabelled(transform.argLabels[arg], `${transform.name}.${arg}`);
      // Labels live beside the schema, not in it: a strict JSON schema validator still reads it.
      expect(JSON.stringify(transform.args), transform.name).not.toMatch(/label_/);
    }
    const mapValues = transforms.find((transform: { name: string }) => transform.name === 'map_values');
    expect(mapValues).toMatchObject({ label_en: 'Replace listed values', label_ar: 'استبدال قيم محددة' });
    expect(mapValues.argLabels.otherwise).toEqual({ label_en: 'A value not listed', label_ar: 'القيمة غير المذكورة' });
  });
});
