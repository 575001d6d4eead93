import { beforeAll, describe, expect, it } from 'vitest';
import { addStaff, adminCall, staffToken, supportSession } from '../support/dashboard.js';
import type { TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ARABIC, expectProblem, fields } from '../support/problem.js';
import { ok } from '../support/responses.js';

const BASE = '/admin/data-hub/mappings';
const STOCK_FIELDS = [
  { target: 'sku', source: 'Item Code', transforms: [{ name: 'trim' }, { name: 'uppercase' }] },
  { target: 'stock', source: 'الكمية', transforms: [{ name: 'to_integer', args: { thousandsSeparator: ',' } }] },
];

describe('data hub structures, transforms and versioned mappings (contract section 9)', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let reader: string;
  const call = (token: string, method: string, url: string, body?: unknown) => adminCall(t.app, method, url, token, body);

  beforeAll(async () => {
    store = await t.store();
    [owner, reader] = await Promise.all([
      addStaff(t.app, store.storeId, 'owner').then((staff) => staffToken(t.app, staff)),
      addStaff(t.app, store.storeId, 'custom', { permissions: ['data.flows.read'] }).then((staff) => staffToken(t.app, staff)),
    ]);
  }, 60_000);

  it('lists the structures and the transforms with their args’ JSON schemas', async () => {
    const structures = ok(await call(reader, 'GET', '/admin/data-hub/structures')).items;
    const variants = structures.find((structure: { name: string }) => structure.name === 'variants');
    expect(variants).toMatchObject({ directions: ['import', 'export'], key: 'sku' });
    expect(variants.fields.find((field: { name: string }) => field.name === 'price')).toMatchObject({ type: 'money', required: true });
    const transforms = ok(await call(reader, 'GET', '/admin/data-hub/transforms')).items;
    expect(transforms.map((transform: { name: string }) => transform.name)).toEqual(
      expect.arrayContaining([
        'trim',
        'lowercase',
        'uppercase',
        'default',
        'map_values',
        'concat',
        'split',
        'regex_replace',
        'to_integer',
        'to_decimal_minor',
        'parse_date',
        'normalize_arabic',
        'slugify',
      ]),
    );
    const decimal = transforms.find((transform: { name: string }) => transform.name === 'to_decimal_minor');
    expect(decimal.args).toMatchObject({ type: 'object', additionalProperties: false });
    expect(decimal.description_ar).toMatch(ARABIC);
  });

  it('keeps every version: a PUT writes N+1, restore writes a new version equal to an old one', async () => {
    const created = ok(
      await call(owner, 'POST', BASE, { name: 'Nightly stock', structure: 'stock', direction: 'import', fields: STOCK_FIELDS }),
      201,
    );
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Nightly stock',
      structure: 'stock',
      direction: 'import',
      fields: STOCK_FIELDS,
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const changedFields = [STOCK_FIELDS[0], { target: 'stock', source: 'qty', transforms: [{ name: 'to_integer' }] }];
    const second = ok(await call(owner, 'PUT', `${BASE}/${created.id}`, { fields: changedFields, name: 'Stock v2' }));
    expect(second).toMatchObject({ version: 2, name: 'Stock v2', fields: changedFields });
    const restored = ok(await call(owner, 'POST', `${BASE}/${created.id}/restore`, { version: 1 }), 201);
    expect(restored).toMatchObject({ version: 3, name: 'Nightly stock', fields: STOCK_FIELDS });
    const versions = ok(await call(reader, 'GET', `${BASE}/${created.id}/versions`)).items;
    expect(versions.map((version: { version: number; restoredFrom: number | null }) => [version.version, version.restoredFrom])).toEqual([
      [3, 1],
      [2, null],
      [1, null],
    ]);
    expect(versions[1].fields).toEqual(changedFields);
    expect(ok(await call(reader, 'GET', `${BASE}/${created.id}`)).version).toBe(3);
    expectProblem(await call(owner, 'POST', `${BASE}/${created.id}/restore`, { version: 9 }), 404, 'not_found');
  });

  it('gives concurrent changes distinct versions, none lost', async () => {
    const created = ok(
      await call(owner, 'POST', BASE, { name: 'Raced', structure: 'stock', direction: 'import', fields: STOCK_FIELDS }),
      201,
    );
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        call(owner, 'PUT', `${BASE}/${created.id}`, { fields: STOCK_FIELDS, name: `Raced ${index}` }),
      ),
    );
    expect(answers.map((answer) => ok(answer).version).sort()).toEqual([2, 3, 4, 5, 6, 7]);
    expect(ok(await call(owner, 'GET', `${BASE}/${created.id}/versions`)).items).toHaveLength(7);
  });

  it('refuses a mapping that cannot be used with 400 mapping_invalid, naming each field, and keeps nothing of it', async () => {
    const invalid = expectProblem(
      await call(owner, 'POST', BASE, {
        name: 'Broken',
        structure: 'variants',
        direction: 'import',
        fields: [
          { target: 'sku', source: 'SKU' },
          { target: 'colour', source: 'Colour' },
          { target: 'price', source: 'Price', transforms: [{ name: 'to_decimal_minor', args: { decimals: 9 } }, { name: 'round_up' }] },
          { target: 'sku', source: 'Code' },
        ],
      }),
      400,
      'mapping_invalid',
    );
    expect(fields(invalid)).toEqual([
      'fields[1].target',
      'fields[2].transforms[0].args.decimals',
      'fields[2].transforms[1].name',
      'fields[3].target',
    ]);
    expect(invalid.errors[0].message_ar).toMatch(ARABIC);
    // Update by key: the key and one field to change are enough; what creating a record needs is checked row by row.
    const mapping = (fields: object[]) => call(owner, 'POST', BASE, { name: 'Feed', structure: 'variants', direction: 'import', fields });
    const feed = ok(
      await mapping([
        { target: 'sku', source: 'SKU' },
        { target: 'stock', source: 'Qty' },
        { target: 'compare_at_price', source: 'Was', clearWhenEmpty: true },
      ]),
      201,
    );
    expect(feed.fields[2]).toEqual({ target: 'compare_at_price', source: 'Was', transforms: [], clearWhenEmpty: true });
    const problems = async (fields: object[]) => {
      const problem = expectProblem(await mapping(fields), 400, 'mapping_invalid');
      return problem.errors.map((error: { field: string; code: string }) => `${error.field}:${error.code}`);
    };
    expect(await problems([{ target: 'sku', source: 'SKU' }])).toEqual(['fields:nothing_to_change']);
    expect(await problems([{ target: 'price', source: 'Price' }])).toEqual(['fields:required_unmapped']);
    expect(
      await problems([
        { target: 'sku', source: 'SKU' },
        { target: 'price', source: 'Price', clearWhenEmpty: true },
      ]),
    ).toEqual(['fields[1].clearWhenEmpty:not_clearable']);
    const notClearable = expectProblem(
      await mapping([
        { target: 'sku', source: 'SKU' },
        { target: 'stock', source: 'Qty', clearWhenEmpty: true },
      ]),
      400,
      'mapping_invalid',
    ).errors[0];
    expect(notClearable.message_en).toContain('compare_at_price');
    expect(notClearable.message_ar).toMatch(ARABIC);
    expect(
      fields(
        expectProblem(
          await call(owner, 'POST', BASE, {
            name: 'x',
            structure: 'orders',
            direction: 'import',
            fields: [{ target: 'number', source: 'n' }],
          }),
          400,
          'mapping_invalid',
        ),
      ),
    ).toEqual(['direction']);
    const exportFields = [
      { target: 'Order', source: 'number' },
      { target: 'Total', source: 'grand_total' },
    ];
    expect(
      fields(
        expectProblem(
          await call(owner, 'POST', BASE, { name: 'x', structure: 'orders', direction: 'export', fields: exportFields }),
          400,
          'mapping_invalid',
        ),
      ),
    ).toEqual(['fields[1].source']);
    expect(
      fields(
        expectProblem(
          await call(owner, 'POST', BASE, {
            name: 'x',
            structure: 'stock',
            direction: 'import',
            fields: [{ target: 'sku', source: 'a', sources: ['b'] }],
          }),
          400,
          'validation_failed',
        ),
      ),
    ).toEqual(['fields.0.source']);
    expect(
      fields(
        expectProblem(
          await call(owner, 'POST', BASE, { name: 'x', structure: 'stock', direction: 'import', fields: [{ target: 'sku' }] }),
          400,
          'validation_failed',
        ),
      ),
    ).toEqual(['fields.0.source']);
    expect(ok(await call(owner, 'GET', `${BASE}?limit=100`)).items.map((item: { name: string }) => item.name)).not.toContain('Broken');

    const created = ok(
      await call(owner, 'POST', BASE, {
        name: 'Export',
        structure: 'orders',
        direction: 'export',
        fields: [
          { target: 'Order', source: 'number' },
          { target: 'Customer', sources: ['email', 'status'], transforms: [{ name: 'concat', args: { separator: ' / ' } }] },
        ],
      }),
      201,
    );
    expectProblem(await call(owner, 'PUT', `${BASE}/${created.id}`, { fields: exportFields }), 400, 'mapping_invalid');
    expect(ok(await call(owner, 'GET', `${BASE}/${created.id}`)).version).toBe(1);
  });

  it('refuses with mapping_invalid, naming the argument, a regular expression RE2 cannot run; takes those JavaScript took forever on', async () => {
    const regexField = (target: string, source: string, args: Record<string, unknown>) => ({
      target,
      source,
      transforms: [{ name: 'regex_replace', args: { replacement: '', ...args } }],
    });
    const invalid = expectProblem(
      await call(owner, 'POST', BASE, {
        name: 'Patterns',
        structure: 'stock',
        direction: 'import',
        fields: [regexField('sku', 'SKU', { pattern: 'SKU-(?=\\d)' }), regexField('stock', 'Qty', { pattern: '\\d', flags: 'gu' })],
      }),
      400,
      'mapping_invalid',
    );
    expect(invalid.errors.map((error: { field: string; code: string }) => `${error.field} ${error.code}`)).toEqual([
      'fields[0].transforms[0].args.pattern pattern_unsupported',
      'fields[1].transforms[0].args.flags flags_invalid',
    ]);
    expect(invalid.errors[0].message_en).toContain('RE2');
    expect(invalid.errors[0].message_ar).toMatch(ARABIC);
    const saved = ok(
      await call(owner, 'POST', BASE, {
        name: 'Patterns',
        structure: 'stock',
        direction: 'import',
        fields: [
          regexField('sku', 'SKU', { pattern: '(a|a)*b|\\p{Script=Arabic}+' }),
          regexField('stock', 'Qty', { pattern: '(\\d+\\s?)+$' }),
        ],
      }),
      201,
    );
    expect(saved.fields[0].transforms[0].args.pattern).toBe('(a|a)*b|\\p{Script=Arabic}+');
  });

  it('checks permissions, refuses support writes, and hides other stores’ mappings', async () => {
    const created = ok(
      await call(owner, 'POST', BASE, { name: 'Mine', structure: 'stock', direction: 'import', fields: STOCK_FIELDS }),
      201,
    );
    expect(
      expectProblem(
        await call(reader, 'POST', BASE, { name: 'x', structure: 'stock', direction: 'import', fields: STOCK_FIELDS }),
        403,
        'missing_permission',
      ).requiredPermission,
    ).toBe('data.flows.manage');
    expectProblem(await call(reader, 'PUT', `${BASE}/${created.id}`, { fields: STOCK_FIELDS }), 403, 'missing_permission');
    const analyst = await staffToken(t.app, await addStaff(t.app, store.storeId, 'analyst'));
    expect(expectProblem(await call(analyst, 'GET', BASE), 403, 'missing_permission').requiredPermission).toBe('data.flows.read');

    const support = await supportSession(t.app, store.storeId);
    ok(await call(support.token, 'GET', `${BASE}/${created.id}/versions`));
    expectProblem(await call(support.token, 'PUT', `${BASE}/${created.id}`, { fields: STOCK_FIELDS }), 403, 'support_read_only');
    expectProblem(await call(support.token, 'POST', `${BASE}/${created.id}/restore`, { version: 1 }), 403, 'support_read_only');

    const other = await t.store();
    const otherOwner = await staffToken(t.app, await addStaff(t.app, other.storeId, 'owner'));
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PUT', '', { fields: STOCK_FIELDS }],
      ['GET', '/versions', undefined],
      ['POST', '/restore', { version: 1 }],
    ] as const) {
      expectProblem(await call(otherOwner, method, `${BASE}/${created.id}${path}`, body), 404, 'not_found');
    }
    expect(ok(await call(otherOwner, 'GET', BASE)).items).toEqual([]);
  });
});
