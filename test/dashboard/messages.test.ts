import { describe, expect, it } from 'vitest';
import { formatter } from '../../dashboard/src/i18n/format.js';
import { translate, translateCount, type CountKey } from '../../dashboard/src/i18n/messages.js';
import { valueText } from '../../dashboard/src/lib/reports.js';

/**
 * The dashboard's catalogue and formatter in Node (issue 25, item 9): counts in their plural forms by
 * `Intl.PluralRules` (Arabic's six categories), values of the other direction isolated inside a sentence,
 * and the member's digits, Arabic-Indic or Western, in everything the one formatter writes.
 */
const FSI = '\u2068';
const PDI = '\u2069';

describe('dashboard messages and formats', () => {
  it('a count takes the form Arabic grammar asks for: one, two, 3–10, 11–99 and 100 each their own', () => {
    const arabic = (count: number, key: CountKey = 'range.last') =>
      translateCount('ar', key, count, { count: formatter('ar', 'SAR', 'Asia/Riyadh', 'arab').number(count) });
    expect([1, 2, 3, 7, 10, 11, 30, 99, 100, 102, 103, 111, 365].map((count) => arabic(count))).toEqual([
      'آخر يوم',
      'آخر يومين',
      'آخر ٣ أيام',
      'آخر ٧ أيام',
      'آخر ١٠ أيام',
      'آخر ١١ يومًا',
      'آخر ٣٠ يومًا',
      'آخر ٩٩ يومًا',
      'آخر ١٠٠ يوم',
      'آخر ١٠٢ يوم',
      'آخر ١٠٣ أيام',
      'آخر ١١١ يومًا',
      'آخر ٣٦٥ يومًا',
    ]);
    expect([1, 2, 5, 12, 100].map((count) => arabic(count, 'hub.runs.records'))).toEqual([
      'سجل واحد',
      'سجلان',
      '٥ سجلات',
      '١٢ سجلًا',
      '١٠٠ سجل',
    ]);
    const english = (count: number) => translateCount('en', 'hub.runs.records', count, { count: String(count) });
    expect([0, 1, 2, 500].map(english)).toEqual(['0 records', '1 record', '2 records', '500 records']);
  });

  it('isolates a value of the other direction inside a sentence, and only such a value', () => {
    expect(translate('ar', 'hub.files.uploaded', { name: 'stock-1.csv', size: '٦١ بايت' })).toBe(`رُفع ${FSI}stock-1.csv${PDI} (٦١ بايت).`);
    expect(translate('ar', 'hub.mappings.sourceFor', { field: 'المخزون' })).not.toContain(FSI);
    expect(translate('en', 'hub.files.uploaded', { name: 'مخزون.csv', size: '61 bytes' })).toBe(
      `Uploaded ${FSI}مخزون.csv${PDI} (61 bytes).`,
    );
    expect(translate('en', 'hub.files.uploaded', { name: 'stock-1.csv', size: '61 bytes' })).toBe('Uploaded stock-1.csv (61 bytes).');
  });

  it('writes figures, money, dates and sizes in the digits chosen', () => {
    const western = formatter('ar', 'SAR', 'Asia/Riyadh', 'latn');
    const indic = formatter('ar', 'SAR', 'Asia/Riyadh', 'arab');
    expect(western.number(1234.5)).toBe('1,234.5');
    expect(indic.number(1234.5)).toBe('١٬٢٣٤٫٥');
    expect(western.money(1999)).toMatch(/^[^٠-٩]*19\.99[^٠-٩]*$/);
    expect(indic.money(1999)).toMatch(/١٩٫٩٩/);
    expect(western.date('2026-01-05')).toMatch(/2026/);
    expect(indic.date('2026-01-05')).toMatch(/٢٠٢٦/);
    expect(indic.bytes(61)).toBe('٦١ بايت');
    const english = formatter('en', 'SAR', 'Asia/Riyadh', 'latn');
    expect([1, 61, 1_500, 2_400_000].map(english.bytes)).toEqual(['1 byte', '61 bytes', '1.5 kB', '2.4 MB']);
  });

  it('a table or chart names a month as one and a tax rate in the member’s digits; other values by the API’s label', () => {
    const indic = formatter('ar', 'SAR', 'Asia/Riyadh', 'arab');
    const western = formatter('ar', 'SAR', 'Asia/Riyadh', 'latn');
    const english = formatter('en', 'SAR', 'Asia/Riyadh', 'latn');
    const rate = { name: 'tax_rate', type: 'text' };
    const row = { tax_rate: '1500', labels: { tax_rate: { en: '15%', ar: '15٪' } } };
    expect([valueText(row, rate, 'ar', indic), valueText(row, rate, 'ar', western), valueText(row, rate, 'en', english)]).toEqual([
      // Arabic's own percent sign (and the letter mark Intl puts after it), in the chosen digits.
      expect.stringMatching(/^١٥٪/),
      expect.stringMatching(/^15٪/),
      '15%',
    ]);
    expect(valueText({ tax_rate: '1250' }, rate, 'en', english)).toBe('12.5%');
    const cohort = { name: 'cohort', type: 'date' };
    expect(valueText({ cohort: '2025-11-01' }, cohort, 'en', english)).toBe('Nov 2025');
    expect(valueText({ cohort: '2025-11-01' }, cohort, 'ar', indic)).toMatch(/^نوفمبر ٢٠٢٥$/);
    // A schedule's time of day, in the member's digits.
    expect([indic.clock('08:00'), western.clock('20:30'), english.clock('08:00')]).toEqual(['٠٨:٠٠', '20:30', '08:00']);
    const lastSold = { name: 'last_sold_on', type: 'date' };
    expect(valueText({ last_sold_on: null, labels: { last_sold_on: { en: 'Never sold', ar: 'لم يُبع قط' } } }, lastSold, 'ar', indic)).toBe(
      'لم يُبع قط',
    );
  });
});
