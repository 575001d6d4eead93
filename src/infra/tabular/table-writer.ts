import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import iconv from 'iconv-lite';
import type { FileEncoding } from './formats.js';
import type { CellValue } from './table-rows.js';

/** A table being written as a file, a batch of rows at a time, its bytes streamed out of `content` as they are made. */
export interface TableWriter<Cell = CellValue> {
  /** The file's bytes: hand it to where the file goes while rows are written. */
  readonly content: Readable;
  /** Appends rows, each its cells in the columns' order; resolves once `content` can take more (memory holds a batch, not the file). */
  write(rows: readonly (readonly Cell[])[]): Promise<void>;
  /** Writes what is left; `content` ends once it is out. */
  end(): Promise<void>;
}

/**
 * The text handed on at once, in characters. A string of a whole batch (a million-row export makes 84 MB
 * of CSV) is flattened into V8's large-object space, which is old space: the service's heap grew by
 * 200 MB per export until a full collection. Strings of this size die young.
 */
export const CHUNK_CHARS = 16 * 1024;

/** A text file of a line per row (CSV, JSON lines) in UTF-8 or Windows-1256. */
export abstract class TextTableWriter implements TableWriter {
  readonly content = new PassThrough();

  constructor(private readonly encoding: FileEncoding) {}

  async write(rows: readonly (readonly CellValue[])[]): Promise<void> {
    let text = '';
    let wrote = true;
    for (const row of rows) {
      text += this.line(row);
      if (text.length >= CHUNK_CHARS) {
        wrote = this.put(text);
        text = '';
      }
    }
    if (text) wrote = this.put(text);
    if (!wrote) await once(this.content, 'drain');
  }

  async end(): Promise<void> {
    this.content.end();
  }

  /** A row's line, with its line break. */
  protected abstract line(row: readonly CellValue[]): string;

  protected put(text: string): boolean {
    return this.content.write(this.encoding === 'windows-1256' ? iconv.encode(text, 'windows-1256') : text);
  }
}
