import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readFileFields } from '../../src/infra/tabular/file-fields.js';
import { CELL_MAX_CHARS, FileRowsError, RECORD_MAX_BYTES } from '../../src/infra/tabular/file-refusal.js';
import { JSON_DEPTH_MAX } from '../../src/infra/tabular/jsonl-reader.js';
import { readRows, type ReadRowsOptions } from '../../src/infra/tabular/read-rows.js';
import { cellOf, type RowProblem, type SourceRow } from '../../src/infra/tabular/table-rows.js';
import { HELD_PART_MAX_BYTES, XML_RUN_MAX_BYTES } from '../../src/infra/tabular/xlsx-archive-guard.js';
import { ARABIC } from '../support/problem.js';
import { inlineRow, workbookParts, zipArchive } from './zip-files.js';

const CSV: ReadRowsOptions = { format: 'csv' };
const JSONL: ReadRowsOptions = { format: 'jsonl' };
const XLSX: ReadRowsOptions = { format: 'xlsx' };

const fileOf = (...chunks: (string | Buffer)[]) =>
  Readable.from(chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));

/** The file a byte at a time: every character split between chunks. */
const byteByByte = (text: string) => Readable.from([...Buffer.from(text)].map((byte) => Buffer.from([byte])));

/** The file in chunks of `size` bytes, as a file or object store gives it. */
const inChunks = (bytes: Buffer, size = 64 * 1024) =>
  Readable.from(Array.from({ length: Math.ceil(bytes.length / size) }, (_, index) => bytes.subarray(index * size, (index + 1) * size)));

async function read(content: Readable, options: ReadRowsOptions): Promise<{ header: string[]; items: (SourceRow | RowProblem)[] }> {
  const rows = readRows(content, options);
  const items: (SourceRow | RowProblem)[] = [];
  for await (const item of rows) items.push(item);
  return { header: await rows.header, items };
}

async function refusal(content: Readable, options: ReadRowsOptions): Promise<FileRowsError> {
  const error = await read(content, options).then(
    (read) => new Error(`read ${JSON.stringify(read)}`),
    (refused: unknown) => refused,
  );
  expect(error).toBeInstanceOf(FileRowsError);
  return error as FileRowsError;
}

/** A stream that gives `head`, then fails as a lost connection does. */
function failingAfter(head: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (sent) this.destroy(new Error('connection lost'));
      else this.push(head);
      sent = true;
    },
  });
}

async function workbook(fill: (sheet: ExcelJS.Worksheet) => void): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  fill(book.addWorksheet('المخزون'));
  book.addWorksheet('Other').addRow(['not', 'this']);
  return Buffer.from(await book.xlsx.writeBuffer());
}

describe('reading CSV rows', () => {
  it('zips records with the header: byte order mark, trimmed names, CRLF, missing cells null, blank lines skipped', async () => {
    const csv = '\uFEFF sku , price ,الاسم\r\nA-1,45.50,قهوة\r\n\r\nA-2,3\r\n,,\r\n  \r\nA-3,,"تمر ""سكري"", فاخر"\r\n';
    expect(await read(fileOf(csv), CSV)).toEqual({
      header: ['sku', 'price', 'الاسم'],
      items: [
        { line: 2, values: { sku: 'A-1', price: '45.50', الاسم: 'قهوة' } },
        { line: 4, values: { sku: 'A-2', price: '3', الاسم: null } },
        { line: 7, values: { sku: 'A-3', price: '', الاسم: 'تمر "سكري", فاخر' } },
      ],
    });
  });

  it('gives a record spanning lines the line it starts on, whatever the line breaks inside its quotes', async () => {
    const csv = 'sku,description\n"A-1","first\nsecond"\nA-2,"x\r\ny\r\nz"\n\nA-3,plain\n"A-4","\n"\nA-5,"\r"\n';
    const rows = (await read(fileOf(csv), CSV)).items;
    expect((await read(byteByByte(csv), CSV)).items).toEqual(rows);
    expect(rows).toEqual([
      { line: 2, values: { sku: 'A-1', description: 'first\nsecond' } },
      { line: 4, values: { sku: 'A-2', description: 'x\r\ny\r\nz' } },
      { line: 8, values: { sku: 'A-3', description: 'plain' } },
      { line: 9, values: { sku: 'A-4', description: '\n' } },
      { line: 11, values: { sku: 'A-5', description: '\r' } },
    ]);
    const crlf = 'sku,description\r\n"A-1","a\r\nb\r\nc"\r\nA-2,d\r\n';
    expect((await read(byteByByte(crlf), CSV)).items.map((item) => item.line)).toEqual([2, 5]);
  });

  it('rejects a record with values past the header, and reads on', async () => {
    const { header, items } = await read(fileOf('sku,stock,,\nA-1,3,,\nA-2,4,oops,\nA-3,5\n'), CSV);
    expect(header).toEqual(['sku', 'stock']); // Excel writes nameless trailing columns as empty cells
    expect(items).toEqual([
      { line: 2, values: { sku: 'A-1', stock: '3' } },
      {
        line: 3,
        code: 'extra_columns',
        message_en: 'The record has 3 values, but the header names 2 columns.',
        message_ar: 'في السجل 3 قيمة، لكن الترويسة تسمي 2 عموداً.',
        values: { sku: 'A-2', stock: '4' },
      },
      { line: 4, values: { sku: 'A-3', stock: '5' } },
    ]);
  });

  it('refuses a header with a nameless or repeated column, naming it', async () => {
    const nameless = await refusal(fileOf('sku,,stock\nA-1,x,3\n'), CSV);
    expect([nameless.code, nameless.reason]).toEqual([
      'header_invalid',
      { en: 'The header could not be read: column 2 has no name.', ar: 'تعذّرت قراءة الترويسة: العمود 2 بلا اسم.' },
    ]);
    expect((await refusal(fileOf('sku,Stock,sku \n'), CSV)).reason.en).toContain('the column "sku" appears twice');
    expect((await refusal(fileOf('sku,price,sku,price\n'), CSV)).reason.en).toContain('the columns "sku", "price" appear more than once');
    await expect(readRows(fileOf('sku,sku\n'), CSV).header).rejects.toMatchObject({ code: 'header_invalid' });
  });

  it('tells the delimiter from the header: the most frequent of comma, semicolon and tab outside quotes', async () => {
    const semicolons = await read(fileOf('sku;"price, SAR";name\nA-1;45,50;"a;b"\n'), CSV);
    expect(semicolons).toEqual({
      header: ['sku', 'price, SAR', 'name'],
      items: [{ line: 2, values: { sku: 'A-1', 'price, SAR': '45,50', name: 'a;b' } }],
    });
    expect((await read(fileOf('sku\tstock\nA-1\t3\n'), CSV)).items).toEqual([{ line: 2, values: { sku: 'A-1', stock: '3' } }]);
    expect((await read(fileOf('sku\nA-1;2\n'), CSV)).items).toEqual([{ line: 2, values: { sku: 'A-1;2' } }]);
    expect(await readFileFields(fileOf('sku;stock\nA-1;3\n'), 'csv')).toEqual(['sku', 'stock']);
  });

  it('refuses a misplaced or unclosed quote with its line', async () => {
    const inside = await refusal(fileOf('sku,name\nA-1,ok\nA-2,ab"c\n'), CSV);
    expect([inside.code, inside.reason.en]).toEqual(['csv_malformed', expect.stringContaining('line 3 has a quote inside a field')]);
    expect(inside.reason.ar).toContain('في السطر 3');
    const afterLines = await refusal(fileOf('sku,d\r\nA,"1\r\n2\r\n3"\r\nB,"x"y\r\n'), CSV);
    expect(afterLines.reason.en).toContain('line 5');
    const unclosed = await refusal(fileOf('sku,name\nA-1,x\nA-2,"never closed\nA-3,y\n'), CSV);
    expect([unclosed.code, unclosed.reason.en]).toEqual(['csv_malformed', expect.stringContaining('starting at line 3 is never closed')]);
  });

  it('refuses a line or record longer than 1 MiB without holding it', async () => {
    const long = await refusal(inChunks(Buffer.from(`sku,name\nA-1,x\nA-2,${'x'.repeat(RECORD_MAX_BYTES + 1)}\n`)), CSV);
    expect([long.code, long.reason.en]).toEqual(['record_too_large', expect.stringContaining('starting at line 3 is longer than 1 MiB')]);
    const delimiters = await refusal(inChunks(Buffer.from(`sku,name\n${','.repeat(4 * RECORD_MAX_BYTES)}`)), CSV);
    expect(delimiters.code).toBe('record_too_large');
    const unclosed = await refusal(inChunks(Buffer.from(`sku,name\nA-1,"${'abc\n'.repeat(RECORD_MAX_BYTES / 2)}`)), CSV);
    expect([unclosed.code, unclosed.reason.en]).toEqual(['record_too_large', expect.stringContaining('line 2')]);
    const header = await refusal(inChunks(Buffer.from(`sku,${'n'.repeat(RECORD_MAX_BYTES)}`)), CSV);
    expect([header.code, header.reason.en]).toEqual(['record_too_large', expect.stringContaining('line 1')]);
  });

  it('reads an empty file, blank lines or a header alone as no rows', async () => {
    for (const csv of ['', '\uFEFF', '\n\r\n', ',,\n'])
      expect(await read(fileOf(csv), CSV), JSON.stringify(csv)).toEqual({ header: [], items: [] });
    expect(await read(fileOf('sku,price\r\n'), CSV)).toEqual({ header: ['sku', 'price'], items: [] });
    expect(await read(fileOf('sku,price'), CSV)).toEqual({ header: ['sku', 'price'], items: [] });
  });
});

describe('reading text in its encoding', () => {
  const arabic = 'sku,name\nA-1,coffee\nA-2,قهوة عربية،  هيل\n';

  it('reads a Windows-1256 (Arabic Excel) CSV with the encoding set, and refuses it as UTF-8 saying what it looks like', async () => {
    const windows = iconv.encode(arabic, 'windows-1256');
    expect((await read(fileOf(windows), { format: 'csv', encoding: 'windows-1256' })).items).toEqual([
      { line: 2, values: { sku: 'A-1', name: 'coffee' } },
      { line: 3, values: { sku: 'A-2', name: 'قهوة عربية،  هيل' } },
    ]);
    const refused = await refusal(fileOf(windows), CSV);
    expect([refused.code, refused.reason.en]).toEqual([
      'encoding_invalid',
      'The file is not UTF-8 text (line 3): it looks like Arabic Windows text (Windows-1256). Set the flow\'s encoding to windows-1256, or save the file as "CSV UTF-8".',
    ]);
    expect(refused.reason.ar).toContain('Windows-1256');
    expect(await readFileFields(fileOf(iconv.encode('رمز,السعر\n', 'windows-1256')), 'csv', 'windows-1256')).toEqual(['رمز', 'السعر']);
  });

  it('refuses other text that is not UTF-8 without guessing Arabic, and never yields replacement characters', async () => {
    const latin = await refusal(fileOf(Buffer.from('sku,name\nA-1,café crème\n', 'latin1')), CSV);
    expect([latin.code, latin.reason.en]).toEqual([
      'encoding_invalid',
      expect.stringContaining('not UTF-8 text (line 2). Save it as UTF-8'),
    ]);
    expect(latin.reason.en).not.toContain('Windows-1256');
    const cut = await refusal(fileOf(Buffer.from('sku\nA-1\nقهوة'), Buffer.from('ق').subarray(0, 1)), CSV);
    expect(cut.code).toBe('encoding_invalid');
    const afterReplacement = await refusal(
      fileOf(Buffer.concat([Buffer.from('sku\n\uFFFD\n'), Buffer.from([0xe9]), Buffer.from('\n')])),
      CSV,
    );
    expect(afterReplacement.reason.en).toContain('line 3');
    expect((await read(fileOf('sku\nA\uFFFD\n'), CSV)).items).toEqual([{ line: 2, values: { sku: 'A\uFFFD' } }]);
    const utf16 = await refusal(fileOf(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('sku\n', 'utf16le')])), CSV);
    expect([utf16.code, utf16.reason.en]).toEqual(['encoding_invalid', expect.stringContaining('UTF-16')]);
  });

  it('reads UTF-8 split between chunks anywhere', async () => {
    expect(await read(byteByByte(`\uFEFF${arabic}`), CSV)).toEqual({
      header: ['sku', 'name'],
      items: [
        { line: 2, values: { sku: 'A-1', name: 'coffee' } },
        { line: 3, values: { sku: 'A-2', name: 'قهوة عربية،  هيل' } },
      ],
    });
  });

  it('refuses UTF-8 read as Windows-1256 rather than turn it into gibberish', async () => {
    const plain = await refusal(fileOf(arabic), { format: 'csv', encoding: 'windows-1256' });
    expect([plain.code, plain.reason.en]).toEqual([
      'encoding_invalid',
      "The file is UTF-8 text, but the flow's encoding is windows-1256: set it to utf-8.",
    ]);
    expect((await refusal(fileOf('\uFEFFsku\nA-1\n'), { format: 'csv', encoding: 'windows-1256' })).code).toBe('encoding_invalid');
    expect((await read(fileOf('sku\nA-1\n'), { format: 'csv', encoding: 'windows-1256' })).items).toEqual([
      { line: 2, values: { sku: 'A-1' } },
    ]);
  });

  it('refuses what is not text: binary data, a workbook', async () => {
    const garbage = Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919 + 13) % 256));
    expect((await refusal(fileOf(garbage), CSV)).code).toMatch(/^(encoding_invalid|format_mismatch)$/);
    expect((await refusal(fileOf(garbage), { format: 'csv', encoding: 'windows-1256' })).code).toBe('format_mismatch');
    const nul = await refusal(fileOf('sku\nA\u0000B\n'), JSONL);
    expect([nul.code, nul.reason.en]).toEqual(['format_mismatch', 'The file holds binary data (a NUL byte at line 2), not text.']);
    const book = await workbook((sheet) => sheet.addRow(['sku']));
    const zip = await refusal(fileOf(book), CSV);
    expect([zip.code, zip.reason.en]).toEqual(['format_mismatch', expect.stringContaining("set the flow's format to xlsx")]);
  });
});

describe('reading JSON lines', () => {
  it('reads each line as an object, a line that is not one a problem, nested values as JSON text or lists', async () => {
    const jsonl = [
      '\uFEFF{"sku":"A-1","price":45.5,"active":true,"note":null}\r',
      '',
      '{"sku":"A-2","tags":["a",1,{"k":"v"}],"dims":{"w":2}}',
      '[1,2]',
      '{"sku":',
      '"text"',
      '{"sku":"A-3","barcode":62810000000000012345}',
      '   ',
      '{"sku":"A-4"}',
    ].join('\n');
    const { header, items } = await read(fileOf(jsonl), JSONL);
    expect(header).toEqual([]);
    expect(items).toEqual([
      { line: 1, values: { sku: 'A-1', price: 45.5, active: true, note: null } },
      { line: 3, values: { sku: 'A-2', tags: ['a', 1, '{"k":"v"}'], dims: '{"w":2}' } },
      {
        line: 4,
        code: 'not_json_object',
        message_en: 'The line holds an array, not a JSON object.',
        message_ar: 'السطر لا يحتوي كائن JSON.',
        values: undefined,
      },
      expect.objectContaining({ line: 5, code: 'not_json_object', message_en: expect.stringMatching(/^The line is not JSON \(.+\)\.$/) }),
      expect.objectContaining({ line: 6, code: 'not_json_object', message_en: 'The line holds a string, not a JSON object.' }),
      { line: 7, values: { sku: 'A-3', barcode: '62810000000000012345' } },
      { line: 9, values: { sku: 'A-4' } },
    ]);
    expect(cellOf(items[6] as SourceRow, 'price')).toBeNull();
    expect(cellOf(items[6] as SourceRow, 'constructor')).toBeNull();
  });

  it('refuses a line longer than 1 MiB, and reads an empty file as no rows', async () => {
    const long = await refusal(inChunks(Buffer.from(`{"sku":"A-1"}\n{"sku":"${'x'.repeat(RECORD_MAX_BYTES)}"}\n`)), JSONL);
    expect([long.code, long.reason.en]).toEqual(['record_too_large', expect.stringContaining('line 2')]);
    expect(await read(fileOf(''), JSONL)).toEqual({ header: [], items: [] });
  });
});

describe('reading XLSX rows', () => {
  it("reads the first worksheet's rows: shared strings, numbers, dates, formulas' results, rich text, links", async () => {
    const book = await workbook((sheet) => {
      sheet.getRow(2).values = ['sku', 'الاسم', 'price', 'added', 'at', 'total', 'link', 'active', 'note'];
      sheet.getRow(3).values = [
        'A-1',
        'قهوة',
        45.5,
        new Date(Date.UTC(2026, 2, 1)),
        new Date(Date.UTC(2026, 2, 1, 14, 30)),
        { formula: 'C3*2', result: 91 },
        { text: 'the site', hyperlink: 'https://example.com' },
        true,
        { richText: [{ text: 'dark ' }, { text: 'roast', font: { bold: true } }] },
      ];
      sheet.getRow(5).values = [
        'A-2',
        'قهوة',
        3,
        null,
        null,
        { formula: 'D3+1', result: 46083 },
        null,
        false,
        { formula: '"a"&"b"', result: 'ab' },
      ];
      sheet.getCell('F5').numFmt = 'yyyy-mm-dd';
    });
    expect(book.includes('xl/sharedStrings.xml')).toBe(true);
    expect(await read(fileOf(book), XLSX)).toEqual({
      header: ['sku', 'الاسم', 'price', 'added', 'at', 'total', 'link', 'active', 'note'],
      items: [
        {
          line: 3,
          values: {
            sku: 'A-1',
            الاسم: 'قهوة',
            price: 45.5,
            added: '2026-03-01',
            at: '2026-03-01T14:30:00.000Z',
            total: 91,
            link: 'the site',
            active: true,
            note: 'dark roast',
          },
        },
        {
          line: 5,
          values: {
            sku: 'A-2',
            الاسم: 'قهوة',
            price: 3,
            added: null,
            at: null,
            total: '2026-03-02',
            link: null,
            active: false,
            note: 'ab',
          },
        },
      ],
    });
  });

  it('rejects a row with an error cell or an uncalculated formula in a column read, and values past the header', async () => {
    const book = await workbook((sheet) => {
      sheet.addRow(['sku', 'price', 'lookup']);
      sheet.addRow(['A-1', 10, { error: '#N/A' }]);
      sheet.addRow(['A-2', { formula: 'B2*2' }, 'x']);
      sheet.addRow(['A-3', 1, 'y', 'extra']);
    });
    const { items } = await read(fileOf(book), XLSX);
    expect(items).toEqual([
      {
        line: 2,
        code: 'cell_error',
        message_en: 'Cell C2 (lookup) holds the error #N/A.',
        message_ar: 'الخلية C2 (lookup) تحتوي الخطأ #N/A.',
        values: { sku: 'A-1', price: 10, lookup: null },
      },
      expect.objectContaining({
        line: 3,
        code: 'cell_error',
        message_en: expect.stringContaining('Cell B3 (price) holds a formula whose result'),
      }),
      expect.objectContaining({ line: 4, code: 'extra_columns', values: { sku: 'A-3', price: 1, lookup: 'y' } }),
    ]);
    const mapped = await read(fileOf(book), { format: 'xlsx', columns: ['sku', 'price'] });
    expect(mapped.items[0]).toEqual({ line: 2, values: { sku: 'A-1', price: 10, lookup: null } });
  });

  it('refuses a header with a nameless column by its letter, and what is not a workbook', async () => {
    const nameless = await workbook((sheet) => sheet.addRow(['sku', null, 'stock']));
    expect((await refusal(fileOf(nameless), XLSX)).reason.en).toBe('The header could not be read: column B has no name.');
    const csv = await refusal(fileOf('sku,stock\nA-1,3\n'), XLSX);
    expect([csv.code, csv.reason.en]).toEqual(['format_mismatch', expect.stringContaining('not an XLSX workbook')]);
    const whole = await workbook((sheet) => sheet.addRow(['sku']));
    expect((await refusal(fileOf(whole.subarray(0, whole.length / 2)), XLSX)).code).toBe('format_mismatch');
  });

  it('reads an empty file or an empty worksheet as no rows', async () => {
    expect(await read(fileOf(''), XLSX)).toEqual({ header: [], items: [] });
    expect(await read(fileOf(await workbook(() => {})), XLSX)).toEqual({ header: [], items: [] });
    expect(await read(fileOf(await workbook((sheet) => sheet.addRow(['sku', 'stock']))), XLSX)).toEqual({
      header: ['sku', 'stock'],
      items: [],
    });
  });
});

describe('reading from a stream', () => {
  it("fails with the stream's own error when the connection is lost midway", async () => {
    for (const [format, head] of [
      ['csv', Buffer.from('sku,stock\nA-1,3\nA-2,')],
      ['jsonl', Buffer.from('{"sku":"A-1"}\n{"sku"')],
    ] as const) {
      const rows = readRows(failingAfter(head), { format });
      const seen: unknown[] = [];
      await expect(
        (async () => {
          for await (const item of rows) seen.push(item);
        })(),
      ).rejects.toThrow('connection lost');
      expect(seen).toHaveLength(1);
    }
    const book = await workbook((sheet) => {
      for (let row = 0; row < 2000; row++) sheet.addRow([`A-${row}`, row]);
    });
    await expect(read(failingAfter(book.subarray(0, book.length / 2)), XLSX)).rejects.toThrow('connection lost');
  });

  it('gives the header before the rows, and stops reading the stream when the caller stops', async () => {
    const content = fileOf('sku\nA-1\nA-2\nA-3\n');
    const rows = readRows(content, CSV);
    expect(await rows.header).toEqual(['sku']);
    for await (const row of rows) {
      expect(row).toEqual({ line: 2, values: { sku: 'A-1' } });
      break;
    }
    expect(content.destroyed).toBe(true);
  });
});

describe('refusing what would take the memory: cells, rows, nesting and workbook parts past their limits (issue 24)', () => {
  /** Text that does not pack (random base64): a workbook holding it unpacks at about 1.3 to one. */
  const noise = (characters: number) =>
    randomBytes(Math.ceil((characters * 3) / 4) + 3)
      .toString('base64')
      .slice(0, characters);
  const tooLong = (characters: number) =>
    `${characters.toLocaleString('en')} characters, more than the ${CELL_MAX_CHARS.toLocaleString('en')} a cell may hold (Excel's own limit).`;

  it('refuses a CSV or JSON lines cell longer than 32,767 characters, naming it; one of 32,767 is read', async () => {
    const longest = 'x'.repeat(CELL_MAX_CHARS);
    expect((await read(fileOf(`sku,name\nA-1,${longest}\n`), CSV)).items).toEqual([{ line: 2, values: { sku: 'A-1', name: longest } }]);
    const csv = await refusal(fileOf(`sku,name\nA-1,${longest}\nA-2,"${longest}y"\n`), CSV);
    expect([csv.code, csv.reason.en]).toEqual([
      'cell_too_large',
      `The cell of column "name" on line 3 holds ${tooLong(CELL_MAX_CHARS + 1)}`,
    ]);
    expect(csv.reason.ar).toMatch(ARABIC);
    const header = await refusal(fileOf(`sku,${'n'.repeat(CELL_MAX_CHARS + 1)}\n`), CSV);
    expect([header.code, header.reason.en]).toEqual(['cell_too_large', `The header's column 2 holds ${tooLong(CELL_MAX_CHARS + 1)}`]);

    expect((await read(fileOf(`{"sku":"A-1","name":"${longest}"}\n`), JSONL)).items).toEqual([
      { line: 1, values: { sku: 'A-1', name: longest } },
    ]);
    const listed = await refusal(fileOf(`{"sku":"A-1"}\n{"sku":"A-2","tags":["a","${longest}y"]}\n`), JSONL);
    expect([listed.code, listed.reason.en]).toEqual([
      'cell_too_large',
      `The value of "tags" on line 2 holds ${tooLong(CELL_MAX_CHARS + 1)}`,
    ]);
    const nested = await refusal(fileOf(`{"sku":"A-1","specs":{"text":"${longest}"}}\n`), JSONL);
    expect(nested.reason.en).toBe(`The value of "specs" on line 1 holds ${tooLong(CELL_MAX_CHARS + 11)}`);
  });

  it(`rejects a JSON line nested deeper than ${JSON_DEPTH_MAX} levels at once, and reads the lines around it`, async () => {
    const nestedTo = (levels: number) => `{"sku":"A-${levels}","v":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    const inStrings = `{"sku":"A-0","text":"${'[{'.repeat(1000)}\\"${'{'.repeat(100)}"}`;
    const started = performance.now();
    const { items } = await read(
      fileOf([nestedTo(JSON_DEPTH_MAX), nestedTo(JSON_DEPTH_MAX + 1), nestedTo(100_000), inStrings].join('\n')),
      JSONL,
    );
    expect(performance.now() - started).toBeLessThan(500);
    expect(items.map((item) => ('code' in item ? [item.line, item.code] : [item.line, item.values.sku]))).toEqual([
      [1, `A-${JSON_DEPTH_MAX}`],
      [2, 'nesting_too_deep'],
      [3, 'nesting_too_deep'],
      [4, 'A-0'],
    ]);
    expect(items[1]).toMatchObject({
      message_en: `The line's objects and arrays nest deeper than ${JSON_DEPTH_MAX} levels.`,
      message_ar: expect.stringMatching(ARABIC),
    });
  });

  it('reads a workbook whose archive gives its sizes in the headers or in data descriptors', async () => {
    // ASCII, so that the 7-byte chunks split no character: this is about the archive's records, not decoding.
    const rows = [
      inlineRow(1, ['sku', 'name']),
      Buffer.from(
        '<row r="2"><c r="A2" t="inlineStr"><is><t>A-1</t></is></c><!-- a > b </row> --><c r="B2" t="inlineStr"><is><t>dark &lt;b&gt;</t></is></c></row>',
      ),
      inlineRow(3, ['A-2', 'dates']),
    ];
    for (const descriptors of [false, true]) {
      const book = await zipArchive(workbookParts(rows, [Buffer.from('<si><t>unused</t></si>')]), { descriptors });
      expect(await read(inChunks(book, 7), XLSX)).toEqual({
        header: ['sku', 'name'],
        items: [
          { line: 2, values: { sku: 'A-1', name: 'dark <b>' } },
          { line: 3, values: { sku: 'A-2', name: 'dates' } },
        ],
      });
    }
  });

  it('refuses a 205 KB workbook that unpacks to 200 MB at its first kilobytes, before the reader holds them', async () => {
    const megabyte = Buffer.alloc(1024 * 1024, 'a');
    const text = Array.from({ length: 200 }, () => megabyte);
    const bomb = await zipArchive(
      workbookParts([inlineRow(1, ['sku']), Buffer.from('<row r="2"><c r="A2" t="inlineStr"><is><t>'), ...text]),
      {
        descriptors: true,
      },
    );
    expect(bomb.length).toBeLessThan(210 * 1024);
    const started = performance.now();
    const refused = await refusal(inChunks(bomb), XLSX);
    expect(performance.now() - started).toBeLessThan(1000);
    expect([refused.code, refused.reason.en]).toEqual([
      'file_too_large',
      'The workbook\'s xl/worksheets/sheet1.xml unpacks to more than 100 times its packed size, as no spreadsheet does (a "zip bomb").',
    ]);
    expect(refused.reason.ar).toMatch(ARABIC);
  });

  it('refuses an XLSX cell longer than 32,767 characters by its reference, and XML text past 256 KiB before the reader holds it', async () => {
    const book = await workbook((sheet) => {
      sheet.addRow(['sku', 'name']);
      sheet.addRow(['A-1', 'x'.repeat(CELL_MAX_CHARS)]);
      sheet.addRow(['A-2', 'x'.repeat(CELL_MAX_CHARS + 1)]);
    });
    const cell = await refusal(fileOf(book), XLSX);
    expect([cell.code, cell.reason.en]).toEqual(['cell_too_large', `Cell B3 (name) holds ${tooLong(CELL_MAX_CHARS + 1)}`]);
    expect(cell.reason.ar).toMatch(ARABIC);

    const run = await zipArchive(workbookParts([inlineRow(1, ['sku', 'name']), inlineRow(2, ['A-1', noise(XML_RUN_MAX_BYTES + 1)])]));
    const text = await refusal(inChunks(run), XLSX);
    expect([text.code, text.reason.en]).toEqual([
      'cell_too_large',
      "The workbook's xl/worksheets/sheet1.xml holds a text or a tag longer than 256 KiB, and a cell holds at most 32,767 characters.",
    ]);
    const tag = await zipArchive(workbookParts([inlineRow(1, ['sku']), Buffer.from(`<row r="2" x="${noise(XML_RUN_MAX_BYTES)}"></row>`)]));
    expect((await refusal(inChunks(tag), XLSX)).code).toBe('cell_too_large');
  });

  it('refuses an XLSX row longer than 1 MiB, whatever a comment or CDATA in it says', async () => {
    const cells = Array.from(
      { length: 40 },
      (_, index) =>
        `<c r="${index < 26 ? '' : 'A'}${String.fromCharCode(65 + (index % 26))}2" t="inlineStr"><is><t>${noise(30_000)}</t></is></c>`,
    );
    const row = `<row r="2">${cells.slice(0, 20).join('')}<!-- </row> --><c r="AZ2" t="inlineStr"><is><t><![CDATA[</row>]]></t></is></c>${cells.slice(20).join('')}</row>`;
    const book = await zipArchive(workbookParts([inlineRow(1, ['sku']), Buffer.from(row), inlineRow(3, ['A-3'])]), { descriptors: true });
    const refused = await refusal(inChunks(book), XLSX);
    expect([refused.code, refused.reason.en]).toEqual([
      'record_too_large',
      "Row 2 of the workbook's xl/worksheets/sheet1.xml is longer than 1 MiB.",
    ]);
    expect(refused.reason.ar).toMatch(ARABIC);
  });

  it('refuses a workbook whose shared strings unpack past 32 MiB, by the size its header declares or as they unpack', async () => {
    function* sharedStrings() {
      let bytes = 0;
      for (let from = 0; bytes <= HELD_PART_MAX_BYTES; from += 20_000) {
        const piece = Buffer.from(
          Array.from({ length: 20_000 }, (_, index) => `<si><t>SKU-${from + index} ${(from + index) % 977}</t></si>`).join(''),
        );
        bytes += piece.length;
        yield piece;
      }
    }
    for (const descriptors of [false, true]) {
      const book = await zipArchive(workbookParts([inlineRow(1, ['sku'])], sharedStrings()), { descriptors, level: 1 });
      const refused = await refusal(inChunks(book), XLSX);
      expect([refused.code, refused.reason.en]).toEqual([
        'file_too_large',
        "The workbook's xl/sharedStrings.xml unpacks to more than 32 MiB, the most it may (it is held in memory while the file is read).",
      ]);
    }
  }, 30_000);
});
