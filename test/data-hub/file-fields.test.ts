import ExcelJS from 'exceljs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FileFieldsError, HEADER_MAX_BYTES, readFileFields } from '../../src/infra/tabular/file-fields.js';
import { CELL_MAX_CHARS } from '../../src/infra/tabular/file-refusal.js';
import type { SourceFormat } from '../../src/infra/tabular/formats.js';
import { inlineRow, workbookParts, zipArchive } from './zip-files.js';

const fileOf = (text: string | Buffer) => Readable.from([typeof text === 'string' ? Buffer.from(text) : text]);

/** A file whose start is `head` and whose rest never comes: reading it to the end would never finish. */
function endless(head: string): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) this.push(Buffer.from(head));
      sent = true;
    },
  });
}

async function refusal(content: Readable, format: SourceFormat): Promise<FileFieldsError> {
  const error = await readFileFields(content, format).then(
    (fields) => new Error(`read ${JSON.stringify(fields)}`),
    (refused: unknown) => refused,
  );
  expect(error).toBeInstanceOf(FileFieldsError);
  return error as FileFieldsError;
}

async function workbook(rows: ExcelJS.CellValue[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('المخزون');
  for (const row of rows) sheet.addRow(row);
  book.addWorksheet('Other').addRow(['not', 'this']);
  return Buffer.from(await book.xlsx.writeBuffer());
}

describe('field discovery: the fields a file offers a mapping', () => {
  it('reads a CSV header (byte order mark, Arabic, RFC 4180 quotes, CRLF) and only the header', async () => {
    const csv = '\uFEFFرمز المنتج,"Price, SAR","Name\r\n(Arabic)",  stock  \r\nSKU-1,45.50,قهوة,3\r\n';
    await expect(readFileFields(fileOf(csv), 'csv')).resolves.toEqual(['رمز المنتج', 'Price, SAR', 'Name\r\n(Arabic)', 'stock']);
    await expect(readFileFields(endless('sku,quantity\nSKU-1,4\nSKU-2,'), 'csv')).resolves.toEqual(['sku', 'quantity']);
  });

  it('refuses an empty CSV, a nameless or repeated column, and a header that never ends', async () => {
    expect((await refusal(fileOf(''), 'csv')).code).toBe('file_empty');
    expect((await refusal(fileOf('\uFEFF'), 'csv')).code).toBe('file_empty');
    const nameless = await refusal(fileOf('sku,,stock\n'), 'csv');
    expect([nameless.code, nameless.reason.en, nameless.reason.ar]).toEqual([
      'header_unreadable',
      'The header could not be read: column 2 has no name.',
      'تعذّرت قراءة الترويسة: العمود 2 بلا اسم.',
    ]);
    expect((await refusal(fileOf('sku,Stock,sku\n'), 'csv')).reason.en).toContain('"sku" appears twice');
    const unterminated = await refusal(fileOf(`"sku,${'x'.repeat(HEADER_MAX_BYTES + 10)}`), 'csv');
    expect(unterminated.code).toBe('header_unreadable');
  });

  it('takes the keys of the first JSON lines in the order first seen, and refuses a line that is not an object', async () => {
    const jsonl = '\uFEFF{"sku":"SKU-1","stock":3}\n\n{"sku":"SKU-2","price":"80.00","الاسم":"تمر"}\r\n{"stock":1}\n';
    await expect(readFileFields(fileOf(jsonl), 'jsonl')).resolves.toEqual(['sku', 'stock', 'price', 'الاسم']);
    const manyLines = Array.from({ length: 150 }, (_, i) => JSON.stringify({ sku: `S${i}`, [`late_${i}`]: 1 })).join('\n');
    expect(await readFileFields(fileOf(manyLines), 'jsonl')).toHaveLength(101); // sku and the first 100 records' own key
    expect((await refusal(fileOf('{"sku":1}\n[1,2]\n'), 'jsonl')).reason.en).toContain('line 2 is not a JSON object');
    expect((await refusal(fileOf('{"sku":1\n'), 'jsonl')).reason.en).toContain('line 1 is not JSON');
    expect((await refusal(fileOf('\n\n'), 'jsonl')).code).toBe('file_empty');
  });

  it("reads the first row of an XLSX file's first worksheet, and refuses what is not a workbook", async () => {
    const book = await workbook([
      [
        'رمز المنتج',
        { richText: [{ text: 'Price ' }, { text: '(SAR)', font: { bold: true } }] },
        2026,
        { formula: '"st"&"ock"', result: 'stock' },
      ],
      ['SKU-1', 45.5, 1, 'x'],
    ]);
    await expect(readFileFields(fileOf(book), 'xlsx')).resolves.toEqual(['رمز المنتج', 'Price (SAR)', '2026', 'stock']);
    expect((await refusal(fileOf('sku,stock\n'), 'xlsx')).code).toBe('header_unreadable');
    expect((await refusal(fileOf(await workbook([])), 'xlsx')).code).toBe('file_empty');
  });

  it('refuses what a run refuses, before it takes the memory: a zip bomb, a header cell past the limit, a line nested too deep', async () => {
    const megabyte = Buffer.alloc(1024 * 1024, 'a');
    const bomb = await zipArchive(
      workbookParts([Buffer.from('<row r="1"><c r="A1" t="inlineStr"><is><t>'), ...Array.from({ length: 200 }, () => megabyte)]),
    );
    const started = performance.now();
    const unpacked = await refusal(fileOf(bomb), 'xlsx');
    expect(performance.now() - started).toBeLessThan(1000);
    expect([unpacked.code, unpacked.reason.en]).toEqual([
      'header_unreadable',
      expect.stringContaining('more than 100 times its packed size'),
    ]);
    const wide = await refusal(fileOf(await zipArchive(workbookParts([inlineRow(1, ['sku', 'x'.repeat(CELL_MAX_CHARS + 1)])]))), 'xlsx');
    expect(wide.reason.en).toBe(`The header's column B holds 32,768 characters, more than the 32,767 a cell may hold (Excel's own limit).`);
    expect((await refusal(fileOf(`sku,${'x'.repeat(CELL_MAX_CHARS + 1)}\n`), 'csv')).reason.en).toContain(
      "The header's column 2 holds 32,768",
    );
    const deep = await refusal(fileOf(`{"sku":1}\n{"sku":${'['.repeat(100_000)}${']'.repeat(100_000)}}\n`), 'jsonl');
    expect([deep.code, deep.reason.en]).toEqual(['header_unreadable', 'The header could not be read: line 2 nests deeper than 64 levels.']);
  });
});
