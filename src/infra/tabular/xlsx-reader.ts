import { ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { FileRowsError, notWorkbook } from './file-refusal.js';
import {
  checkCell,
  columnLetters,
  extraColumns,
  headerNames,
  isBlankText,
  problem,
  type CellValue,
  type RowProblem,
  type RowsItem,
  type SourceRow,
} from './table-rows.js';
import { XlsxArchiveGuard } from './xlsx-archive-guard.js';

/** A cell that holds no value to import: an error such as #N/A, or a formula never calculated. */
class CellFault {
  constructor(
    readonly en: string,
    readonly ar: string,
  ) {}
}

type CellReading = CellValue | CellFault;

export async function* xlsxItems(content: Readable, columns: ReadonlySet<string> | undefined): AsyncGenerator<RowsItem[]> {
  // exceljs gets the archive's bytes once the guard has unpacked and checked them (it drops empty chunks,
  // after which exceljs's unzip would never finish: an empty file, as some streams give it).
  const input = content.pipe(new ExcelJsInput());
  const guard = new StreamGuard([content, input]);
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  const sheets = reader[Symbol.asyncIterator]();
  let sheet: ExcelJS.stream.xlsx.WorksheetReader | undefined;
  try {
    for (;;) {
      const next = await guard.until(sheets.next());
      if (next.done) throw notWorkbook();
      if (isFirstTab(reader, next.value)) {
        sheet = next.value;
        sheetInput(sheet)?.setEncoding('utf8');
        break;
      }
      closeUnread(next.value);
    }
    yield* sheetItems(sheet, new XlsxCells(reader, columns), guard);
  } catch (error) {
    // The stream's own failure is not the file's fault: the caller sees it as it is.
    if (content.errored) throw content.errored;
    if (error instanceof FileRowsError) throw error;
    if (input.bytes > 0) throw notWorkbook();
    yield [[]]; // an empty file, as in the other formats: no rows
  } finally {
    guard.dispose();
    // exceljs runs to its end only once the guard has passed it the whole archive.
    if (input.writableFinished) await finishWorkbook(sheets, sheet);
    else {
      content.destroy();
      input.destroy();
    }
  }
}

/**
 * Lets exceljs run to its end, the other worksheets unread: it keeps the worksheets that come before
 * the shared strings in the archive (as Excel writes them) in temporary files, and removes each only
 * as its iteration moves past it.
 */
async function finishWorkbook(sheets: AsyncIterator<ExcelJS.stream.xlsx.WorksheetReader>, current?: ExcelJS.stream.xlsx.WorksheetReader) {
  if (current !== undefined) closeUnread(current);
  try {
    for (let next = await sheets.next(); !next.done; next = await sheets.next()) closeUnread(next.value);
  } catch {
    // The rows are read: what is left is housekeeping.
  }
}

/**
 * exceljs 4.4 decodes each chunk of a part's XML alone (a TextDecoder without `stream`): a character split
 * between two chunks became two U+FFFD, so Arabic text was corrupted wherever it straddled the end of a
 * chunk its unzip gave (16 KiB unpacked) or of one read back from a temporary file (64 KiB). exceljs
 * takes text chunks as they are, so the streams it reads give text, decoded across chunks: its unzip's
 * entries, set here as the unzip takes the archive from the guard, and a worksheet's temporary file, by
 * `sheetInput`.
 */
class ExcelJsInput extends XlsxArchiveGuard {
  override pipe<T extends NodeJS.WritableStream>(unzip: T, options?: { end?: boolean }): T {
    (unzip as unknown as Readable).on('data', (entry: Readable) => entry.setEncoding('utf8'));
    return super.pipe(unzip, options);
  }
}

/** The temporary file a worksheet is read from, when exceljs kept it in one (its `iterator`). */
function sheetInput(sheet: ExcelJS.stream.xlsx.WorksheetReader): ReadStream | undefined {
  const input = (sheet as { iterator?: unknown }).iterator;
  return input instanceof ReadStream ? input : undefined;
}

/** Closes the temporary file a worksheet would be read from. */
function closeUnread(sheet: ExcelJS.stream.xlsx.WorksheetReader): void {
  // Destroyed while its open is pending, the stream can still fail (exceljs removes the temporary file as
  // its iteration moves on): nobody reads it any more, so that failure must not go unheard.
  sheetInput(sheet)?.on('error', ignore).destroy();
}

/**
 * Waits on exceljs unless a stream before it fails first (the file's, or the archive guard refusing it):
 * exceljs pipes its input without passing errors on, and would wait forever. (A race against one
 * long-lived promise would keep every row it settled.)
 */
class StreamGuard {
  private failure: Error | undefined;
  private rejectWaiting: (error: Error) => void = ignore;
  private readonly fail = (error: Error) => {
    this.failure ??= error;
    this.rejectWaiting(this.failure);
  };

  constructor(private readonly streams: Readable[]) {
    for (const stream of streams) stream.once('error', this.fail);
  }

  until<T>(pending: Promise<T>): Promise<T> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.rejectWaiting = reject;
      pending.then(resolve, reject);
    });
  }

  dispose(): void {
    for (const stream of this.streams) stream.off('error', this.fail);
  }
}

function ignore(): void {}

/** Whether `sheet` is the first tab; exceljs meets the sheets in the order of the zip archive. */
function isFirstTab(reader: object, sheet: object): boolean {
  const first = (reader as { model?: { sheets?: { name?: string }[] } }).model?.sheets?.[0]?.name;
  const name = (sheet as { name?: string }).name;
  return first === undefined || name === undefined || first === name;
}

async function* sheetItems(sheet: ExcelJS.stream.xlsx.WorksheetReader, cells: XlsxCells, guard: StreamGuard): AsyncGenerator<RowsItem[]> {
  const rows = sheet[Symbol.asyncIterator]();
  let names: string[] | undefined;
  for (;;) {
    const next = await guard.until(rows.next());
    if (next.done) break;
    const row = next.value;
    const values = row.values as ExcelJS.CellValue[];
    if (values.every((value) => isBlankCell(value))) continue;
    if (names === undefined) {
      names = headerNames(cells.header(row, values), 'xlsx');
      yield [names];
    } else {
      yield [cells.row(row, values, names)];
    }
  }
  if (names === undefined) yield [[]];
}

function isBlankCell(value: ExcelJS.CellValue): boolean {
  return value === null || value === undefined || (typeof value === 'string' && isBlankText(value));
}

/** Cell values as the rows give them: `values[column]`, 1-based, sparse. */
class XlsxCells {
  private readonly date1904: boolean;

  constructor(
    reader: object,
    private readonly columns: ReadonlySet<string> | undefined,
  ) {
    this.date1904 = (reader as { properties?: { model?: { date1904?: boolean } } }).properties?.model?.date1904 === true;
  }

  header(row: ExcelJS.Row, values: ExcelJS.CellValue[]): string[] {
    const names: string[] = [];
    for (let column = 1; column < values.length; column++) {
      const value = this.read(row, column, values[column]);
      names.push(value instanceof CellFault || value === null ? '' : String(value));
    }
    return names;
  }

  row(row: ExcelJS.Row, cells: ExcelJS.CellValue[], names: string[]): SourceRow | RowProblem {
    const line = row.number;
    const values: Record<string, CellValue> = {};
    const faults: CellFault[] = [];
    for (let column = 1; column <= names.length; column++) {
      const name = names[column - 1];
      const value = this.read(row, column, cells[column]);
      if (!(value instanceof CellFault)) {
        checkCell(value, () => ({
          en: `Cell ${columnLetters(column)}${line} (${name})`,
          ar: `الخلية ${columnLetters(column)}${line} (${name})`,
        }));
        values[name] = value;
      } else {
        values[name] = null;
        if (this.columns === undefined || this.columns.has(name)) faults.push(cellFault(value, `${columnLetters(column)}${line}`, name));
      }
    }
    let count = cells.length - 1;
    while (count > names.length && isBlankCell(cells[count])) count--;
    if (count > names.length) return extraColumns(line, count, names.length, values);
    if (faults.length > 0)
      return problem(line, 'cell_error', faults.map((fault) => fault.en).join(' '), faults.map((fault) => fault.ar).join(' '), values);
    return { line, values };
  }

  private read(row: ExcelJS.Row, column: number, value: ExcelJS.CellValue): CellReading {
    if (value === null || value === undefined) return null;
    if (typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number') return Number.isFinite(value) ? value : ERROR_CELL;
    if (value instanceof Date) return isoDate(value);
    if ('richText' in value) return value.richText.map((part) => part.text).join('');
    if ('error' in value) return new CellFault(`the error ${value.error}`, `الخطأ ${value.error}`);
    if ('formula' in value || 'sharedFormula' in value || 'result' in value) return this.result(row, column, value.result);
    if ('text' in value) return this.read(row, column, value.text as ExcelJS.CellValue);
    return JSON.stringify(value);
  }

  /** A formula's saved result: exceljs leaves a date-formatted one a day number, and an error one NaN. */
  private result(row: ExcelJS.Row, column: number, result: unknown): CellReading {
    if (result === undefined || result === null) return NO_RESULT;
    if (typeof result === 'number' && Number.isFinite(result) && isDateFormat(row.getCell(column).numFmt))
      return isoDate(new Date(Math.round((result - 25569 + (this.date1904 ? 1462 : 0)) * 86_400_000)));
    return this.read(row, column, result as ExcelJS.CellValue);
  }
}

const ERROR_CELL = new CellFault('an error', 'خطأ');
const NO_RESULT = new CellFault(
  'a formula whose result was never saved (open the file in Excel and save it again)',
  'صيغة لم تُحفظ نتيجتها (افتح الملف في Excel واحفظه مجدداً)',
);

function cellFault(fault: CellFault, reference: string, column: string): CellFault {
  return new CellFault(`Cell ${reference} (${column}) holds ${fault.en}.`, `الخلية ${reference} (${column}) تحتوي ${fault.ar}.`);
}

/** Whether a number format shows a date or time: what exceljs itself asks of a cell's format. */
function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  return /[ymdhMsb]/.test(format.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));
}

function isoDate(date: Date): CellReading {
  const time = date.getTime();
  if (Number.isNaN(time)) return new CellFault('a date that cannot be read', 'تاريخاً لا يمكن قراءته');
  return time % 86_400_000 === 0 ? date.toISOString().slice(0, 10) : date.toISOString();
}
