import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyTransforms, checkTransformArgs, transformNamed, TRANSFORMS } from '../../src/data-hub/mappings/transforms/registry.js';
import { TransformError } from '../../src/data-hub/mappings/transforms/transform.js';
import { isEmptyCell, type CellValue } from '../../src/infra/tabular/table-rows.js';
import { ARABIC } from '../support/problem.js';

const CONTRACT_TRANSFORMS = [
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
];

/** One transform on one value, its args checked first as a mapping's are. */
function run(name: string, value: CellValue, args?: unknown): CellValue {
  expect(checkTransformArgs(name, args)).toEqual([]);
  return applyTransforms(value, [{ name, args }]);
}

/** The failure a transform refuses a value with. */
function refusal(name: string, value: CellValue, args?: unknown): TransformError {
  expect(checkTransformArgs(name, args)).toEqual([]);
  try {
    const result = applyTransforms(value, [{ name, args }]);
    throw new Error(`accepted as ${JSON.stringify(result)}`);
  } catch (error) {
    expect(error).toBeInstanceOf(TransformError);
    return error as TransformError;
  }
}

const codeOf = (name: string, value: CellValue, args?: unknown) => refusal(name, value, args).code;
const argErrors = (name: string, args: unknown) => checkTransformArgs(name, args).map(({ field, code }) => `${field} ${code}`);

describe('the transform catalogue', () => {
  it('holds every transform the contract names, once, each found by name', () => {
    const names = TRANSFORMS.map((transform) => transform.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(CONTRACT_TRANSFORMS));
    for (const name of names) expect(transformNamed(name)?.name).toBe(name);
    expect(transformNamed('nope')).toBeUndefined();
  });

  it('publishes each args as a valid closed object schema, with descriptions in English and Arabic', () => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });
    for (const transform of TRANSFORMS) {
      expect(ajv.validateSchema(transform.args), transform.name).toBe(true);
      expect(() => ajv.compile(transform.args)).not.toThrow();
      expect(transform.args).toMatchObject({ type: 'object', additionalProperties: false });
      expect(transform.description_en.length, transform.name).toBeGreaterThan(40);
      expect(transform.description_ar, transform.name).toMatch(/\p{Script=Arabic}{3}/u);
      expect(JSON.parse(JSON.stringify(transform.args))).toEqual(transform.args);
    }
  });

  it('accepts missing args for every transform that needs none', () => {
    const required = new Set(['default', 'map_values', 'split', 'regex_replace', 'parse_date']);
    for (const { name } of TRANSFORMS) {
      expect(checkTransformArgs(name, undefined).length > 0, name).toBe(required.has(name));
      if (!required.has(name)) expect(checkTransformArgs(name, {})).toEqual([]);
    }
  });

  it('treats no value, blank text and lists of them as empty', () => {
    expect([null, '', '   ', '\u00A0\u200F\t', [], [null, ' ']].every(isEmptyCell)).toBe(true);
    expect(['0', 0, false, 'a', [null, 'a']].some(isEmptyCell)).toBe(false);
  });
});

describe('text transforms', () => {
  it('trims Unicode spaces and invisible direction marks, collapses inner runs, and empties blank text', () => {
    expect(run('trim', '  \u00A0\u200Fقهوة \u00A0 عربية\u3000\u2009 \t\n')).toBe('قهوة عربية');
    expect(run('trim', '\uFEFFSKU-1\u200E')).toBe('SKU-1');
    expect(run('trim', '  a   b  ', { collapseSpaces: false })).toBe('a   b');
    expect(run('trim', ' \u00A0 \u200B')).toBeNull();
    expect(run('trim', '')).toBeNull();
    expect(run('trim', null)).toBeNull();
    expect(run('trim', 12.5)).toBe(12.5);
    expect(run('trim', true)).toBe(true);
    expect(run('trim', [' a ', '  ', 'b  c'])).toEqual(['a', null, 'b c']);
  });

  it('keeps line breaks when asked, with at most one blank line in a row', () => {
    const description = '  First   line \r\n\r\n\r\n\r\n  second\tline\u2028third  \n\n';
    expect(run('trim', description, { keepLineBreaks: true })).toBe('First line\n\nsecond line\nthird');
    expect(run('trim', description)).toBe('First line second line third');
  });

  it('changes case the same way on every server and leaves Arabic alone', () => {
    expect(run('lowercase', 'ISTANBUL Çay İ')).toBe('istanbul çay i̇');
    expect(run('uppercase', 'straße istanbul')).toBe('STRASSE ISTANBUL');
    expect(run('uppercase', 'عطر oud')).toBe('عطر OUD');
    expect(run('lowercase', ['A', 'ب', 3, null])).toEqual(['a', 'ب', 3, null]);
    expect(run('uppercase', '')).toBe('');
  });

  it('normalises Arabic letters, marks, tatweel, digits and presentation forms', () => {
    expect(run('normalize_arabic', 'أحمد إبراهيم آمال ٱلله')).toBe('احمد ابراهيم امال الله');
    expect(run('normalize_arabic', 'مصطفى علی کتاب')).toBe('مصطفي علي كتاب');
    expect(run('normalize_arabic', 'مُحَمَّدٌ ســـلام')).toBe('محمد سلام');
    expect(run('normalize_arabic', 'رقم ١٢٣٤٥ و ۶۷۸ و ٣٫٥ و ١٬٠٠٠')).toBe('رقم 12345 و 678 و 3.5 و 1,000');
    expect(run('normalize_arabic', '\uFEB3\uFEE0\uFEE4\uFEEA \uFEFB')).toBe('سلمه لا');
    expect(run('normalize_arabic', 'x² ﬁne')).toBe('x² ﬁne');
    expect(run('normalize_arabic', 'مدرسة')).toBe('مدرسة');
    expect(run('normalize_arabic', 'مدرسة', { tehMarbuta: true })).toBe('مدرسه');
    expect(run('normalize_arabic', 'أَحْمَد ١', { alef: false, digits: 'keep' })).toBe('أحمد ١');
    expect(run('normalize_arabic', 'أحمد', { removeDiacritics: true, alef: false })).toBe('أحمد');
    expect(run('normalize_arabic', 'ســلام', { removeTatweel: false })).toBe('ســلام');
    expect(run('normalize_arabic', [null, 'إ', 5])).toEqual([null, 'ا', 5]);
  });

  it('makes slugs that keep Arabic, drop accents and punctuation, and fit the store’s 200 characters', () => {
    expect(run('slugify', '  Men’s Classic Oud -- 100ml!! ')).toBe('mens-classic-oud-100ml');
    expect(run('slugify', 'Crème Brûlée & Straße')).toBe('creme-brulee-strasse');
    expect(run('slugify', 'عطر العُود الفاخر – ٥٠ مل')).toBe('عطر-العود-الفاخر-50-مل');
    expect(run('slugify', 'أحذية رياضية Nike')).toBe('احذية-رياضية-nike');
    expect(run('slugify', 'عطر Oud ١٠٠', { ascii: true })).toBe('oud-100');
    expect(run('slugify', 2024)).toBe('2024');
    expect(run('slugify', null)).toBeNull();
    expect(run('slugify', ['A B', 'C'])).toEqual(['a-b', 'c']);

    const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const slug = run('slugify', long) as string;
    expect(slug.length).toBeLessThanOrEqual(200);
    expect(slug).toMatch(/^word0-.*-word\d+$/);
    expect(long.replace(/ /g, '-').startsWith(slug)).toBe(true);
    expect(run('slugify', 'abcdefghij klm', { maxLength: 12 })).toBe('abcdefghij');
    expect(run('slugify', 'abcdefghijklmnop', { maxLength: 5 })).toBe('abcde');
    expect(run('slugify', 'ب'.repeat(300))).toHaveLength(200);
    const rare = run('slugify', '𠀀'.repeat(150)) as string;
    expect(rare.length).toBeLessThanOrEqual(200);
    expect(rare).toBe('𠀀'.repeat(100));
  });

  it('makes slugs the product and category structures accept', () => {
    const structureSlug = /^[\p{Ll}\p{Lo}\p{Nd}]+(?:-[\p{Ll}\p{Lo}\p{Nd}]+)*$/u;
    const names = ['Ǆemal ǅ', 'ﻋﻄﺮ ـــ مُمَيَّز', 'नमस्ते दुनिया', 'Tokyo ラーメン', 'x²', '  -a-  ', 'Ⅻ roman'];
    for (const name of names) expect(run('slugify', name), name).toMatch(structureSlug);

    const empty = refusal('slugify', '!!! ---');
    expect(empty.code).toBe('empty_slug');
    expect(empty.failure.message_ar).toContain('"!!! ---"');
    expect(codeOf('slugify', 'عطر', { ascii: true })).toBe('empty_slug');
  });
});

describe('value transforms', () => {
  it('fills empty cells with the default and leaves others', () => {
    expect(run('default', null, { value: 'draft' })).toBe('draft');
    expect(run('default', ' \u00A0', { value: 0 })).toBe(0);
    expect(run('default', [null, ''], { value: false })).toBe(false);
    expect(run('default', 'active', { value: 'draft' })).toBe('active');
    expect(run('default', 0, { value: 5 })).toBe(0);
  });

  it('maps values ignoring case and edge spaces, with keep, empty or reject for the rest', () => {
    const map = { Yes: true, نعم: true, No: false, لا: false, '1': 'one' };
    expect(run('map_values', ' YES ', { map })).toBe(true);
    expect(run('map_values', 'نعم', { map })).toBe(true);
    expect(run('map_values', 1, { map })).toBe('one');
    expect(run('map_values', 'maybe', { map })).toBe('maybe');
    expect(run('map_values', 'maybe', { map, otherwise: 'empty' })).toBeNull();
    expect(run('map_values', 'yes', { map, caseSensitive: true })).toBe('yes');
    expect(run('map_values', ['yes', 'لا', 'x'], { map, otherwise: 'empty' })).toEqual([true, false, null]);

    const unmapped = refusal('map_values', 'ربما', { map, otherwise: 'reject' });
    expect(unmapped.code).toBe('unmapped_value');
    expect(unmapped.failure.message_en).toBe('"ربما" is not one of the values the map lists.');
    expect(unmapped.failure.message_ar).toContain('"ربما"');
  });

  it('maps an empty cell only through the "" key, and never rejects it', () => {
    expect(run('map_values', null, { map: { a: 'b' }, otherwise: 'reject' })).toBeNull();
    expect(run('map_values', '  ', { map: { a: 'b' }, otherwise: 'reject' })).toBe('  ');
    expect(run('map_values', null, { map: { '': 'unknown' } })).toBe('unknown');
  });

  it('joins lists, skipping empty items unless told not to', () => {
    expect(run('concat', ['Classic', null, ' ', 'Oud', 100])).toBe('Classic Oud 100');
    expect(run('concat', ['a', '', 'b'], { separator: ' / ', skipEmpty: false })).toBe('a /  / b');
    expect(run('concat', ['a', ['b', 'c']], { separator: '-' })).toBe('a-b-c');
    expect(run('concat', [0.1 + 0.2, 1e21, true], { separator: '|' })).toBe('0.3|1000000000000000000000|true');
    expect(run('concat', [null, ''])).toBeNull();
    expect(run('concat', 'single')).toBe('single');
    expect(run('concat', null)).toBeNull();
  });

  it('splits at one or several separators, trimming and dropping empty items', () => {
    expect(run('split', 'red, green,,blue ', { separator: ',' })).toEqual(['red', 'green', 'blue']);
    expect(run('split', 'أحمر، أزرق,أخضر', { separator: [',', '،'] })).toEqual(['أحمر', 'أزرق', 'أخضر']);
    expect(run('split', 'a | b||c', { separator: '|', trim: false, removeEmpty: false })).toEqual(['a ', ' b', '', 'c']);
    expect(run('split', 'a.b', { separator: '.' })).toEqual(['a', 'b']);
    expect(run('split', ['a;b', null, 'c'], { separator: ';' })).toEqual(['a', 'b', 'c']);
    expect(run('split', 12.5, { separator: '.' })).toEqual(['12', '5']);
    expect(run('split', null, { separator: ',' })).toBeNull();
    expect(run('split', '', { separator: ',' })).toBe('');
    expect(run('split', ',,', { separator: ',' })).toEqual([]);
  });

  it('replaces by regular expression, in Unicode mode, every match by default', () => {
    expect(run('regex_replace', 'SKU-00123', { pattern: '^SKU-0*', replacement: '' })).toBe('123');
    expect(run('regex_replace', 'a-b-c', { pattern: '-', replacement: '/' })).toBe('a/b/c');
    expect(run('regex_replace', 'a-b-c', { pattern: '-', replacement: '/', flags: '' })).toBe('a/b-c');
    expect(run('regex_replace', 'Size: XL', { pattern: 'size: (?<size>\\w+)', replacement: '$<size>', flags: 'gi' })).toBe('XL');
    expect(run('regex_replace', 'عطر 😀 Oud', { pattern: '[^\\p{Script=Arabic}\\s]+', replacement: '' })).toBe('عطر  ');
    expect(run('regex_replace', 12345, { pattern: '(\\d{3})$', replacement: '-$1' })).toBe('12-345');
    expect(run('regex_replace', null, { pattern: '^$', replacement: 'x' })).toBeNull();
    expect(run('regex_replace', ['a1', 'b2'], { pattern: '\\d', replacement: '' })).toEqual(['a', 'b']);
  });
});

describe('regular expressions, run by RE2', () => {
  const replace = (value: CellValue, pattern: string, replacement: string, flags?: string) =>
    run('regex_replace', value, { pattern, replacement, ...(flags === undefined ? {} : { flags }) });

  it('reads the JavaScript spellings RE2 writes otherwise with their JavaScript meaning', () => {
    expect(replace('عطر Oud', '\\p{sc=Arabic}+', 'x')).toBe('x Oud');
    expect(replace('عطر Oud', '\\P{Script=Arabic}+', '')).toBe('عطر');
    expect(replace('Oud ١٢ 3', '\\p{gc=Nd}', '#')).toBe('Oud ## #');
    expect(replace('Oud ١٢', '\\p{General_Category=Letter}+|\\p{Decimal_Number}', '-')).toBe('- --');
    expect(replace('aB', '\\p{Lowercase_Letter}', '_')).toBe('_B');
    expect(replace('١-2', '\\u0661|\\u{32}', 'n')).toBe('n-n');
    expect(replace('a😀b', '\\uD83D\\uDE00', '')).toBe('ab');
    // JavaScript's \s is every Unicode space (here no-break, ideographic and BOM); RE2's own is ASCII only.
    expect(replace('a\u00a0b\u3000c\ufeffd e', '\\s', '_')).toBe('a_b_c_d_e');
    expect(replace('a\u00a0b\n', '[^\\S\\n]', '_')).toBe('a_b\n');
    expect(replace('a\u00a0b', '\\S', '.')).toBe('.\u00a0.');
    expect(replace('a\u00a0b-', '[\\S-]+', '.')).toBe('.\u00a0.');
    expect(replace('x]y', '[]x]', '')).toBe('y');
    expect(replace('a:b', '[[:alpha:]]', '?')).toBe('?:?');
    expect(replace('a.b', '\\Q.\\E', '\\s')).toBe('a\\sb');
    expect(replace('Size: XL', '(?P<size>X+)L', '$<size>')).toBe('Size: X');
  });

  it('replaces exactly as JavaScript does wherever both engines read a pattern alike', () => {
    const patterns = [
      'a',
      '(a)(b)?',
      '(?<x>a|b)c?',
      'b*',
      '^a|b$',
      '(?:ab)+',
      '\\d+',
      '[^a]',
      '(a)|(b)|(c)',
      '\\bab',
      '$',
      '(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)',
    ];
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '1', ' ', 'é', '😀', '\n'), maxLength: 20 });
    const replacement = fc.string({ unit: fc.constantFrom('$', '1', '0', '2', '&', '`', "'", '<', '>', 'x', 'n'), maxLength: 10 });
    fc.assert(
      fc.property(
        fc.constantFrom(...patterns),
        text,
        replacement,
        fc.constantFrom('g', '', 'gi', 'm', 'gms'),
        (pattern, value, template, flags) => {
          const expected = /^\s*$/u.test(value) ? value : value.replace(new RegExp(pattern, `${flags}u`), template);
          expect(replace(value, pattern, template, flags)).toBe(expected);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('matches in time linear in the value whatever the pattern, and bounds what linear cannot', () => {
    for (const pattern of ['(a|a)*b', '(a|aa)*b', 'a*a*a*a*a*a*b', '(a+)+$', '(\\w+\\s?)*$x']) {
      const started = performance.now();
      expect(replace('a'.repeat(15_000), pattern, 'x')).toBe(pattern === '(a+)+$' ? 'x' : 'a'.repeat(15_000));
      expect(performance.now() - started, pattern).toBeLessThan(200);
    }
    // Time grows with the pattern's size too: a large pattern takes shorter values.
    const large = { pattern: '[ab]{0,100}c', replacement: '' };
    expect(run('regex_replace', 'ab'.repeat(600), large)).toBe('ab'.repeat(600));
    expect(codeOf('regex_replace', 'ab'.repeat(700), large)).toBe('value_too_long_for_pattern');
    // Each search is linear, but a*b|a searches the rest of the value again after each one-letter match.
    const started = performance.now();
    expect(codeOf('regex_replace', 'a'.repeat(30_000), { pattern: 'a*b|a', replacement: '' })).toBe('pattern_too_slow');
    expect(performance.now() - started).toBeLessThan(500);
    expect(codeOf('regex_replace', 'ab'.repeat(1_000), { pattern: '(?:)', replacement: "$'" })).toBe('result_too_long');
  });
});

describe('numbers', () => {
  it('reads whole numbers in Latin, Arabic-Indic and Persian digits, with signs and thousands', () => {
    expect(run('to_integer', '42')).toBe(42);
    expect(run('to_integer', ' +7 ')).toBe(7);
    expect(run('to_integer', '-15')).toBe(-15);
    expect(run('to_integer', '\u221215')).toBe(-15);
    expect(run('to_integer', '١٢٣')).toBe(123);
    expect(run('to_integer', '۱۲۳۴')).toBe(1234);
    expect(run('to_integer', '1,234,567')).toBe(1234567);
    expect(run('to_integer', '١٬٢٣٤')).toBe(1234);
    expect(run('to_integer', '1.234', { thousandsSeparator: '.' })).toBe(1234);
    expect(run('to_integer', '1 234\u00A0567', { thousandsSeparator: ' ' })).toBe(1234567);
    expect(run('to_integer', "1'234", { thousandsSeparator: "'" })).toBe(1234);
    expect(run('to_integer', '12.00')).toBe(12);
    expect(run('to_integer', '-0')).toBe(0);
    expect(run('to_integer', 17)).toBe(17);
    expect(run('to_integer', '2147483647')).toBe(2147483647);
    expect(run('to_integer', '-2147483648')).toBe(-2147483648);
    expect(run('to_integer', ['1', '', '٢'])).toEqual([1, null, 2]);
  });

  it('turns empty cells into no value', () => {
    for (const name of ['to_integer', 'to_decimal_minor']) {
      expect(run(name, '')).toBeNull();
      expect(run(name, ' \u200F')).toBeNull();
      expect(run(name, null)).toBeNull();
    }
  });

  it('refuses text, fractions, bad grouping and numbers beyond an integer column', () => {
    expect(codeOf('to_integer', 'abc')).toBe('not_a_number');
    expect(codeOf('to_integer', '12a')).toBe('not_a_number');
    expect(codeOf('to_integer', '1e3')).toBe('not_a_number');
    expect(codeOf('to_integer', '1,23')).toBe('not_a_number');
    expect(codeOf('to_integer', '1,234', { thousandsSeparator: '' })).toBe('not_a_number');
    expect(codeOf('to_integer', true)).toBe('not_a_number');
    expect(codeOf('to_integer', '12.5')).toBe('not_an_integer');
    expect(codeOf('to_integer', '١٢٫٥')).toBe('not_an_integer');
    expect(codeOf('to_integer', 12.5)).toBe('not_an_integer');
    expect(codeOf('to_integer', '2147483648')).toBe('out_of_range');
    expect(codeOf('to_integer', '-2147483649')).toBe('out_of_range');
    expect(codeOf('to_integer', '99999999999999999999999')).toBe('out_of_range');
    expect(codeOf('to_integer', 1e21)).toBe('out_of_range');

    const failure = refusal('to_integer', 'twelve and a very long explanation of why this is not a number').failure;
    expect(failure.message_en).toBe('"twelve and a very long explanation of wh…" is not a number.');
    expect(failure.message_ar).toBe('"twelve and a very long explanation of wh…" ليس رقماً.');
    expect(refusal('to_integer', '12.5').failure.message_ar).toContain('ليس عدداً صحيحاً');
  });

  it('reads amounts into exact minor units', () => {
    expect(run('to_decimal_minor', '19.99')).toBe(1999);
    expect(run('to_decimal_minor', '1,234.5')).toBe(123450);
    expect(run('to_decimal_minor', '٣٫٥')).toBe(350);
    expect(run('to_decimal_minor', '١٬٢٣٤٫٥٠')).toBe(123450);
    expect(run('to_decimal_minor', '.5')).toBe(50);
    expect(run('to_decimal_minor', '-0.01')).toBe(-1);
    expect(run('to_decimal_minor', '7')).toBe(700);
    expect(run('to_decimal_minor', '19.990')).toBe(1999);
    expect(run('to_decimal_minor', '1.234,56', { decimalSeparator: ',' })).toBe(123456);
    expect(run('to_decimal_minor', '1 234,5', { decimalSeparator: ',', thousandsSeparator: ' ' })).toBe(123450);
    expect(run('to_decimal_minor', '12.345', { decimals: 3 })).toBe(12345);
    expect(run('to_decimal_minor', '١٫٢٥٠ د.ك', { decimals: 3 })).toBe(1250);
    expect(run('to_decimal_minor', '150', { decimals: 0 })).toBe(150);
    expect(run('to_decimal_minor', '21474836.47')).toBe(2147483647);
  });

  it('ignores currency symbols, codes and Arabic abbreviations around the amount', () => {
    const amounts = ['SAR 12.50', '12.50 SAR', '12.50SAR', 'sar12.5', '12.50 ر.س', '12.50 ر.س.', 'ر.س 12.50', '12.5 ﷼', '﷼12.5'];
    const more = ['$12.50', '12.50 $', 'US$ 12.5', '€12.50', '12.50 ريال', '12.50 ريال سعودي', 'SR 12.50', '12.5 د.إ', '\u20C1 12.50'];
    for (const amount of [...amounts, ...more]) expect(run('to_decimal_minor', amount), amount).toBe(1250);
    expect(run('to_decimal_minor', '-SAR 12.50')).toBe(-1250);
    expect(run('to_decimal_minor', 'SAR -12.50')).toBe(-1250);
    expect(run('to_decimal_minor', '-$5')).toBe(-500);
    expect(codeOf('to_decimal_minor', '12 kg')).toBe('not_a_number');
    expect(codeOf('to_decimal_minor', 'about 12')).toBe('not_a_number');
    expect(codeOf('to_decimal_minor', 'SAR')).toBe('not_a_number');
    expect(codeOf('to_decimal_minor', 'ر.س.12')).toBe('not_a_number');
    expect(run('to_decimal_minor', '$.5')).toBe(50);
  });

  it('never rounds: more decimals than the currency has are refused', () => {
    expect(codeOf('to_decimal_minor', '19.999')).toBe('too_many_decimals');
    expect(codeOf('to_decimal_minor', '1.2345', { decimals: 3 })).toBe('too_many_decimals');
    expect(codeOf('to_decimal_minor', '12.5', { decimals: 0 })).toBe('too_many_decimals');
    const failure = refusal('to_decimal_minor', '19.999').failure;
    expect(failure.message_en).toBe('"19.999" has more decimal places than the currency allows (2); amounts are never rounded.');
    expect(failure.message_ar).toContain('"19.999"');
    expect(codeOf('to_decimal_minor', '21474836.48')).toBe('out_of_range');
    const tooMuch = refusal('to_decimal_minor', '٩٩٬٩٩٩٬٩٩٩', { decimals: 3 }).failure;
    expect(tooMuch.message_en).toBe('"٩٩٬٩٩٩٬٩٩٩" is out of range: it must be between -2147483.648 and 2147483.647.');
    expect(tooMuch.message_ar).toBe('"٩٩٬٩٩٩٬٩٩٩" خارج النطاق: يجب أن يكون بين \u200E-2147483.648 و2147483.647.');
    expect(codeOf('to_decimal_minor', '12.5.1')).toBe('not_a_number');
    expect(codeOf('to_decimal_minor', '1,23.5')).toBe('not_a_number');
    expect(codeOf('to_decimal_minor', '.')).toBe('not_a_number');
    expect(codeOf('to_decimal_minor', false)).toBe('not_a_number');
  });

  it('reads number cells by their shortest decimal form at a spreadsheet’s 15 significant digits', () => {
    expect(19.99 * 100).not.toBe(1999);
    expect(run('to_decimal_minor', 19.99)).toBe(1999);
    expect(run('to_decimal_minor', 0.07)).toBe(7);
    expect(run('to_decimal_minor', 1.005, { decimals: 3 })).toBe(1005);
    expect(run('to_decimal_minor', 1234)).toBe(123400);
    expect(run('to_decimal_minor', -4.5)).toBe(-450);
    expect(run('to_decimal_minor', 2.675, { decimals: 3 })).toBe(2675);
    expect(run('to_decimal_minor', 0.1 + 0.7, { decimals: 1 })).toBe(8);
    expect(run('to_decimal_minor', 0.1 + 0.2)).toBe(30);
    expect(codeOf('to_decimal_minor', 0.123)).toBe('too_many_decimals');
    expect(codeOf('to_decimal_minor', 1.5e-7)).toBe('too_many_decimals');
    expect(codeOf('to_decimal_minor', 1e21)).toBe('out_of_range');
    expect(codeOf('to_decimal_minor', Number.NaN)).toBe('not_a_number');
  });
});

describe('dates', () => {
  const riyadh = { formats: ['dd/MM/yyyy', 'yyyy-MM-dd', 'd.M.yyyy'] };

  it('reads dates in several formats, by the first that reads them', () => {
    expect(run('parse_date', '31/01/2024', riyadh)).toBe('2024-01-31');
    expect(run('parse_date', '2024-02-29', riyadh)).toBe('2024-02-29');
    expect(run('parse_date', '5.3.2024', riyadh)).toBe('2024-03-05');
    expect(run('parse_date', ' ٠٣/٠٤/٢٠٢٤ ', riyadh)).toBe('2024-04-03');
    expect(run('parse_date', '03/04/2024', { formats: ['MM/dd/yyyy', 'dd/MM/yyyy'] })).toBe('2024-03-04');
    expect(run('parse_date', '12 Mar 2024', { formats: ['d MMM yyyy'] })).toBe('2024-03-12');
    expect(run('parse_date', '12 مارس ٢٠٢٤', { formats: ['d MMMM yyyy'] })).toBe('2024-03-12');
    expect(run('parse_date', '20240301', { formats: ['yyyyMMdd'] })).toBe('2024-03-01');
    expect(run('parse_date', ['01/02/2024', null], riyadh)).toEqual(['2024-02-01', null]);
    expect(run('parse_date', '  ', riyadh)).toBeNull();
  });

  it('gives date-times in UTC, reading times in the merchant’s timezone', () => {
    const format = { formats: ["yyyy-MM-dd'T'HH:mm:ss", 'dd/MM/yyyy HH:mm'], output: 'datetime' };
    expect(run('parse_date', '2024-03-01T23:30:00', format)).toBe('2024-03-01T20:30:00.000Z');
    expect(run('parse_date', '01/03/2024 23:30', { ...format, timezone: 'Asia/Dubai' })).toBe('2024-03-01T19:30:00.000Z');
    expect(run('parse_date', '01/03/2024', { formats: ['dd/MM/yyyy'], output: 'datetime' })).toBe('2024-02-29T21:00:00.000Z');
    expect(run('parse_date', '2024-03-01T23:30:00Z', { formats: ['ISO'] })).toBe('2024-03-02');
    expect(run('parse_date', '2024-03-01T23:30:00+03:00', { formats: ['ISO'], output: 'datetime' })).toBe('2024-03-01T20:30:00.000Z');
    expect(run('parse_date', '3/1/2024 1:05 PM', { formats: ['M/d/yyyy h:mm a'], output: 'datetime' })).toBe('2024-03-01T10:05:00.000Z');
  });

  it('reads number cells as Excel serials (1900 date system) or Unix times', () => {
    expect(run('parse_date', 45292, riyadh)).toBe('2024-01-01');
    expect(run('parse_date', 45292.75, { ...riyadh, output: 'datetime' })).toBe('2024-01-01T15:00:00.000Z');
    expect(run('parse_date', 1, riyadh)).toBe('1900-01-01');
    expect(run('parse_date', 59, riyadh)).toBe('1900-02-28');
    expect(run('parse_date', 61, riyadh)).toBe('1900-03-01');
    expect(run('parse_date', 2958465, riyadh)).toBe('9999-12-31');
    expect(codeOf('parse_date', 60, riyadh)).toBe('invalid_date');
    expect(codeOf('parse_date', 0.5, riyadh)).toBe('out_of_range');
    expect(codeOf('parse_date', 2958466, riyadh)).toBe('out_of_range');
    expect(run('parse_date', 1709325000, { ...riyadh, numbers: 'unix_seconds', output: 'datetime' })).toBe('2024-03-01T20:30:00.000Z');
    expect(run('parse_date', 1709325000000, { ...riyadh, numbers: 'unix_milliseconds' })).toBe('2024-03-01');
  });

  it('refuses dates that do not exist, values no format reads, and far years', () => {
    expect(codeOf('parse_date', '31/02/2024', riyadh)).toBe('invalid_date');
    expect(codeOf('parse_date', '29/02/2023', riyadh)).toBe('invalid_date');
    expect(codeOf('parse_date', '2024-13-01', riyadh)).toBe('invalid_date');
    expect(codeOf('parse_date', 'tomorrow', riyadh)).toBe('not_a_date');
    expect(codeOf('parse_date', '1/2/2024', { formats: ['dd/MM/yyyy'] })).toBe('not_a_date');
    expect(codeOf('parse_date', true, riyadh)).toBe('not_a_date');
    expect(codeOf('parse_date', '0024-01-01', riyadh)).toBe('out_of_range');

    const invalid = refusal('parse_date', '31/02/2024', riyadh).failure;
    expect(invalid.message_en).toBe('"31/02/2024" is not a date that exists (such as 31/02).');
    const unread = refusal('parse_date', 'tomorrow', riyadh).failure;
    expect(unread.message_en).toBe('"tomorrow" is not a date in the format "dd/MM/yyyy", "yyyy-MM-dd", "d.M.yyyy".');
    expect(unread.message_ar).toContain('ليس تاريخاً');
  });
});

describe('args checks', () => {
  it('names an unknown transform', () => {
    const [error] = checkTransformArgs('titlecase', {});
    expect(error).toMatchObject({ field: 'name', code: 'transform_unknown' });
    expect(error.message_en).toContain('"titlecase" is not a transform');
    expect(error.message_ar).toContain('"titlecase"');
  });

  it('names each bad arg by its path, in both languages', () => {
    expect(argErrors('trim', { collapse: true })).toEqual(['args.collapse arg_unknown']);
    expect(argErrors('lowercase', { locale: 'tr' })).toEqual(['args.locale arg_unknown']);
    expect(argErrors('trim', 'yes')).toEqual(['args arg_type']);
    expect(argErrors('trim', null)).toEqual([]);
    expect(argErrors('trim', { collapseSpaces: 'yes' })).toEqual(['args.collapseSpaces arg_type']);
    expect(argErrors('default', {})).toEqual(['args.value arg_required']);
    expect(argErrors('default', { value: null })).toEqual(['args.value arg_type']);
    expect(argErrors('map_values', { map: {} })).toEqual(['args.map arg_too_few']);
    expect(argErrors('map_values', { map: { a: {} }, otherwise: 'drop' })).toEqual([
      'args.map.a arg_type',
      'args.otherwise arg_not_allowed',
    ]);
    expect(argErrors('map_values', { map: { 'Red colour': [] } })).toEqual(['args.map["Red colour"] arg_type']);
    expect(argErrors('concat', { separator: 'x'.repeat(101) })).toEqual(['args.separator arg_too_long']);
    expect(argErrors('split', {})).toEqual(['args.separator arg_required']);
    expect(argErrors('split', { separator: '' })).toEqual(['args.separator arg_too_short']);
    expect(argErrors('split', { separator: [',', ''] })).toEqual(['args.separator[1] arg_too_short']);
    expect(argErrors('split', { separator: [] })).toEqual(['args.separator arg_too_few']);
    expect(argErrors('split', { separator: 1 })).toEqual(['args.separator arg_type']);
    expect(argErrors('to_integer', { thousandsSeparator: '_' })).toEqual(['args.thousandsSeparator arg_not_allowed']);
    expect(argErrors('to_decimal_minor', { decimals: 5 })).toEqual(['args.decimals arg_too_large']);
    expect(argErrors('to_decimal_minor', { decimals: 1.5 })).toEqual(['args.decimals arg_type']);
    expect(argErrors('to_decimal_minor', { decimals: -1 })).toEqual(['args.decimals arg_too_small']);
    expect(argErrors('parse_date', { formats: [] })).toEqual(['args.formats arg_too_few']);
    expect(argErrors('parse_date', { formats: 'dd/MM/yyyy' })).toEqual(['args.formats arg_type']);
    expect(argErrors('slugify', { maxLength: 201 })).toEqual(['args.maxLength arg_too_large']);

    const [required] = checkTransformArgs('parse_date', {});
    expect(required.message_en).toBe('"formats" is required.');
    expect(required.message_ar).toBe('"formats" مطلوب.');
    const [type] = checkTransformArgs('split', { separator: 1 });
    expect(type.message_en).toBe('"separator" must be text or a list.');
    expect(type.message_ar).toBe('يجب أن يكون "separator" نصاً أو قائمة.');
    const [unknown] = checkTransformArgs('slugify', { lang: 'ar' });
    expect(unknown.message_en).toBe('"lang" is not a setting of slugify.');
  });

  it('refuses patterns RE2 cannot compile, express or run small, too long or with unknown flags, naming the argument', () => {
    expect(argErrors('regex_replace', { pattern: '(', replacement: '' })).toEqual(['args.pattern pattern_invalid']);
    expect(argErrors('regex_replace', { pattern: '\\p{Nope}', replacement: '' })).toEqual(['args.pattern pattern_invalid']);
    expect(argErrors('regex_replace', { pattern: '\\p{Script_Extensions=Arabic}', replacement: '' })).toEqual([
      'args.pattern pattern_invalid',
    ]);
    expect(argErrors('regex_replace', { pattern: '(a)\\1', replacement: '' })).toEqual(['args.pattern pattern_unsupported']);
    expect(argErrors('regex_replace', { pattern: '(?<w>a)\\k<w>', replacement: '' })).toEqual(['args.pattern pattern_unsupported']);
    for (const lookaround of ['a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b']) {
      expect(argErrors('regex_replace', { pattern: lookaround, replacement: '' }), lookaround).toEqual([
        'args.pattern pattern_unsupported',
      ]);
    }
    expect(argErrors('regex_replace', { pattern: '[a-z]{0,600}', replacement: '' })).toEqual(['args.pattern pattern_too_large']);
    expect(argErrors('regex_replace', { pattern: 'x'.repeat(201), replacement: '' })).toEqual(['args.pattern arg_too_long']);
    expect(argErrors('regex_replace', { pattern: 'a', replacement: '', flags: 'gy' })).toEqual(['args.flags flags_invalid']);
    expect(argErrors('regex_replace', { pattern: 'a', replacement: '', flags: 'gg' })).toEqual(['args.flags flags_invalid']);
    expect(argErrors('regex_replace', { pattern: 'a' })).toEqual(['args.replacement arg_required']);
    // Linear matching makes nested repetition harmless: these were refused while patterns ran on JavaScript's engine.
    expect(argErrors('regex_replace', { pattern: '(a+)+$', replacement: '' })).toEqual([]);
    expect(argErrors('regex_replace', { pattern: '^(\\w+\\s?)*$', replacement: '' })).toEqual([]);

    const [invalid] = checkTransformArgs('regex_replace', { pattern: '[a-', replacement: '' });
    expect(invalid.message_en).toMatch(/^The pattern is not a valid regular expression/);
    expect(invalid.message_ar).toMatch(/^النمط ليس تعبيراً نمطياً صالحاً/);
    const [property] = checkTransformArgs('regex_replace', { pattern: '\\p{Nope}', replacement: '' });
    expect(property.message_en).toContain('\\p{Arabic} or \\p{Script=Arabic}');
    const [backreference] = checkTransformArgs('regex_replace', { pattern: '(a)\\1', replacement: '' });
    expect(backreference.message_en).toMatch(/cannot refer back to a group as \\1 does.*use \$1 or \$<name> in replacement/);
    expect(backreference.message_ar).toMatch(ARABIC);
    const [lookahead] = checkTransformArgs('regex_replace', { pattern: 'price(?=:)', replacement: '' });
    expect(lookahead.message_en).toMatch(/cannot look around a match as \(\?=…\) does.*pattern "price\(:\)" with replacement "cost\$1"/);
    expect(lookahead.message_ar).toMatch(ARABIC);
    const [large] = checkTransformArgs('regex_replace', { pattern: '[a-z]{0,600}', replacement: '' });
    expect(large.message_en).toMatch(/^The pattern is too large .*: 120\d steps, at most 1000/);
  });

  it('refuses a pattern saved before it ran on RE2 row by row, with the reason the mapping check now gives', () => {
    const failure = (args: object) => {
      try {
        applyTransforms('a:b', [{ name: 'regex_replace', args }]);
      } catch (error) {
        return (error as TransformError).failure;
      }
      throw new Error('accepted');
    };
    expect(failure({ pattern: 'a(?=:)', replacement: '' })).toMatchObject({
      code: 'pattern_unsupported',
      message_ar: expect.stringMatching(ARABIC),
    });
    expect(failure({ pattern: '\\cJ', replacement: '' })).toMatchObject({ code: 'pattern_invalid' });
  });

  it('checks separators, date formats, the timezone and map keys beyond the schema', () => {
    expect(argErrors('to_decimal_minor', { decimalSeparator: ',', thousandsSeparator: ',' })).toEqual([
      'args.thousandsSeparator separators_clash',
    ]);
    expect(argErrors('to_decimal_minor', { decimalSeparator: ',' })).toEqual([]);
    expect(argErrors('parse_date', { formats: ['dd/MM/yyyy', 'YYYY-MM-DD', 'HH:mm', "yyyy-MM-dd'T'HH:mm"] })).toEqual([
      'args.formats[1] format_invalid',
      'args.formats[2] format_incomplete',
    ]);
    expect(argErrors('parse_date', { formats: ['yyyy-MM-ddTHH:mm'] })).toEqual(['args.formats[0] format_invalid']);
    expect(argErrors('parse_date', { formats: ['ISO'], timezone: 'Arabia/Riyadh' })).toEqual(['args.timezone timezone_unknown']);
    expect(argErrors('parse_date', { formats: ['ISO'], timezone: 'UTC' })).toEqual([]);
    const [moment] = checkTransformArgs('parse_date', { formats: ['YYYY-MM-DD'] });
    expect(moment.message_en).toContain('"YYYY" in "YYYY-MM-DD" is not a date token');
    expect(argErrors('map_values', { map: { Yes: true, ' yes': false } })).toEqual(['args.map[" yes"] map_key_clash']);
    expect(argErrors('map_values', { map: { Yes: true, yes: true } })).toEqual([]);
    expect(argErrors('map_values', { map: { Yes: true, yes: false }, caseSensitive: true })).toEqual([]);
  });
});

describe('chains', () => {
  it('applies transforms in order', () => {
    const chain = [
      { name: 'trim' },
      { name: 'normalize_arabic' },
      { name: 'regex_replace', args: { pattern: '^ر\\.?س\\s*', replacement: '' } },
      { name: 'default', args: { value: '0' } },
      { name: 'to_decimal_minor', args: { decimals: 3 } },
    ];
    for (const step of chain) expect(checkTransformArgs(step.name, step.args)).toEqual([]);
    expect(applyTransforms('  ر.س ١٬٢٣٤٫٥  ', chain)).toBe(1234500);
    expect(applyTransforms(' \u200F ', chain)).toBe(0);
    expect(applyTransforms('x', [])).toBe('x');
  });

  it('turns several sources into one slug, and a list field into mapped values', () => {
    const slug = [{ name: 'concat', args: { separator: ' ' } }, { name: 'slugify' }];
    expect(applyTransforms(['عطر العود', null, 'Classic 100ml'], slug)).toBe('عطر-العود-classic-100ml');
    const tags = [
      { name: 'split', args: { separator: [',', '،'] } },
      { name: 'lowercase' },
      { name: 'map_values', args: { map: { new: 'جديد', sale: 'تخفيض' }, otherwise: 'reject' } },
    ];
    expect(applyTransforms('New، SALE', tags)).toEqual(['جديد', 'تخفيض']);
    expect(() => applyTransforms('New, old', tags)).toThrow(TransformError);
  });

  it('refuses an unknown transform with a TransformError rather than a crash', () => {
    expect(() => applyTransforms('x', [{ name: 'nope' }])).toThrow(TransformError);
  });
});
