import ExcelJS from 'exceljs';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readRows } from '../../src/infra/tabular/read-rows.js';
import { isRowProblem, type SourceRow } from '../../src/infra/tabular/table-rows.js';
import { inlineRow, workbookParts, zipArchive } from '../data-hub/zip-files.js';

const NAMES = ['عطر العود الملكي', 'مسك أبيض فاخر', 'بخور كمبودي', 'دهن ورد طائفي', 'عنبر أسود'];

/** Rows of Arabic text, each distinct, far more than an unzip chunk (16 KiB) of shared strings or of a worksheet holds. */
function arabicRows(count: number): { sku: string; name: string; note: string }[] {
  return Array.from({ length: count }, (_, index) => ({
    sku: `SKU-${index}`,
    name: `${NAMES[index % NAMES.length]} رقم ${index}`,
    note: `ملاحظة ${index}: ${NAMES[(index + 2) % NAMES.length]}`,
  }));
}

type Layout = 'shared strings' | 'text in the worksheet' | 'worksheet after shared strings';

async function workbook(rows: ReturnType<typeof arabicRows>, layout: Layout): Promise<Buffer> {
  const columns = [
    { header: 'sku', key: 'sku' },
    { header: 'الاسم', key: 'name' },
    { header: 'ملاحظة', key: 'note' },
  ];
  if (layout === 'worksheet after shared strings') {
    // exceljs then reads the worksheet straight from its unzip, not from a temporary file.
    const lines = rows.map((row, index) => inlineRow(index + 2, [row.sku, row.name, row.note]));
    return zipArchive(workbookParts([inlineRow(1, ['sku', 'الاسم', 'ملاحظة']), ...lines], []));
  }
  if (layout === 'shared strings') {
    // Excel's own layout: the worksheet, then every text in xl/sharedStrings.xml.
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('المنتجات');
    sheet.columns = columns;
    sheet.addRows(rows);
    return Buffer.from(await book.xlsx.writeBuffer());
  }
  // Text in the worksheet itself.
  const chunks: Buffer[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useSharedStrings: false });
  const sheet = book.addWorksheet('المنتجات');
  sheet.columns = columns;
  for (const row of rows) sheet.addRow(row).commit();
  sheet.commit();
  await book.commit();
  return Buffer.concat(chunks);
}

async function readBack(bytes: Buffer): Promise<{ header: string[]; rows: SourceRow[] }> {
  const file = readRows(Readable.from([bytes]), { format: 'xlsx' });
  const rows: SourceRow[] = [];
  for await (const item of file) {
    if (isRowProblem(item)) throw new Error(`row ${item.line}: ${item.message_en}`);
    rows.push(item);
  }
  return { header: await file.header, rows };
}

describe('XLSX imports of Arabic text', () => {
  const rows = arabicRows(20_000);

  it.each<Layout>(['shared strings', 'text in the worksheet', 'worksheet after shared strings'])(
    'every Arabic cell reads as written, whatever the chunks the archive unpacks in (%s)',
    async (layout) => {
      const { header, rows: read } = await readBack(await workbook(rows, layout));
      expect(header).toEqual(['sku', 'الاسم', 'ملاحظة']);
      expect(read).toHaveLength(rows.length);
      const wrong = read.filter((row, index) => row.values['الاسم'] !== rows[index].name || row.values['ملاحظة'] !== rows[index].note);
      expect(wrong.slice(0, 2)).toEqual([]);
    },
  );
});
