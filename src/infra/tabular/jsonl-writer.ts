import type { FileEncoding } from './formats.js';
import type { CellValue } from './table-rows.js';
import { TextTableWriter, type TableWriter } from './table-writer.js';

/** JSON lines: a row a line, an object of the columns' values (lists as arrays), in UTF-8 (`utf-8` unless said) or Windows-1256. */
export function jsonlWriter(options: { columns: readonly string[]; encoding?: FileEncoding }): TableWriter {
  return new JsonlWriter(options.columns, options.encoding ?? 'utf-8');
}

class JsonlWriter extends TextTableWriter {
  constructor(
    private readonly columns: readonly string[],
    encoding: FileEncoding,
  ) {
    super(encoding);
  }

  protected line(row: readonly CellValue[]): string {
    // Without a prototype, so that a column named `__proto__` is a column like any other.
    const object: Record<string, CellValue> = Object.create(null);
    this.columns.forEach((column, index) => (object[column] = row[index]));
    return `${JSON.stringify(object)}\n`;
  }
}
