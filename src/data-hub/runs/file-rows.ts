import { isAscii, isUtf8 } from 'node:buffer';
import { ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { Parser, type Options as CsvOptions } from 'csv-parse';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import type { CellValue } from '../mappings/transforms.js';
import { CELL_MAX_CHARS, fileError, FileRowsError, notWorkbook, RECORD_MAX_BYTES } from './file-refusal.js';
import { ThreadShare } from './thread-share.js';
import { XlsxArchiveGuard } from './xlsx-archive-guard.js';
import type { FileEncoding, SourceFormat } from '../../infra/tabular/formats.js';

export { CELL_MAX_CHARS, FileRowsError, RECORD_MAX_BYTES, type FileRowsErrorCode } from './file-refusal.js';

/** A record of the file. `line` is 1-based and counts the header: CSV, JSON lines: the line the record starts on; XLSX: the row number. */
export interface SourceRow {
  line: number;
  values: Record<string, CellValue>;
}

/** A record that cannot be imported as it is; the records around it still can. */
export interface RowProblem {
  line: number;
  code: string;
  message_en: string;
  message_ar: string;
  values?: Record<string, CellValue>;
}

export interface ReadRowsOptions {
  format: SourceFormat;
  /** How a CSV or JSON lines file's text is encoded; `utf-8` unless said. XLSX files are always read as they are. */
  encoding?: FileEncoding;
  /**
   * The columns the caller reads: an XLSX error cell (#N/A) in one of them rejects its row, in another
   * column it reads as null. All columns count when not given.
   */
  columns?: Iterable<string>;
}

/**
 * A file's rows, read once, front to back, as the iteration asks for them (memory does not grow with
 * the file). `header` resolves once the header is read, to its column names (CSV, XLSX: trimmed, NFC;
 * `[]` for JSON lines, which name their fields in each line, and for a file with no header). Both
 * `header` and the iteration reject with a `FileRowsError` when the file cannot be read, and with the
 * content stream's own error when that fails; a `FileRowsError` may come after rows were yielded.
 */
export interface FileRows extends AsyncIterable<SourceRow | RowProblem> {
  readonly header: Promise<string[]>;
}

export function isRowProblem(item: SourceRow | RowProblem): item is RowProblem {
  return 'code' in item;
}

/** A column's value in a row: null when the row lacks it (a JSON line without that key). */
export function cellOf(row: SourceRow, column: string): CellValue {
  return Object.hasOwn(row.values, column) ? row.values[column] : null;
}

/**
 * The rows of a CSV, JSON lines or XLSX file (contract section 9):
 * - CSV (RFC 4180): the first record is the header; the delimiter is the one of `,`, `;` and tab that
 *   the header holds most often outside quotes (`,` on a tie or when it holds none). A record with
 *   values past the header's columns is an `extra_columns` problem; missing trailing cells are null;
 *   records whose cells are all blank are skipped; trailing header cells without a name are dropped
 *   (Excel writes `sku,price,,`) when their cells hold nothing.
 * - JSON lines: one object per line; a line that is not one is a `not_json_object` problem, one that
 *   nests deeper than JSON_DEPTH_MAX a `nesting_too_deep` problem. Nested objects become their JSON
 *   text; arrays become lists (their objects JSON text); integers past 2^53 keep their digits as text
 *   rather than lose them.
 * - XLSX: the first worksheet (in tab order), its first non-blank row the header. Dates become ISO 8601
 *   (`yyyy-MM-dd` at midnight, else the UTC date-time), formulas their saved result, rich text and
 *   links their text. An error cell (#N/A) or a formula without a saved result rejects its row
 *   (`cell_error`, unless `options.columns` leaves its column out). The archive is checked as it is
 *   unpacked (`XlsxArchiveGuard`: `file_too_large`, `cell_too_large`, `record_too_large`).
 * In every format a record longer than RECORD_MAX_BYTES (`record_too_large`) or a cell longer than
 * CELL_MAX_CHARS (`cell_too_large`) refuses the file, before it could take the memory.
 */
export function readRows(content: Readable, options: ReadRowsOptions): FileRows {
  const { format, encoding = 'utf-8', columns } = options;
  const items =
    format === 'xlsx'
      ? xlsxItems(content, columns === undefined ? undefined : new Set(columns))
      : format === 'csv'
        ? csvItems(utf8Chunks(content, encoding))
        : jsonlItems(utf8Chunks(content, encoding));
  return new RowsReader(items);
}

/** What a format's reader yields, a batch (a chunk's rows) at a time: the header first (`[]` when there is none), then the rows. */
type Item = string[] | SourceRow | RowProblem;

/**
 * Hands out the readers' batches a row at a time: an async generator's yield per row would cost more
 * than the rest of the row. Reading, and whatever the caller does with each row before asking for the
 * next, share the thread with requests: every THREAD_SLICE_MS the next row waits for the event loop.
 */
class RowsReader implements FileRows {
  private batch: Item[] = [];
  private next = 0;
  private headerRead?: Promise<string[]>;
  private readonly thread = new ThreadShare();

  constructor(private readonly batches: AsyncGenerator<Item[]>) {}

  get header(): Promise<string[]> {
    return (this.headerRead ??= this.item().then((header) => (header as string[] | undefined) ?? []));
  }

  [Symbol.asyncIterator](): AsyncIterator<SourceRow | RowProblem> {
    return {
      next: () =>
        this.headerRead !== undefined && this.next < this.batch.length && !this.thread.due
          ? Promise.resolve(this.row())
          : this.rowAfterHeader(),
      return: async () => {
        this.batch = [];
        await this.batches.return([]);
        return { value: undefined, done: true };
      },
    };
  }

  private async rowAfterHeader(): Promise<IteratorResult<SourceRow | RowProblem>> {
    await this.header;
    const row = (await this.item()) as SourceRow | RowProblem | undefined;
    return row === undefined ? { value: undefined, done: true } : { value: row, done: false };
  }

  private row(): IteratorResult<SourceRow | RowProblem> {
    return { value: this.batch[this.next++] as SourceRow | RowProblem, done: false };
  }

  private async item(): Promise<Item | undefined> {
    for (;;) {
      if (this.thread.due) await this.thread.pause();
      if (this.next < this.batch.length) return this.batch[this.next++];
      const read = await this.batches.next();
      if (read.done) return undefined;
      this.batch = read.value;
      this.next = 0;
    }
  }
}

function problem(line: number, code: string, en: string, ar: string, values?: Record<string, CellValue>): RowProblem {
  return { line, code, message_en: en, message_ar: ar, values };
}

function tooLarge(line: number): FileRowsError {
  return fileError(
    'record_too_large',
    `The record starting at line ${line} is longer than 1 MiB: the file is not in the flow's format, or a quote is never closed.`,
    `السجل الذي يبدأ في السطر ${line} أطول من 1 ميغابايت: الملف ليس بصيغة التدفق، أو أن علامة اقتباس لم تُغلق.`,
  );
}

// ---------------------------------------------------------------------------------------------
// Header names (CSV and XLSX)

/**
 * The header's column names, trimmed and NFC: a nameless or repeated column refuses the file, as
 * the mapping could not tell its columns apart. Nameless columns at the end are dropped.
 */
function headerNames(cells: string[], format: 'csv' | 'xlsx'): string[] {
  cells.forEach((cell, index) =>
    checkCell(cell, () => ({
      en: `The header's column ${columnLabel(index, format)}`,
      ar: `العمود ${columnLabel(index, format)} في الترويسة`,
    })),
  );
  const names = cells.map((cell) => cell.normalize('NFC').trim());
  while (names.length > 0 && names[names.length - 1] === '') names.pop();
  const blank = names.indexOf('');
  if (blank !== -1) {
    const column = columnLabel(blank, format);
    throw headerInvalid(`column ${column} has no name`, `العمود ${column} بلا اسم`);
  }
  const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  if (repeated.length === 1) throw headerInvalid(`the column "${repeated[0]}" appears twice`, `العمود "${repeated[0]}" مكرر`);
  if (repeated.length > 1) {
    const list = repeated.map((name) => `"${name}"`).join(', ');
    throw headerInvalid(`the columns ${list} appear more than once`, `الأعمدة ${list} مكررة`);
  }
  if (names.includes('__proto__')) throw headerInvalid('the column name "__proto__" is reserved', 'اسم العمود "__proto__" محجوز');
  return names;
}

/** Refuses the file at a cell longer than CELL_MAX_CHARS; `where` names the cell for the merchant. */
function checkCell(value: CellValue, where: () => { en: string; ar: string }): void {
  if (typeof value === 'string') {
    if (value.length > CELL_MAX_CHARS) throw cellTooLarge(where(), value.length);
  } else if (Array.isArray(value)) {
    for (const item of value) checkCell(item, where);
  }
}

function cellTooLarge(where: { en: string; ar: string }, length: number): FileRowsError {
  const most = CELL_MAX_CHARS.toLocaleString('en');
  return fileError(
    'cell_too_large',
    `${where.en} holds ${length.toLocaleString('en')} characters, more than the ${most} a cell may hold (Excel's own limit).`,
    `${where.ar} يحتوي ${length.toLocaleString('en')} حرفاً، أي أكثر من ${most} حرفاً، وهو أقصى ما تتسع له الخلية (حد Excel نفسه).`,
  );
}

function headerInvalid(en: string, ar: string): FileRowsError {
  return fileError('header_invalid', `The header could not be read: ${en}.`, `تعذّرت قراءة الترويسة: ${ar}.`);
}

/** A column as the merchant sees it: its number in a CSV file, its letter in a worksheet. */
function columnLabel(index: number, format: 'csv' | 'xlsx'): string {
  return format === 'csv' ? String(index + 1) : columnLetters(index + 1);
}

function columnLetters(column: number): string {
  let letters = '';
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  return letters;
}

function isBlankText(text: string): boolean {
  return text === '' || text.trim() === '';
}

function extraColumns(line: number, count: number, width: number, values: Record<string, CellValue>): RowProblem {
  return problem(
    line,
    'extra_columns',
    `The record has ${count} values, but the header names ${width} columns.`,
    `في السجل ${count} قيمة، لكن الترويسة تسمي ${width} عموداً.`,
    values,
  );
}

// ---------------------------------------------------------------------------------------------
// Text: bytes in the file's encoding to checked UTF-8 bytes

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
/** Enough of the file's start to tell a byte order mark or a zip archive. */
const OPENING_BYTES = 4;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const NO_BYTES = Buffer.alloc(0);
/** Of the non-ASCII letters of text that is not UTF-8, the share in the Arabic block that says "Windows-1256". */
const ARABIC_SHARE = 0.7;
const ARABIC_LETTER = /[\u0600-\u06ff]/g;
const NON_ASCII = /[^\x00-\x7f]/g;

/**
 * The file's text as UTF-8 bytes without a byte order mark, checked as it passes: a zip archive, a
 * UTF-16 file, NUL bytes or (for UTF-8) a byte sequence that is not UTF-8 refuses the file rather
 * than yield replacement characters. The chunks are the stream's own (UTF-8) or decoded ones.
 */
export async function* utf8Chunks(content: Readable, encoding: FileEncoding): AsyncGenerator<Buffer> {
  const text = encoding === 'utf-8' ? new Utf8Text() : new Windows1256Text();
  for await (const chunk of content as AsyncIterable<Buffer | string>) {
    const bytes = text.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (bytes.length > 0) yield bytes;
  }
  const rest = text.end();
  if (rest.length > 0) yield rest;
}

abstract class FileText {
  /** Line breaks passed, for the line an error names. */
  protected lines = 0;
  /** The file's first bytes while there are too few to tell what the file is. */
  private opening: Buffer | undefined = NO_BYTES;

  write(chunk: Buffer): Buffer {
    if (this.opening === undefined) return this.checked(chunk);
    const start = this.opening.length === 0 ? chunk : Buffer.concat([this.opening, chunk]);
    if (start.length < OPENING_BYTES) {
      this.opening = start;
      return NO_BYTES;
    }
    this.opening = undefined;
    return this.checked(this.afterOpening(start));
  }

  end(): Buffer {
    const rest = this.opening === undefined ? NO_BYTES : this.checked(this.afterOpening(this.opening));
    this.opening = undefined;
    this.finish();
    return rest;
  }

  protected abstract decode(chunk: Buffer): Buffer;
  protected abstract finish(): void;
  /** Meets a UTF-8 byte order mark at the start of the file. */
  protected abstract startsWithBom(): void;

  private afterOpening(start: Buffer): Buffer {
    if (start.subarray(0, 4).equals(ZIP_SIGNATURE))
      throw fileError(
        'format_mismatch',
        "The file is a zip archive (an XLSX workbook?), not text: set the flow's format to xlsx.",
        'الملف أرشيف zip (مصنّف XLSX؟) وليس نصاً: اضبط صيغة التدفق على xlsx.',
      );
    if ((start[0] === 0xff && start[1] === 0xfe) || (start[0] === 0xfe && start[1] === 0xff))
      throw fileError(
        'encoding_invalid',
        'The file is UTF-16 text (Excel\'s "Unicode Text"), not UTF-8: save it as "CSV UTF-8".',
        'الملف نص بترميز UTF-16 ("نص Unicode" في Excel) وليس UTF-8: احفظه بصيغة "CSV UTF-8".',
      );
    if (!start.subarray(0, 3).equals(UTF8_BOM)) return start;
    this.startsWithBom();
    return start.subarray(3);
  }

  private checked(chunk: Buffer): Buffer {
    const nul = chunk.indexOf(0);
    if (nul !== -1)
      throw fileError(
        'format_mismatch',
        `The file holds binary data (a NUL byte at line ${this.lineAt(chunk, nul)}), not text.`,
        `الملف يحتوي بيانات ثنائية (بايت NUL في السطر ${this.lineAt(chunk, nul)}) وليس نصاً.`,
      );
    const bytes = this.decode(chunk);
    this.lines += breaksIn(chunk, chunk.length);
    return bytes;
  }

  protected lineAt(chunk: Buffer, offset: number): number {
    return this.lines + breaksIn(chunk, offset) + 1;
  }
}

function breaksIn(chunk: Buffer, end: number): number {
  let count = 0;
  for (let at = chunk.indexOf(LF); at !== -1 && at < end; at = chunk.indexOf(LF, at + 1)) count++;
  return count;
}

/** UTF-8 checked as it passes, a character split between chunks included. */
class Utf8Text extends FileText {
  /** The start of a character the next chunk ends. */
  private split: Buffer | undefined;

  protected startsWithBom(): void {}

  protected decode(chunk: Buffer): Buffer {
    let rest = chunk;
    if (this.split !== undefined) {
      const needed = sequenceLength(this.split[0]) - this.split.length;
      if (chunk.length < needed) {
        this.split = Buffer.concat([this.split, chunk]);
        return chunk;
      }
      if (!isUtf8(Buffer.concat([this.split, chunk.subarray(0, needed)]))) throw this.invalid(chunk, 0);
      this.split = undefined;
      rest = chunk.subarray(needed);
    }
    const whole = rest.length - splitTail(rest);
    if (!isUtf8(rest.subarray(0, whole))) throw this.invalid(chunk, chunk.length - rest.length + firstInvalid(rest.subarray(0, whole)));
    if (whole < rest.length) this.split = Buffer.from(rest.subarray(whole));
    return chunk;
  }

  protected finish(): void {
    if (this.split !== undefined) throw notUtf8(this.lines + 1, this.split);
  }

  private invalid(chunk: Buffer, offset: number): FileRowsError {
    return notUtf8(this.lineAt(chunk, offset), chunk.subarray(Math.max(0, offset - 1024), offset + 64 * 1024));
  }
}

/** How many bytes the UTF-8 sequence `lead` starts takes (a bad lead byte fails the check later). */
function sequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

/** How many bytes at the end of `bytes` begin a character that is not complete yet. */
function splitTail(bytes: Buffer): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back];
    if (byte < 0x80) return 0;
    if (byte >= 0xc0) return sequenceLength(byte) > back ? back : 0;
  }
  return 0;
}

/** The offset of the first byte that is not UTF-8 (a U+FFFD the file itself holds is passed over). */
function firstInvalid(bytes: Buffer): number {
  const text = bytes.toString('utf8');
  for (let at = text.indexOf('\ufffd'); at !== -1; at = text.indexOf('\ufffd', at + 1)) {
    const offset = Buffer.byteLength(text.slice(0, at));
    if (!bytes.subarray(offset, offset + 3).equals(Buffer.from('\ufffd'))) return offset;
  }
  return bytes.length;
}

function notUtf8(line: number, sample: Buffer): FileRowsError {
  if (looksLikeWindows1256(sample))
    return fileError(
      'encoding_invalid',
      `The file is not UTF-8 text (line ${line}): it looks like Arabic Windows text (Windows-1256). Set the flow's encoding to windows-1256, or save the file as "CSV UTF-8".`,
      `الملف ليس نصاً بترميز UTF-8 (السطر ${line}): يبدو نصاً عربياً بترميز Windows-1256. اضبط ترميز التدفق على windows-1256، أو احفظ الملف بصيغة "CSV UTF-8".`,
    );
  return fileError(
    'encoding_invalid',
    `The file is not UTF-8 text (line ${line}). Save it as UTF-8 (in Excel: "CSV UTF-8"), or set the flow's encoding to the one the file is in.`,
    `الملف ليس نصاً بترميز UTF-8 (السطر ${line}). احفظه بترميز UTF-8 (في Excel: "CSV UTF-8")، أو اضبط ترميز التدفق على ترميز الملف.`,
  );
}

/** Whether text that is not UTF-8 reads, as Windows-1256, as mostly Arabic letters. */
function looksLikeWindows1256(sample: Buffer): boolean {
  const text = iconv.decode(sample, 'windows-1256');
  const foreign = text.match(NON_ASCII)?.length ?? 0;
  const arabic = text.match(ARABIC_LETTER)?.length ?? 0;
  return foreign > 0 && arabic / foreign >= ARABIC_SHARE;
}

/** Windows-1256 (Arabic Windows, a byte a character) decoded to UTF-8. */
class Windows1256Text extends FileText {
  private readonly decoder = iconv.getDecoder('windows-1256');
  private checkedNotUtf8 = false;

  protected startsWithBom(): void {
    throw utf8NotWindows1256();
  }

  protected decode(chunk: Buffer): Buffer {
    // Arabic Windows text is almost never valid UTF-8; Arabic UTF-8 read as Windows-1256 would be gibberish.
    if (!this.checkedNotUtf8) {
      const whole = chunk.subarray(0, chunk.length - splitTail(chunk));
      if (!isAscii(whole)) {
        if (isUtf8(whole)) throw utf8NotWindows1256();
        this.checkedNotUtf8 = true;
      }
    }
    return Buffer.from(this.decoder.write(chunk), 'utf8');
  }

  protected finish(): void {
    this.decoder.end();
  }
}

function utf8NotWindows1256(): FileRowsError {
  return fileError(
    'encoding_invalid',
    "The file is UTF-8 text, but the flow's encoding is windows-1256: set it to utf-8.",
    'الملف نص بترميز UTF-8، لكن ترميز التدفق windows-1256: اضبطه على utf-8.',
  );
}

// ---------------------------------------------------------------------------------------------
// CSV

const DELIMITERS = [',', ';', '\t'] as const;
const DELIMITER_BYTES = DELIMITERS.map((delimiter) => delimiter.charCodeAt(0));

async function* csvItems(chunks: AsyncIterable<Buffer>): AsyncGenerator<Item[]> {
  const sniffer = new DelimiterSniffer();
  let held: Buffer[] = [];
  let reader: CsvReader | undefined;
  for await (const chunk of chunks) {
    if (reader === undefined) {
      held.push(chunk);
      if (!sniffer.scan(chunk)) continue;
      reader = new CsvReader(sniffer.delimiter());
      for (const early of held) yield* inPieces(reader, early);
      held = [];
    } else {
      yield* inPieces(reader, chunk);
    }
  }
  reader ??= new CsvReader(sniffer.delimiter());
  for (const early of held) yield* inPieces(reader, early);
  yield reader.end();
}

/** Bytes of CSV parsed at a time: a piece holds the thread a few milliseconds (a 64 KiB chunk about fifteen). */
const CSV_PIECE_BYTES = 16 * 1024;

function* inPieces(reader: CsvReader, chunk: Buffer): Generator<Item[]> {
  for (let at = 0; at < chunk.length; at += CSV_PIECE_BYTES) yield reader.feed(chunk.subarray(at, at + CSV_PIECE_BYTES));
}

/** Reads the header record for the delimiter it uses: of `,`, `;` and tab, the one it holds most outside quotes. */
class DelimiterSniffer {
  private readonly counts = DELIMITERS.map(() => 0);
  private quoted = false;
  private started = false;
  private bytes = 0;

  /** Reads on in the header record: true once it has ended. */
  scan(chunk: Buffer): boolean {
    for (let at = 0; at < chunk.length; at++) {
      const byte = chunk[at];
      if (byte === QUOTE) this.quoted = !this.quoted;
      if (this.quoted) continue;
      if (byte === LF || byte === CR) {
        if (this.started) return true;
        continue;
      }
      this.started = true;
      const delimiter = DELIMITER_BYTES.indexOf(byte);
      if (delimiter !== -1) this.counts[delimiter]++;
    }
    this.bytes += chunk.length;
    if (this.bytes > RECORD_MAX_BYTES) throw tooLarge(1);
    return false;
  }

  delimiter(): string {
    const most = Math.max(...this.counts);
    return DELIMITERS[most === 0 ? 0 : this.counts.indexOf(most)];
  }
}

/** The core of csv-parse's stream (its `api`), driven directly so each record's line count is at hand when it is pushed. */
interface CsvCore {
  readonly info: { readonly lines: number; readonly empty_lines: number };
  parse(chunk: Buffer | undefined, end: boolean, push: (record: string[]) => void, close: () => void): Error | undefined;
}

function csvCore(options: CsvOptions): CsvCore {
  const core = (new Parser(options) as unknown as { api?: CsvCore }).api;
  if (typeof core?.parse !== 'function') throw new Error('csv-parse no longer exposes its parser core (Parser.api)');
  return core;
}

function ignore(): void {}

/**
 * Records to rows, counting lines. csv-parse counts a line at every CR and LF inside quotes, so a
 * quoted CRLF counts twice; `drift` is how far its count is ahead of the file's lines.
 */
class CsvReader {
  private readonly core: CsvCore;
  private names: string[] | undefined;
  private items: Item[] = [];
  /** csv-parse's line count at the end of the last record, and its count of empty lines then. */
  private lastEnd = 0;
  private lastEmpty = 0;
  private drift = 0;
  /** Bytes since the last line break: csv-parse's own limit counts field text, not delimiters. */
  private lineBytes = 0;
  private readonly push = (record: string[]) => this.take(record);

  constructor(delimiter: string) {
    this.core = csvCore({
      delimiter,
      record_delimiter: ['\r\n', '\n', '\r'],
      bom: false,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: RECORD_MAX_BYTES,
    });
  }

  feed(chunk: Buffer): Item[] {
    this.checkLineLength(chunk);
    return this.parse(chunk);
  }

  end(): Item[] {
    const items = this.parse(undefined);
    if (this.names === undefined) items.push([]);
    return items;
  }

  private parse(chunk: Buffer | undefined): Item[] {
    this.items = [];
    const error = this.core.parse(chunk, chunk === undefined, this.push, ignore);
    if (error !== undefined) throw this.malformed(error);
    return this.items;
  }

  private take(record: string[]): void {
    const { lines, empty_lines } = this.core.info;
    const start = this.nextStart();
    const countedBreaks = lines - start - this.drift;
    if (countedBreaks > 0) this.drift += countedBreaks - lineBreaks(record);
    this.lastEnd = lines;
    this.lastEmpty = empty_lines;
    if (isBlankRecord(record)) return;
    if (this.names === undefined) {
      this.names = headerNames(record, 'csv');
      this.items.push(this.names);
    } else {
      this.items.push(this.row(record, start));
    }
  }

  /** The line the record being read started on. */
  private nextStart(): number {
    return this.lastEnd - this.drift + 1 + (this.core.info.empty_lines - this.lastEmpty);
  }

  private row(record: string[], line: number): SourceRow | RowProblem {
    const names = this.names!;
    const values: Record<string, CellValue> = {};
    for (let column = 0; column < names.length; column++) {
      const value = column < record.length ? record[column] : null;
      checkCell(value, () => ({
        en: `The cell of column "${names[column]}" on line ${line}`,
        ar: `خلية العمود "${names[column]}" في السطر ${line}`,
      }));
      values[names[column]] = value;
    }
    if (record.length <= names.length) return { line, values };
    const count = valuesCount(record);
    return count > names.length ? extraColumns(line, count, names.length, values) : { line, values };
  }

  private checkLineLength(chunk: Buffer): void {
    const first = firstBreak(chunk);
    if (first === -1) this.lineBytes += chunk.length;
    else if (this.lineBytes + first > RECORD_MAX_BYTES) throw tooLarge(this.nextStart());
    else this.lineBytes = chunk.length - 1 - Math.max(chunk.lastIndexOf(LF), chunk.lastIndexOf(CR));
    if (this.lineBytes > RECORD_MAX_BYTES) throw tooLarge(this.nextStart());
  }

  private malformed(error: Error): FileRowsError {
    const code = (error as { code?: string }).code;
    if (code === 'CSV_MAX_RECORD_SIZE') return tooLarge(this.nextStart());
    const line = this.core.info.lines - this.drift;
    if (code === 'CSV_QUOTE_NOT_CLOSED')
      return fileError(
        'csv_malformed',
        `The file is not valid CSV: the quote opened in the record starting at line ${this.nextStart()} is never closed.`,
        `الملف ليس CSV صالحاً: علامة الاقتباس المفتوحة في السجل الذي يبدأ في السطر ${this.nextStart()} لم تُغلق.`,
      );
    return fileError(
      'csv_malformed',
      `The file is not valid CSV: line ${line} has a quote inside a field that is not quoted, or text after a closing quote (a quoted field's own quotes are written twice: "").`,
      `الملف ليس CSV صالحاً: في السطر ${line} علامة اقتباس داخل حقل غير مقتبس، أو نص بعد علامة الإغلاق (تُكتب علامة الاقتباس داخل الحقل المقتبس مرتين: "").`,
    );
  }
}

function firstBreak(chunk: Buffer): number {
  const lf = chunk.indexOf(LF);
  const cr = chunk.indexOf(CR);
  return lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
}

/** The line breaks inside a record's quoted fields, CRLF, LF and CR alike counting one. */
function lineBreaks(record: string[]): number {
  let breaks = 0;
  for (const field of record) {
    for (let at = 0; at < field.length; at++) {
      const code = field.charCodeAt(at);
      if (code === LF || (code === CR && field.charCodeAt(at + 1) !== LF)) breaks++;
    }
  }
  return breaks;
}

function isBlankRecord(record: string[]): boolean {
  for (const cell of record) if (!isBlankText(cell)) return false;
  return true;
}

/** The cells up to the last that holds something. */
function valuesCount(record: string[]): number {
  let count = record.length;
  while (count > 0 && isBlankText(record[count - 1])) count--;
  return count;
}

// ---------------------------------------------------------------------------------------------
// JSON lines

export interface TextLine {
  line: number;
  text: string;
}

/** The lines of UTF-8 text, LF or CRLF ended, a chunk's at a time; a line longer than RECORD_MAX_BYTES refuses the file. */
export async function* textLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<TextLine[]> {
  let line = 0;
  let rest: Buffer | undefined;
  for await (const chunk of chunks) {
    const bytes = rest === undefined ? chunk : Buffer.concat([rest, chunk]);
    const lines: TextLine[] = [];
    let from = 0;
    for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, from)) {
      if (at - from > RECORD_MAX_BYTES) throw tooLarge(line + 1);
      lines.push({ line: ++line, text: lineText(bytes, from, at) });
      from = at + 1;
    }
    rest = from < bytes.length ? bytes.subarray(from) : undefined;
    if (rest !== undefined && rest.length > RECORD_MAX_BYTES) throw tooLarge(line + 1);
    yield lines;
  }
  if (rest !== undefined) yield [{ line: line + 1, text: lineText(rest, 0, rest.length) }];
}

function lineText(bytes: Buffer, from: number, to: number): string {
  return bytes.toString('utf8', from, to > from && bytes[to - 1] === CR ? to - 1 : to);
}

/** Why a JSON line is not a record. */
export class JsonLineFault {
  constructor(
    readonly kind: 'not_json' | 'not_object' | 'too_deep',
    readonly en: string,
    readonly ar: string,
  ) {}
}

const JSON_DETAIL_LENGTH = 100;

/**
 * The deepest a JSON line's objects and arrays may nest (the line's own object is level 1): records
 * nest a few levels, and a nested value becomes its JSON text, which V8 writes recursively.
 */
export const JSON_DEPTH_MAX = 64;

/** A JSON line's object as cell values (see `readRows`), or why the line is not one. */
export function jsonLineValues(text: string): Record<string, CellValue> | JsonLineFault {
  if (nestsDeeperThan(text, JSON_DEPTH_MAX))
    return new JsonLineFault(
      'too_deep',
      `The line's objects and arrays nest deeper than ${JSON_DEPTH_MAX} levels.`,
      `تتداخل الكائنات والمصفوفات في السطر لأكثر من ${JSON_DEPTH_MAX} مستوى.`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const detail = (error as Error).message.slice(0, JSON_DETAIL_LENGTH);
    return new JsonLineFault('not_json', `The line is not JSON (${detail}).`, 'السطر ليس JSON صالحاً.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    return new JsonLineFault('not_object', `The line holds ${kind}, not a JSON object.`, 'السطر لا يحتوي كائن JSON.');
  }
  return cellValues(hasLongInteger(parsed) ? withLongIntegers(text) : (parsed as Record<string, unknown>));
}

/** Whether `{` and `[` outside strings nest deeper than `depth` in the text: linear, and only for a line with that many of them. */
function nestsDeeperThan(text: string, depth: number): boolean {
  let brackets = 0;
  for (let at = text.indexOf('{'); at !== -1 && brackets <= depth; at = text.indexOf('{', at + 1)) brackets++;
  for (let at = text.indexOf('['); at !== -1 && brackets <= depth; at = text.indexOf('[', at + 1)) brackets++;
  if (brackets <= depth) return false;
  let open = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === BACKSLASH) at++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++open > depth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) open--;
  }
  return false;
}

const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function cellValues(record: Record<string, unknown>): Record<string, CellValue> {
  for (const key of Object.keys(record)) {
    const value = record[key];
    // defineProperty: a "__proto__" key is the record's own, as JSON.parse made it.
    if (typeof value === 'object' && value !== null)
      Object.defineProperty(record, key, { value: jsonCell(value), enumerable: true, writable: true });
  }
  return record as Record<string, CellValue>;
}

function isLongInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);
}

function hasLongInteger(record: object): boolean {
  return Object.values(record).some(isLongInteger);
}

/** The line parsed again with integers past 2^53 kept as their digits: a barcode read as a number would lose its last ones. */
function withLongIntegers(text: string): Record<string, unknown> {
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    isLongInteger(value) && context?.source !== undefined ? context.source : value,
  ) as Record<string, unknown>;
}

function jsonCell(value: object): CellValue {
  return Array.isArray(value)
    ? value.map((item: unknown) => (typeof item === 'object' && item !== null ? jsonCell(item) : (item as CellValue)))
    : JSON.stringify(value);
}

async function* jsonlItems(chunks: AsyncIterable<Buffer>): AsyncGenerator<Item[]> {
  yield [[]];
  for await (const lines of textLines(chunks)) yield lines.filter(({ text }) => !isBlankText(text)).map(jsonlItem);
}

function jsonlItem({ line, text }: TextLine): SourceRow | RowProblem {
  const values = jsonLineValues(text);
  if (values instanceof JsonLineFault)
    return problem(line, values.kind === 'too_deep' ? 'nesting_too_deep' : 'not_json_object', values.en, values.ar);
  for (const key of Object.keys(values))
    checkCell(values[key], () => ({ en: `The value of "${key}" on line ${line}`, ar: `قيمة "${key}" في السطر ${line}` }));
  return { line, values };
}

// ---------------------------------------------------------------------------------------------
// XLSX

/** A cell that holds no value to import: an error such as #N/A, or a formula never calculated. */
class CellFault {
  constructor(
    readonly en: string,
    readonly ar: string,
  ) {}
}

type CellReading = CellValue | CellFault;

async function* xlsxItems(content: Readable, columns: ReadonlySet<string> | undefined): AsyncGenerator<Item[]> {
  // exceljs gets the archive's bytes once the guard has unpacked and checked them (it drops empty chunks,
  // after which exceljs's unzip would never finish: an empty file, as some streams give it).
  const input = content.pipe(new XlsxArchiveGuard());
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

/** Closes the temporary file a worksheet would be read from (its `iterator`, in exceljs). */
function closeUnread(sheet: ExcelJS.stream.xlsx.WorksheetReader): void {
  const input = (sheet as { iterator?: unknown }).iterator;
  // Destroyed while its open is pending, the stream can still fail (exceljs removes the temporary file as
  // its iteration moves on): nobody reads it any more, so that failure must not go unheard.
  if (input instanceof ReadStream) input.on('error', ignore).destroy();
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

/** Whether `sheet` is the first tab; exceljs meets the sheets in the order of the zip archive. */
function isFirstTab(reader: object, sheet: object): boolean {
  const first = (reader as { model?: { sheets?: { name?: string }[] } }).model?.sheets?.[0]?.name;
  const name = (sheet as { name?: string }).name;
  return first === undefined || name === undefined || first === name;
}

async function* sheetItems(sheet: ExcelJS.stream.xlsx.WorksheetReader, cells: XlsxCells, guard: StreamGuard): AsyncGenerator<Item[]> {
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
