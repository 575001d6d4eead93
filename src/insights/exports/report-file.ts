import type { Readable } from 'node:stream';
import { formulaSafeText } from '../../common/formula-safety.js';
import type { Locale } from '../../common/locale.js';
import { currencyDigits, decimalAmount } from '../../common/money.js';
import { csvWriter } from '../../infra/tabular/csv-writer.js';
import type { CellValue } from '../../infra/tabular/table-rows.js';
import type { TableWriter } from '../../infra/tabular/table-writer.js';
import { xlsxWriter, type XlsxCell } from '../../infra/tabular/xlsx-writer.js';
import type { FileFormat } from '../entities/insights-export.entity.js';
import type { ReportColumnDoc, TableRow } from '../query/report-rows.js';

export const CONTENT_TYPES: Record<FileFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

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
  return options.format === 'csv' ? csvReportFile(options) : xlsxReportFile(options);
}

/** A report file writing each row as the cells `cells` makes of it. */
function reportFile<Cell>(contentType: string, writer: TableWriter<Cell>, cells: ((row: TableRow) => Cell)[]): ReportFile {
  return {
    content: writer.content,
    contentType,
    write: (rows) => writer.write(rows.map((row) => cells.map((cell) => cell(row)))),
    end: () => writer.end(),
  };
}

/**
 * CSV in UTF-8 with a byte order mark (so spreadsheet programs read Arabic as Arabic), money exact in
 * the currency's major unit. A text that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`,
 * tab, carriage return, line feed first) is written with a leading apostrophe: search queries and
 * names are typed by shoppers (formulaSafeText).
 */
function csvReportFile(options: ReportFileOptions): ReportFile {
  const digits = currencyDigits(options.currency);
  const cells = options.columns.map((column): ((row: TableRow) => CellValue) => {
    const money = column.kind === 'measure' && column.type === 'money';
    return (row) => {
      const value = valueOf(column, row, options.language);
      if (value === null || value === undefined) return null;
      if (typeof value === 'number') return money ? decimalAmount(value, digits) : value;
      return formulaSafeText(String(value));
    };
  });
  const header = options.columns.map((column) => headerOf(column, options.language, options.currency));
  return reportFile(CONTENT_TYPES.csv, csvWriter({ header, byteOrderMark: true }), cells);
}

/**
 * XLSX: a bold, frozen header row in the language, right to left in Arabic, money in the currency's
 * major unit with its decimals, ratios as percentages, dates as dates. Text is formula-safe as in the
 * CSV: a string cell is no formula when opened, but becomes one once edited or saved as CSV.
 */
function xlsxReportFile(options: ReportFileOptions): ReportFile {
  const divisor = 10 ** currencyDigits(options.currency);
  const cells = options.columns.map((column): ((row: TableRow) => XlsxCell) => (row) => {
    const value = valueOf(column, row, options.language);
    if (value === null || value === undefined) return null;
    if (column.type === 'money' && typeof value === 'number') return value / divisor;
    if (column.type === 'date' && typeof value === 'string') return dateCell(value);
    if (typeof value === 'number' || typeof value === 'boolean' || value instanceof Date) return value;
    return formulaSafeText(String(value));
  });
  const name = options.language === 'ar' ? 'التقرير' : 'Report';
  const writer = xlsxWriter({
    columns: options.columns.map((column) => ({
      header: headerOf(column, options.language, options.currency),
      width: column.kind === 'dimension' ? 32 : 16,
      numFmt: numberFormat(column, divisor),
    })),
    sheetName: name,
    rightToLeft: options.language === 'ar',
    rowsPerSheet: options.rowsPerSheet,
  });
  return reportFile(CONTENT_TYPES.xlsx, writer, cells);
}

function numberFormat(column: ReportColumnDoc, divisor: number): string | undefined {
  switch (column.type) {
    case 'money':
      return divisor === 1 ? '#,##0' : `#,##0.${'0'.repeat(Math.log10(divisor))}`;
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

/** A calendar date (`2026-11-24`) or an hour (`2026-11-24T08:00`, a period of the hour grain) as an Excel date; other text as it is. */
function dateCell(value: string): Date | string {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/.exec(value);
  if (!match) return value;
  const [, year, month, day, hour = '0', minute = '0'] = match;
  return new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute)));
}
