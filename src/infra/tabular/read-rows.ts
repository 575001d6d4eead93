import type { Readable } from 'node:stream';
import { csvItems } from './csv-reader.js';
import type { FileEncoding, SourceFormat } from './formats.js';
import { jsonlItems } from './jsonl-reader.js';
import type { FileRows, RowProblem, RowsItem, SourceRow } from './table-rows.js';
import { utf8Chunks } from './text-chunks.js';
import { ThreadShare } from './thread-share.js';
import { xlsxItems } from './xlsx-reader.js';

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

/**
 * Hands out the readers' batches a row at a time: an async generator's yield per row would cost more
 * than the rest of the row. Reading, and whatever the caller does with each row before asking for the
 * next, share the thread with requests: every THREAD_SLICE_MS the next row waits for the event loop.
 */
class RowsReader implements FileRows {
  private batch: RowsItem[] = [];
  private next = 0;
  private headerRead?: Promise<string[]>;
  private readonly thread = new ThreadShare();

  constructor(private readonly batches: AsyncGenerator<RowsItem[]>) {}

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

  private async item(): Promise<RowsItem | undefined> {
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
