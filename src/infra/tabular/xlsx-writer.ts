import archiver from 'archiver';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { columnLetters, type CellValue } from './table-rows.js';
import { CHUNK_CHARS, type TableWriter } from './table-writer.js';

/** The most data rows a worksheet holds: Excel's 1,048,576 rows, less the header. */
export const XLSX_ROWS_PER_SHEET = 1_048_575;

export interface XlsxColumn {
  header: string;
  /** In characters, as Excel counts a column's width. */
  width: number;
  /** Excel's number format of the column's cells (`#,##0.00`, `yyyy-mm-dd`); a date shows as a date only in a column with a date format. */
  numFmt?: string;
}

export interface XlsxWriterOptions {
  columns: readonly XlsxColumn[];
  /** The first worksheet's name; a further one is named `name (2)`, `name (3)`… */
  sheetName: string;
  rightToLeft?: boolean;
  /** Data rows per worksheet before the rows continue on another (Excel's limit unless told). */
  rowsPerSheet?: number;
}

/** A cell of an XLSX row (a list is written as the text of its items, joined by commas). */
export type XlsxCell = CellValue | Date;

/**
 * An XLSX workbook written as its rows come: a bold, frozen header row of the columns, then each value in
 * a cell of its type (text as it is given: what would be a formula is the caller's to defuse; numbers,
 * booleans, dates in the column's number format), more rows than a worksheet holds continuing on the
 * next one, headed alike. The parts are zipped by archiver (streamed entries, ZIP64 past 4 GiB): the
 * worksheet's XML is an entry's stream, and `write` waits whenever that stream is full, which it stays
 * while the archive, or `content` behind it, is: memory holds a batch, not the sheet.
 */
export function xlsxWriter(options: XlsxWriterOptions): TableWriter<XlsxCell> {
  return new XlsxWriter(options);
}

const HEADER_STYLE = 1;
/** Fast deflate: spreadsheets' XML is the work, and level 1 is within a few percent of the default's size here. */
const DEFLATE_LEVEL = 1;
/** The worksheet XML waiting for the archive before `write` waits: enough to keep deflate busy. */
const SHEET_BUFFER_BYTES = 256 * 1024;
/**
 * What the archive holds zipped before it stops taking XML. archiver's own default is 1 MB, which a
 * stalled destination would let fill with some 150,000 rows, as packed XML stands for ten times as much.
 */
const ARCHIVE_BUFFER_BYTES = 16 * 1024;

class XlsxWriter implements TableWriter<XlsxCell> {
  readonly content = new PassThrough();
  private readonly archive = archiver('zip', { zlib: { level: DEFLATE_LEVEL }, highWaterMark: ARCHIVE_BUFFER_BYTES });
  private readonly rowsPerSheet: number;
  /** Column letters (A, B, …) of the cells' references. */
  private readonly letters: string[];
  /** Each column's cells' style attribute: the style of its number format (after the default and the header's), or none. */
  private readonly styleAttributes: string[];
  private readonly numberFormats: string[];
  private sheet: PassThrough | undefined;
  private sheets = 0;
  private rowsInSheet = 0;

  constructor(private readonly options: XlsxWriterOptions) {
    this.rowsPerSheet = options.rowsPerSheet ?? XLSX_ROWS_PER_SHEET;
    this.letters = options.columns.map((_, index) => columnLetters(index + 1));
    this.numberFormats = [...new Set(options.columns.flatMap((column) => (column.numFmt ? [column.numFmt] : [])))];
    this.styleAttributes = options.columns.map((column) =>
      column.numFmt ? ` s="${HEADER_STYLE + 1 + this.numberFormats.indexOf(column.numFmt)}"` : '',
    );
    this.archive.on('error', (error) => this.content.destroy(error));
    this.archive.pipe(this.content);
    this.archive.append(this.stylesXml(), { name: 'xl/styles.xml' });
  }

  async write(rows: readonly (readonly XlsxCell[])[]): Promise<void> {
    let xml = '';
    for (const row of rows) {
      if (!this.sheet || this.rowsInSheet === this.rowsPerSheet) {
        await this.flush(xml);
        xml = '';
        await this.nextSheet();
      }
      this.rowsInSheet += 1;
      xml += this.rowXml(row, this.rowsInSheet + 1);
      if (xml.length >= CHUNK_CHARS) {
        await this.flush(xml);
        xml = '';
      }
    }
    await this.flush(xml);
  }

  async end(): Promise<void> {
    if (!this.sheet) await this.nextSheet();
    this.closeSheet();
    const names = Array.from({ length: this.sheets }, (_, index) => this.sheetName(index + 1));
    this.archive.append(workbookXml(names), { name: 'xl/workbook.xml' });
    this.archive.append(workbookRelsXml(this.sheets), { name: 'xl/_rels/workbook.xml.rels' });
    this.archive.append(ROOT_RELS, { name: '_rels/.rels' });
    this.archive.append(contentTypesXml(this.sheets), { name: '[Content_Types].xml' });
    await this.archive.finalize();
  }

  private async flush(xml: string): Promise<void> {
    if (xml && !this.sheet!.write(xml)) await once(this.sheet!, 'drain');
  }

  private async nextSheet(): Promise<void> {
    this.closeSheet();
    this.sheets += 1;
    this.sheet = new PassThrough({ highWaterMark: SHEET_BUFFER_BYTES });
    this.archive.append(this.sheet, { name: `xl/worksheets/sheet${this.sheets}.xml` });
    this.rowsInSheet = 0;
    const { columns, rightToLeft } = this.options;
    const cols = columns.map((column, index) => `<col min="${index + 1}" max="${index + 1}" width="${column.width}" customWidth="1"/>`);
    const header = columns.map(
      (column, index) => `<c r="${this.letters[index]}1" s="${HEADER_STYLE}" t="str"><v>${xmlText(column.header)}</v></c>`,
    );
    await this.flush(
      `${XML_DECLARATION}<worksheet xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}"><sheetViews><sheetView workbookViewId="0"${rightToLeft ? ' rightToLeft="1"' : ''}>` +
        '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>' +
        `<cols>${cols.join('')}</cols><sheetData><row r="1">${header.join('')}</row>`,
    );
  }

  /** Ends the worksheet's XML; the archive takes the rest of it in its turn, as the next worksheet waits behind it. */
  private closeSheet(): void {
    this.sheet?.end('</sheetData></worksheet>');
    this.sheet = undefined;
  }

  private sheetName(number: number): string {
    return number === 1 ? this.options.sheetName : `${this.options.sheetName} (${number})`;
  }

  private rowXml(row: readonly XlsxCell[], number: number): string {
    let xml = `<row r="${number}">`;
    for (let i = 0; i < this.letters.length; i++) {
      const value = row[i];
      const ref = `${this.letters[i]}${number}`;
      if (value === null || value === undefined) {
        if (this.styleAttributes[i]) xml += `<c r="${ref}"${this.styleAttributes[i]}/>`;
      } else if (typeof value === 'number') {
        xml += `<c r="${ref}"${this.styleAttributes[i]}><v>${value}</v></c>`;
      } else if (value instanceof Date) {
        xml += `<c r="${ref}"${this.styleAttributes[i]}><v>${excelDate(value)}</v></c>`;
      } else if (typeof value === 'boolean') {
        xml += `<c r="${ref}"${this.styleAttributes[i]} t="b"><v>${value ? '1' : '0'}</v></c>`;
      } else {
        xml += `<c r="${ref}"${this.styleAttributes[i]} t="str"><v>${xmlText(String(value))}</v></c>`;
      }
    }
    return `${xml}</row>`;
  }

  /** The default style, the header's (bold), then one for each number format, in `numberFormats`' order. */
  private stylesXml(): string {
    const formats = this.numberFormats.map(
      (format, index) => `<numFmt numFmtId="${FIRST_NUMBER_FORMAT + index}" formatCode="${xmlText(format)}"/>`,
    );
    const styles = this.numberFormats.map(
      (_, index) => `<xf numFmtId="${FIRST_NUMBER_FORMAT + index}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`,
    );
    return (
      `${XML_DECLARATION}<styleSheet xmlns="${MAIN}">` +
      (formats.length > 0 ? `<numFmts count="${formats.length}">${formats.join('')}</numFmts>` : '') +
      '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
      '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
      '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      `<cellXfs count="${2 + styles.length}"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>` +
      `<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>${styles.join('')}</cellXfs>` +
      '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'
    );
  }
}

/** The first number format id a workbook may define: lower ones are Excel's own. */
const FIRST_NUMBER_FORMAT = 164;
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_RELATIONSHIPS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const ROOT_RELS =
  `${XML_DECLARATION}<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">` +
  `<Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`;

function workbookXml(names: string[]): string {
  const sheets = names.map((name, index) => `<sheet name="${xmlText(name)}" sheetId="${index + 1}" r:id="rId${index + 1}"/>`);
  return `${XML_DECLARATION}<workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}"><sheets>${sheets.join('')}</sheets></workbook>`;
}

function workbookRelsXml(sheets: number): string {
  const relationships = Array.from(
    { length: sheets },
    (_, index) => `<Relationship Id="rId${index + 1}" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet${index + 1}.xml"/>`,
  );
  relationships.push(`<Relationship Id="rId${sheets + 1}" Type="${RELATIONSHIPS}/styles" Target="styles.xml"/>`);
  return `${XML_DECLARATION}<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">${relationships.join('')}</Relationships>`;
}

function contentTypesXml(sheets: number): string {
  const type = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
  const worksheets = Array.from(
    { length: sheets },
    (_, index) => `<Override PartName="/xl/worksheets/sheet${index + 1}.xml" ContentType="${type}.worksheet+xml"/>`,
  );
  return (
    `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    `<Override PartName="/xl/workbook.xml" ContentType="${type}.sheet.main+xml"/>` +
    `<Override PartName="/xl/styles.xml" ContentType="${type}.styles+xml"/>${worksheets.join('')}</Types>`
  );
}

/** A date as Excel's serial day number (1900 date system). */
function excelDate(date: Date): number {
  return 25569 + date.getTime() / (24 * 3600 * 1000);
}

const XML_SPECIAL = /[<>&'"\x7F\x00-\x08\x0B-\x0C\x0E-\x1F]/;
const XML_ENTITIES: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&apos;', '<': '&lt;', '>': '&gt;' };

/** Text in XML: the five entities, and control characters XML cannot hold dropped. */
function xmlText(text: string): string {
  if (!XML_SPECIAL.test(text)) return text;
  return text.replace(/[<>&'"\x7F\x00-\x08\x0B-\x0C\x0E-\x1F]/g, (char) => XML_ENTITIES[char] ?? '');
}
