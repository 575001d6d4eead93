import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { openReportFile, type ReportFileOptions } from '../../src/insights/exports/report-file.js';
import type { ReportColumnDoc, TableRow } from '../../src/insights/query/report-rows.js';

const COLUMNS: ReportColumnDoc[] = [
  { name: 'day', kind: 'dimension', type: 'date', label_en: 'Day', label_ar: 'اليوم' },
  { name: 'query', kind: 'dimension', type: 'text', label_en: 'Search query', label_ar: 'عبارة البحث' },
  { name: 'net_sales', kind: 'measure', type: 'money', label_en: 'Net sales', label_ar: 'صافي المبيعات' },
  { name: 'orders', kind: 'measure', type: 'count', label_en: 'Orders', label_ar: 'الطلبات' },
  { name: 'return_rate', kind: 'measure', type: 'ratio', label_en: 'Return rate', label_ar: 'معدل الإرجاع' },
];

const ROWS: TableRow[] = [
  { day: '2026-11-01', query: 'عطر العود', net_sales: 123456, orders: 3, return_rate: 0.25 },
  { day: '2026-11-02', query: 'line\nbreak, "quoted"', net_sales: -5, orders: 0, return_rate: null },
  { day: '2026-11-03', query: '=HYPERLINK("http://evil.example")', net_sales: 1, orders: 1, return_rate: 1 },
  { day: '2026-11-04', query: '-5 and +3 @home', net_sales: 0, orders: 10_000, return_rate: 0 },
  { day: '2026-11-05', query: 'مسك, "أبيض"', net_sales: 999_999_999_999, orders: 1, return_rate: 0.5 },
];

async function written(options: Partial<ReportFileOptions> & Pick<ReportFileOptions, 'format'>, rows = ROWS): Promise<Buffer> {
  const file = openReportFile({ columns: COLUMNS, language: 'en', currency: 'SAR', ...options });
  const content = buffer(file.content);
  await file.write(rows.slice(0, 2));
  await file.write(rows.slice(2));
  await file.end();
  return content;
}

/** An XLSX file's bytes as exceljs's reader takes them. */
async function xlsx(options: Partial<ReportFileOptions>, rows = ROWS): Promise<ArrayBuffer> {
  const bytes = await written({ format: 'xlsx', ...options }, rows);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
}

describe('report files', () => {
  it('CSV: UTF-8 with a byte order mark, CRLF records, RFC 4180 quoting, money exact in the major unit, formulas defused', async () => {
    const bytes = await written({ format: 'csv', language: 'ar' });
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    expect(text.split('\r\n')[0]).toBe('اليوم,عبارة البحث,صافي المبيعات (SAR),الطلبات,معدل الإرجاع');
    expect(text).toContain('"line\nbreak, ""quoted"""');
    const records = parse(text, { relaxQuotes: false }) as string[][];
    expect(records).toEqual([
      ['اليوم', 'عبارة البحث', 'صافي المبيعات (SAR)', 'الطلبات', 'معدل الإرجاع'],
      ['2026-11-01', 'عطر العود', '1234.56', '3', '0.25'],
      ['2026-11-02', 'line\nbreak, "quoted"', '-0.05', '0', ''],
      ['2026-11-03', `'=HYPERLINK("http://evil.example")`, '0.01', '1', '1'],
      ['2026-11-04', `'-5 and +3 @home`, '0.00', '10000', '0'],
      ['2026-11-05', 'مسك, "أبيض"', '9999999999.99', '1', '0.5'],
    ]);
  });

  it('CSV money follows the currency’s decimals (KWD 3, JPY none), and labels are read in the file’s language', async () => {
    const rows: TableRow[] = [
      { day: '2026-11-01', query: 'x', net_sales: 1234, orders: 1, return_rate: 0, labels: { query: { en: 'Oud', ar: 'عود' } } },
    ];
    const kwd = parse((await written({ format: 'csv', currency: 'KWD' }, rows)).subarray(3).toString('utf8')) as string[][];
    expect(kwd[0][2]).toBe('Net sales (KWD)');
    expect(kwd[1].slice(1, 3)).toEqual(['Oud', '1.234']);
    const jpy = parse((await written({ format: 'csv', currency: 'JPY', language: 'ar' }, rows)).subarray(3).toString('utf8')) as string[][];
    expect(jpy[1].slice(1, 3)).toEqual(['عود', '1234']);
  });

  it('a named value that is no dimension (a late order’s status) is written by its name in the file’s language', async () => {
    const columns: ReportColumnDoc[] = [
      { name: 'order', kind: 'dimension', type: 'text', label_en: 'Order', label_ar: 'الطلب' },
      { name: 'status', kind: 'measure', type: 'text', label_en: 'Status', label_ar: 'الحالة' },
    ];
    const rows: TableRow[] = [
      { order: 'o-1', status: 'delivered', labels: { order: { en: '#1', ar: '#1' }, status: { en: 'Delivered', ar: 'تم التسليم' } } },
      { order: 'o-2', status: 'unknown_status', labels: { order: { en: '#2', ar: '#2' } } },
    ];
    const csv = parse((await written({ format: 'csv', columns, language: 'ar' }, rows)).subarray(3).toString('utf8')) as string[][];
    expect(csv.slice(1)).toEqual([
      ['#1', 'تم التسليم'],
      ['#2', 'unknown_status'],
    ]);
  });

  it('XLSX: a bold frozen header in Arabic, right to left, money as numbers in riyals, dates as dates, text never a formula', async () => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await xlsx({ language: 'ar' }));
    expect(workbook.worksheets).toHaveLength(1);
    const sheet = workbook.worksheets[0];
    expect(sheet.name).toBe('التقرير');
    expect(sheet.views[0]).toMatchObject({ rightToLeft: true, state: 'frozen', ySplit: 1 });
    expect(sheet.getRow(1).values).toEqual([undefined, 'اليوم', 'عبارة البحث', 'صافي المبيعات (SAR)', 'الطلبات', 'معدل الإرجاع']);
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(sheet.rowCount).toBe(1 + ROWS.length);
    const first = sheet.getRow(2);
    expect(first.getCell(1).value).toEqual(new Date(Date.UTC(2026, 10, 1)));
    expect(first.getCell(1).numFmt).toBe('yyyy-mm-dd');
    expect(first.getCell(2).value).toBe('عطر العود');
    expect(first.getCell(3).value).toBe(1234.56);
    expect(first.getCell(3).numFmt).toBe('#,##0.00');
    expect(first.getCell(5).numFmt).toBe('0.00%');
    expect(sheet.getRow(3).getCell(2).value).toBe('line\nbreak, "quoted"');
    expect(sheet.getRow(3).getCell(5).value).toBeNull();
    const formula = sheet.getRow(4).getCell(2);
    expect(formula.type).toBe(ExcelJS.ValueType.String);
    expect(formula.value).toBe(`'=HYPERLINK("http://evil.example")`);
  });

  it('XLSX: rows beyond a worksheet’s capacity continue on a further sheet, headed alike, none lost', async () => {
    const rows = Array.from({ length: 7 }, (_, index) => ({
      day: '2026-11-01',
      query: `q${index}`,
      net_sales: index,
      orders: index,
      return_rate: 0,
    }));
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await xlsx({ rowsPerSheet: 3 }, rows));
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['Report', 'Report (2)', 'Report (3)']);
    const queries = workbook.worksheets.flatMap((sheet) => {
      expect(sheet.getRow(1).getCell(2).value).toBe('Search query');
      return sheet
        .getSheetValues()
        .slice(2)
        .map((values) => (values as unknown[])[2]);
    });
    expect(queries).toEqual(rows.map((row) => row.query));
  });

  it('an empty table is a file with its header only', async () => {
    const csv = parse((await written({ format: 'csv' }, [])).subarray(3).toString('utf8')) as string[][];
    expect(csv).toEqual([['Day', 'Search query', 'Net sales (SAR)', 'Orders', 'Return rate']]);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await xlsx({}, []));
    expect(workbook.worksheets[0].rowCount).toBe(1);
  });
});
