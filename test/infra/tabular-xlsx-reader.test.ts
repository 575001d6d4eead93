import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readFileFields } from '../../src/infra/tabular/file-fields.js';
import { readRows } from '../../src/infra/tabular/read-rows.js';
import type { RowProblem, SourceRow } from '../../src/infra/tabular/table-rows.js';
import { zipArchive, type ZipPart } from '../data-hub/zip-files.js';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const part = (name: string, xml: string): ZipPart => ({
  name,
  pieces: [Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${xml}`)],
});
const sheet = (name: string, rows: string) => part(name, `<worksheet xmlns="${MAIN}"><sheetData>${rows}</sheetData></worksheet>`);

/**
 * A workbook laid out as no writer the other tests use lays it out: its worksheets before the workbook and
 * the shared strings, the second worksheet in the archive its first tab, the 1904 date system, a date
 * style, rich inline text with a phonetic run, pretty-printed shared strings, an error result, booleans.
 */
function parts(): ZipPart[] {
  const firstTab = sheet(
    'xl/worksheets/sheet2.xml',
    '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t>ok</t></is></c><c r="D1" t="inlineStr"><is><t>on</t></is></c></row>' +
      '<row r="3"><c r="A3" t="inlineStr"><is><r><t>dark </t></r><r><rPr><b/></rPr><t>roast</t></r><rPh sb="0" eb="1"><t>x</t></rPh></is></c>' +
      '<c r="B3" s="1"><v>44620</v></c><c r="C3" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="D3" t="b"><v>1</v></c></row>' +
      // Cells without references follow the one before; a row without one follows the row before.
      '<row><c t="s"><v>1</v></c><c s="1"><v>44620.5</v></c><c t="str"><f>"a"&amp;"b"</f><v>a&lt;b</v></c><c t="b"><v>0</v></c></row>',
  );
  return [
    part(
      '[Content_Types].xml',
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
    ),
    sheet('xl/worksheets/sheet1.xml', '<row r="1"><c r="A1" t="inlineStr"><is><t>not this tab</t></is></c></row>'),
    firstTab,
    part(
      'xl/sharedStrings.xml',
      `<sst xmlns="${MAIN}">\n  <si>\n    <t>sku</t>\n  </si>\n  <si><r><t>قهوة </t></r><r><t>عربية</t></r></si>\n</sst>`,
    ),
    part(
      'xl/styles.xml',
      `<styleSheet xmlns="${MAIN}"><numFmts count="1"><numFmt numFmtId="164" formatCode="0.00\\ &quot;d&quot;"/></numFmts>` +
        '<cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="164"/></cellXfs></styleSheet>',
    ),
    part(
      'xl/workbook.xml',
      `<workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}"><workbookPr date1904="1"/><sheets>` +
        '<sheet name="First" sheetId="2" r:id="rId2"/><sheet name="Second" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ),
    part(
      'xl/_rels/workbook.xml.rels',
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        `<Relationship Id="rId1" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet1.xml"/>` +
        `<Relationship Id="rId2" Type="${RELATIONSHIPS}/worksheet" Target="/xl/worksheets/sheet2.xml"/>` +
        `<Relationship Id="rId3" Type="${RELATIONSHIPS}/sharedStrings" Target="sharedStrings.xml"/>` +
        `<Relationship Id="rId4" Type="${RELATIONSHIPS}/styles" Target="styles.xml"/>` +
        '</Relationships>',
    ),
  ];
}

const spilled = async () => (await readdir(tmpdir())).filter((name) => name.startsWith('xlsx-sheet-'));

async function read(bytes: Buffer, chunk = 7): Promise<{ header: string[]; items: (SourceRow | RowProblem)[]; readToEnd: boolean }> {
  const pieces = Array.from({ length: Math.ceil(bytes.length / chunk) }, (_, index) => bytes.subarray(index * chunk, (index + 1) * chunk));
  const content = Readable.from(pieces);
  const rows = readRows(content, { format: 'xlsx' });
  const items: (SourceRow | RowProblem)[] = [];
  for await (const item of rows) items.push(item);
  return { header: await rows.header, items, readToEnd: content.readableEnded };
}

const EXPECTED = {
  header: ['sku', 'قهوة عربية', 'ok', 'on'],
  items: [
    {
      line: 3,
      code: 'cell_error',
      message_en: 'Cell C3 (ok) holds the error #DIV/0!.',
      message_ar: 'الخلية C3 (ok) تحتوي الخطأ #DIV/0!.',
      values: { sku: 'dark roast', 'قهوة عربية': '2026-03-01', ok: null, on: true },
    },
    { line: 4, values: { sku: 'قهوة عربية', 'قهوة عربية': '2026-03-01T12:00:00.000Z', ok: 'a<b', on: false } },
  ],
  readToEnd: true,
};

describe('the XLSX reader', () => {
  it("reads the workbook's first tab whatever the archive's order, its cells by the spreadsheet's rules, and removes what it spilled", async () => {
    const before = await spilled();
    const book = await zipArchive(parts(), { descriptors: true });
    expect(await read(book)).toEqual(EXPECTED);
    expect(await spilled()).toEqual(before);
    // Stopped after the header, the reader removes what it spilled all the same.
    expect(await readFileFields(Readable.from([book]), 'xlsx')).toEqual(['sku', 'قهوة عربية', 'ok', 'on']);
    expect(await spilled()).toEqual(before);
  });

  it('reads the first tab as it unpacks when what it refers to comes before it, and the file to its end all the same', async () => {
    const order = ['[Content_Types].xml', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/styles.xml', 'xl/sharedStrings.xml'];
    const all = parts();
    const direct = [
      ...order.map((name) => all.find((entry) => entry.name === name)!),
      ...all.filter((entry) => !order.includes(entry.name)),
    ];
    const before = await spilled();
    expect(await read(await zipArchive(direct))).toEqual(EXPECTED);
    expect(await spilled()).toEqual(before);
  });

  it('refuses a workbook whose first tab names no worksheet, or whose XML is not well formed', async () => {
    const noTab = parts().map((entry) =>
      entry.name === 'xl/workbook.xml' ? part(entry.name, `<workbook xmlns="${MAIN}"><sheets/></workbook>`) : entry,
    );
    await expect(read(await zipArchive(noTab))).rejects.toMatchObject({ code: 'format_mismatch' });
    const broken = parts().map((entry) => (entry.name === 'xl/worksheets/sheet2.xml' ? sheet(entry.name, '<row r="1"><c r="A1">') : entry));
    await expect(read(await zipArchive(broken))).rejects.toMatchObject({ code: 'format_mismatch' });
    const cut = await zipArchive(parts());
    await expect(read(cut.subarray(0, Math.floor(cut.length / 2)))).rejects.toMatchObject({ code: 'format_mismatch' });
  });
});
