import ExcelJS from 'exceljs';
import { once } from 'node:events';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { csvField } from '../../common/csv.js';
import { formulaSafeText } from '../../common/formula-safety.js';
import type { Locale } from '../../common/locale.js';
import { currencyDigits, decimalAmount } from '../../common/money.js';
import type { ReportColumnDoc, TableRow } from '../query/report-rows.js';

export const FILE_FORMATS = ['csv', 'xlsx'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

export const CONTENT_TYPES: Record<FileFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The most data rows a worksheet holds: Excel's 1,048,576 rows, less the header. */
export const XLSX_ROWS_PER_SHEET = 1_048_575;

export interface ReportFileOptions {
  format: FileFormat;
  /** The table's columns, in order. */
  columns: ReportColumnDoc[];
  /** The language of the header row (and of dimension values that have labels). */
  language: Locale;
  /** The currency of money columns: amounts are written in its major unit (123.45), exactly. */
  currency: string;
  /** XLSX only: data rows per worksheet before the rows continue on another (Excel's limit unless told). */
  rowsPerSheet?: number;
}

/** A report's table being written as a file, row batch by row batch, with the bytes streamed out as they are made. */
export interface ReportFile {
  /** The file's bytes: hand it to storage (or a mail) while rows are written. */
  readonly content: Readable;
  readonly contentType: string;
  /** Appends rows; resolves when the file can take more (so memory holds a batch, not the file). */
  write(rows: TableRow[]): Promise<void>;
  /** Writes what is left; `content` ends once it is out. */
  end(): Promise<void>;
}

const DURATION_UNIT = { en: 'seconds', ar: 'ثوانٍ' };

/** The header of a column in the language: its label, with the unit of money and durations. */
export function headerOf(column: ReportColumnDoc, language: Locale, currency: string): string {
  const label = language === 'ar' ? column.label_ar : column.label_en;
  if (column.kind === 'measure' && column.type === 'money') return `${label} (${currency})`;
  if (column.kind === 'measure' && column.type === 'duration') return `${label} (${DURATION_UNIT[language]})`;
  return label;
}

/** What a cell shows of a row: the value's name in the language where it has one (a product, a status), else the value. */
function valueOf(column: ReportColumnDoc, row: TableRow, language: Locale): unknown {
  const label = row.labels?.[column.name];
  return label ? label[language] : row[column.name];
}

export function openReportFile(options: ReportFileOptions): ReportFile {
  return options.format === 'csv' ? new CsvReportFile(options) : new XlsxReportFile(options);
}

/** Waits until a stream that asked for a pause has drained. */
async function drained(stream: Writable, wrote: boolean): Promise<void> {
  if (!wrote) await once(stream, 'drain');
}

/**
 * RFC 4180 CSV in UTF-8 with a byte order mark (so spreadsheet programs read Arabic as Arabic): CRLF
 * between records, fields with a comma, a quote or any line break quoted, quotes doubled. A text that
 * a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, carriage return, line feed first) is
 * written with a leading apostrophe: search queries and names are typed by shoppers (formulaSafeText).
 * A batch of rows is one string written at once: csv-stringify, which this replaced, gave the same
 * bytes through a stream write per record and took a third of the CPU of a million-row export.
 */
class CsvReportFile implements ReportFile {
  readonly contentType = CONTENT_TYPES.csv;
  readonly content = new PassThrough();
  private readonly cells: ((row: TableRow) => string)[];

  constructor(options: ReportFileOptions) {
    const digits = currencyDigits(options.currency);
    this.cells = options.columns.map((column) => {
      const money = column.kind === 'measure' && column.type === 'money';
      return (row) => {
        const value = valueOf(column, row, options.language);
        if (value === null || value === undefined) return '';
        if (typeof value === 'number') return money ? decimalAmount(value, digits) : String(value);
        return csvField(formulaSafeText(String(value)));
      };
    });
    const header = options.columns.map((column) => csvField(headerOf(column, options.language, options.currency))).join(',');
    this.content.write(`\uFEFF${header}\r\n`);
  }

  async write(rows: TableRow[]): Promise<void> {
    if (rows.length === 0) return;
    let text = '';
    let wrote = true;
    for (const row of rows) {
      for (let i = 0; i < this.cells.length; i++) text += i === 0 ? this.cells[i](row) : `,${this.cells[i](row)}`;
      text += '\r\n';
      if (text.length >= CHUNK_CHARS) {
        wrote = this.content.write(text);
        text = '';
      }
    }
    if (text) wrote = this.content.write(text);
    await drained(this.content, wrote);
  }

  async end(): Promise<void> {
    this.content.end();
  }
}

/**
 * The text handed on at once, in characters. A string of a whole batch (a million-row export makes 84 MB
 * of CSV) is flattened into V8's large-object space, which is old space: the service's heap grew by
 * 200 MB per export until a full collection. Strings of this size die young.
 */
const CHUNK_CHARS = 16 * 1024;

/**
 * XLSX through exceljs's streaming writer: a bold, frozen header row in the language, right to left in
 * Arabic, money in the currency's major unit with its decimals, ratios as percentages, dates as dates.
 * Text is formula-safe as in the CSV: a string cell is no formula when opened, but becomes one once edited
 * or saved as CSV. More rows than a worksheet holds continue on the next one, headed alike. exceljs's writer does not
 * wait for its zip stream to take what it writes, so `write` waits on that stream itself: a batch in
 * memory, not the sheet.
 */
class XlsxReportFile implements ReportFile {
  readonly contentType = CONTENT_TYPES.xlsx;
  readonly content = new PassThrough();
  private readonly workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  private readonly rowsPerSheet: number;
  private readonly divisor: number;
  private sheet: ExcelJS.Worksheet | undefined;
  private sheets = 0;
  private rowsInSheet = 0;
  /** Column letters (A, B, …) of the cells' references. */
  private readonly letters: string[];
  /** Style ids of each column's cells by value type, as exceljs would find them. */
  private readonly styleIds: Map<number, number>[];

  constructor(private readonly options: ReportFileOptions) {
    this.rowsPerSheet = options.rowsPerSheet ?? XLSX_ROWS_PER_SHEET;
    this.divisor = 10 ** currencyDigits(options.currency);
    this.workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: this.content,
      useStyles: true,
      useSharedStrings: false,
      // Fast deflate: the rows are the work, and level 1 is within a few percent of the default's size here.
      zip: { zlib: { level: 1 } },
    });
    this.letters = options.columns.map((_, index) => columnLetters(index + 1));
    this.styleIds = options.columns.map(() => new Map());
  }

  async write(rows: TableRow[]): Promise<void> {
    let xml = '';
    for (const row of rows) {
      if (!this.sheet || this.rowsInSheet === this.rowsPerSheet) {
        this.flush(xml);
        xml = '';
        this.nextSheet();
      }
      this.rowsInSheet += 1;
      xml += this.rowXml(row, this.rowsInSheet + 1);
      if (xml.length >= CHUNK_CHARS) {
        this.flush(xml);
        xml = '';
      }
    }
    this.flush(xml);
    // exceljs hands each sheet's XML to its zip entry without regard to what that entry has taken.
    const entry = (this.sheet as unknown as { _stream?: { pipes?: Writable[] } } | undefined)?._stream?.pipes?.[0];
    const pending = entry as unknown as { _writableState?: { length: number } } | undefined;
    while (entry && (pending?._writableState?.length ?? 0) > ENTRY_BACKLOG_BYTES) await once(entry, 'drain');
  }

  async end(): Promise<void> {
    if (!this.sheet) this.nextSheet();
    await this.workbook.commit();
  }

  private nextSheet(): void {
    this.sheet?.commit();
    this.sheets += 1;
    const name = this.options.language === 'ar' ? 'التقرير' : 'Report';
    const sheet = this.workbook.addWorksheet(this.sheets === 1 ? name : `${name} (${this.sheets})`, {
      views: [{ state: 'frozen', ySplit: 1, rightToLeft: this.options.language === 'ar' }],
    });
    sheet.columns = this.options.columns.map((column) => ({
      header: headerOf(column, this.options.language, this.options.currency),
      width: column.kind === 'dimension' ? 32 : 16,
      style: { numFmt: this.numberFormat(column) },
    }));
    sheet.getRow(1).font = { bold: true };
    sheet.getRow(1).commit();
    this.sheet = sheet;
    this.rowsInSheet = 0;
  }

  /** Hands rows' XML to the current sheet's stream, where exceljs's own rows go. */
  private flush(xml: string): void {
    if (xml) (this.sheet as unknown as { stream: Writable }).stream.write(xml);
  }

  /**
   * A data row as exceljs's streaming writer renders it (its RowXform and CellXform: the same elements,
   * attributes, style ids and escaping), written here without building its Row, Cell and style models
   * per cell: finding each cell's style id by rendering the style took most of an export's time.
   */
  private rowXml(row: TableRow, number: number): string {
    let xml = `<row r="${number}" spans="1:${this.options.columns.length}" x14ac:dyDescent="0.25">`;
    for (let i = 0; i < this.options.columns.length; i++) {
      const value = this.cell(this.options.columns[i], row);
      const ref = `${this.letters[i]}${number}`;
      if (value === null || value === undefined) {
        const style = this.styleId(i, ExcelJS.ValueType.Null);
        if (style) xml += `<c r="${ref}" s="${style}"/>`;
      } else if (typeof value === 'number') {
        xml += `<c r="${ref}"${this.styleAttribute(i, ExcelJS.ValueType.Number)}><v>${xmlText(String(value))}</v></c>`;
      } else if (value instanceof Date) {
        xml += `<c r="${ref}"${this.styleAttribute(i, ExcelJS.ValueType.Date)}><v>${excelDate(value)}</v></c>`;
      } else if (typeof value === 'boolean') {
        xml += `<c r="${ref}"${this.styleAttribute(i, ExcelJS.ValueType.Boolean)} t="b"><v>${value ? '1' : '0'}</v></c>`;
      } else {
        xml += `<c r="${ref}"${this.styleAttribute(i, ExcelJS.ValueType.String)} t="str"><v>${xmlText(formulaSafeText(String(value)))}</v></c>`;
      }
    }
    return `${xml}</row>`;
  }

  private styleAttribute(column: number, type: ExcelJS.ValueType): string {
    const id = this.styleId(column, type);
    return id ? ` s="${id}"` : '';
  }

  /** The style id exceljs gives a cell of the column holding a value of the type (its column's number format). */
  private styleId(column: number, type: ExcelJS.ValueType): number {
    let id = this.styleIds[column].get(type);
    if (id === undefined) {
      const numFmt = this.numberFormat(this.options.columns[column]);
      const styles = (this.workbook as unknown as { styles: { addStyleModel(model: object, type: ExcelJS.ValueType): number } }).styles;
      id = styles.addStyleModel(numFmt ? { numFmt } : {}, type);
      this.styleIds[column].set(type, id);
    }
    return id;
  }

  private numberFormat(column: ReportColumnDoc): string | undefined {
    switch (column.type) {
      case 'money':
        return this.divisor === 1 ? '#,##0' : `#,##0.${'0'.repeat(Math.log10(this.divisor))}`;
      case 'count':
        return '#,##0';
      case 'ratio':
        return '0.00%';
      case 'date':
        return column.name === 'hour' ? 'yyyy-mm-dd hh:mm' : 'yyyy-mm-dd';
      default:
        return undefined;
    }
  }

  private cell(column: ReportColumnDoc, row: TableRow): unknown {
    const value = valueOf(column, row, this.options.language);
    if (value === null || value === undefined) return null;
    if (column.type === 'money' && typeof value === 'number') return value / this.divisor;
    if (column.type === 'date' && typeof value === 'string') return dateCell(value);
    return value;
  }
}

/** A column's letters: 1 → A, 27 → AA. */
function columnLetters(number: number): string {
  let letters = '';
  for (let n = number; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** A date as Excel's serial day number, as exceljs writes it (1900 date system). */
function excelDate(date: Date): number {
  return 25569 + date.getTime() / (24 * 3600 * 1000);
}

const XML_SPECIAL = /[<>&'"\x7F\x00-\x08\x0B-\x0C\x0E-\x1F]/;
const XML_ENTITIES: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&apos;', '<': '&lt;', '>': '&gt;' };

/** Text as exceljs escapes it in XML: the five entities, and control characters XML cannot hold dropped. */
function xmlText(text: string): string {
  if (!XML_SPECIAL.test(text)) return text;
  return text.replace(/[<>&'"\x7F\x00-\x08\x0B-\x0C\x0E-\x1F]/g, (char) => XML_ENTITIES[char] ?? '');
}

/** How much of a sheet's XML may wait for the zip before `write` waits for it. */
const ENTRY_BACKLOG_BYTES = 1 << 20;

/** A calendar date (`2026-11-24`) or an hour (`2026-11-24T08:00`, a period of the hour grain) as an Excel date; other text as it is. */
function dateCell(value: string): Date | string {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/.exec(value);
  if (!match) return value;
  const [, year, month, day, hour = '0', minute = '0'] = match;
  return new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute)));
}
