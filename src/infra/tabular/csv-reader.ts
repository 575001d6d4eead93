import { Parser, type Info as CsvInfo, type Options as CsvOptions } from 'csv-parse';
import { once } from 'node:events';
import { fileError, RECORD_MAX_BYTES, type FileRowsError } from './file-refusal.js';
import {
  checkCell,
  extraColumns,
  headerNames,
  isBlankText,
  tooLarge,
  type CellValue,
  type RowProblem,
  type RowsItem,
  type SourceRow,
} from './table-rows.js';
import { CR, LF, QUOTE } from './text-chunks.js';

const DELIMITERS = [',', ';', '\t'] as const;
const DELIMITER_BYTES = DELIMITERS.map((delimiter) => delimiter.charCodeAt(0));

export async function* csvItems(chunks: AsyncIterable<Buffer>): AsyncGenerator<RowsItem[]> {
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
  yield await reader.end();
}

/** Bytes of CSV parsed at a time: a piece holds the thread a few milliseconds (a 64 KiB chunk about fifteen). */
const CSV_PIECE_BYTES = 16 * 1024;

function* inPieces(reader: CsvReader, chunk: Buffer): Generator<RowsItem[]> {
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

/** A record as csv-parse gives it with `info`: its fields, and the parser's counts at its end. */
interface ParsedRecord {
  record: string[];
  info: CsvInfo;
}

function ignore(): void {}

/**
 * Records to rows, counting lines. csv-parse counts a line at every CR and LF inside quotes, so a
 * quoted CRLF counts twice; `drift` is how far its count is ahead of the file's lines.
 */
class CsvReader {
  private readonly parser: Parser;
  private names: string[] | undefined;
  private items: RowsItem[] = [];
  /** csv-parse's line count at the end of the last record, and its count of empty lines then. */
  private lastEnd = 0;
  private lastEmpty = 0;
  private drift = 0;
  /** Bytes since the last line break: csv-parse's own limit counts field text, not delimiters. */
  private lineBytes = 0;

  constructor(delimiter: string) {
    const options: CsvOptions & { readableHighWaterMark: number } = {
      delimiter,
      record_delimiter: ['\r\n', '\n', '\r'],
      bom: false,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: RECORD_MAX_BYTES,
      // Each record with the parser's counts at its end: the line it ends on.
      info: true,
      // A piece's records all wait to be read, so a write parses the whole piece before it returns.
      readableHighWaterMark: Number.MAX_SAFE_INTEGER,
    };
    this.parser = new Parser(options);
    // A failure is read from `errored` where it happens; the event would find no one.
    this.parser.on('error', ignore);
  }

  /** The rows of a piece of the file: it is parsed as it is written, while this runs. */
  feed(chunk: Buffer): RowsItem[] {
    this.checkLineLength(chunk);
    this.parser.write(chunk);
    return this.parsed();
  }

  async end(): Promise<RowsItem[]> {
    this.parser.end();
    await once(this.parser, 'finish').catch(ignore);
    const items = this.parsed();
    if (this.names === undefined) items.push([]);
    return items;
  }

  /** The rows of the records parsed so far; a failure of the parser after them counts their lines first. */
  private parsed(): RowsItem[] {
    this.items = [];
    for (let next = this.parser.read() as ParsedRecord | null; next !== null; next = this.parser.read() as ParsedRecord | null) {
      this.take(next.record, next.info);
    }
    if (this.parser.errored) throw this.malformed(this.parser.errored);
    return this.items;
  }

  private take(record: string[], info: CsvInfo): void {
    const { lines, empty_lines } = info;
    const start = this.nextStart(info);
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

  /** The line the record being read started on, by the parser's counts then (now, unless given). */
  private nextStart(info: CsvInfo = this.parser.info): number {
    return this.lastEnd - this.drift + 1 + (info.empty_lines - this.lastEmpty);
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
    const line = this.parser.info.lines - this.drift;
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
