import type { Readable } from 'node:stream';
import {
  checkCell,
  columnLetters,
  extraColumns,
  headerNames,
  problem,
  type CellValue,
  type RowProblem,
  type RowsItem,
  type SourceRow,
} from './table-rows.js';
import { ThreadShare } from './thread-share.js';
import { ARCHIVE_SLICE_BYTES, XlsxArchiveGuard } from './xlsx-archive-guard.js';
import { WorkbookParts } from './xlsx-parts.js';
import { CellFault, type SheetRow } from './xlsx-sheet.js';

/**
 * The rows of an XLSX file's first tab. The archive guard checks the archive as its bytes come and hands
 * out the XML of the parts the workbook needs (`WorkbookParts`); the rows of the first tab come as it
 * unpacks when the workbook, its relationships, its shared strings and its styles came before it, else
 * from the temporary file it was spilled to, once the archive is read. Either way the file is read to
 * its end (and checked) before the iteration ends, as a run that hashes the file it read expects.
 */
export async function* xlsxItems(content: Readable, columns: ReadonlySet<string> | undefined): AsyncGenerator<RowsItem[]> {
  const parts = new WorkbookParts();
  const guard = new XlsxArchiveGuard(parts.open);
  const rows = new XlsxRows(columns);
  const thread = new ThreadShare();
  try {
    for await (const chunk of content as AsyncIterable<Buffer>) {
      for (let at = 0; at < chunk.length; at += ARCHIVE_SLICE_BYTES) {
        guard.take(chunk.subarray(at, at + ARCHIVE_SLICE_BYTES));
        const items = rows.items(parts.takeRows());
        if (items.length > 0) yield items;
        await parts.drained();
        if (thread.due) await thread.pause();
      }
    }
    if (guard.bytes === 0) {
      yield [[]]; // an empty file, as in the other formats: no rows
      return;
    }
    guard.end();
    if (!parts.sheetRead) {
      for await (const batch of parts.spilledRows()) {
        const items = rows.items(batch);
        if (items.length > 0) yield items;
      }
    }
    yield* rows.end();
  } finally {
    // However the reading ends (a failure of the stream itself comes out of its iteration as it is: it is
    // not the file's fault), the stream is let go and the temporary files are removed.
    content.destroy();
    await parts.dispose();
  }
}

/** A worksheet's rows as the reader's items: its first non-blank row the header, then the rows under it. */
class XlsxRows {
  private names: string[] | undefined;

  constructor(private readonly columns: ReadonlySet<string> | undefined) {}

  items(rows: SheetRow[]): RowsItem[] {
    const items: RowsItem[] = [];
    for (const row of rows) {
      if (row.filled === 0) continue;
      if (this.names === undefined) {
        this.names = headerNames(header(row), 'xlsx');
        items.push(this.names);
      } else {
        items.push(this.row(row, this.names));
      }
    }
    return items;
  }

  /** What is left once the rows are read: no header, a worksheet without rows. */
  end(): RowsItem[][] {
    return this.names === undefined ? [[[]]] : [];
  }

  private row(row: SheetRow, names: string[]): SourceRow | RowProblem {
    const { line, cells } = row;
    const values: Record<string, CellValue> = {};
    const faults: CellFault[] = [];
    for (let column = 1; column <= names.length; column++) {
      const name = names[column - 1];
      const value = cells[column] ?? null;
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
    if (row.filled > names.length) return extraColumns(line, row.filled, names.length, values);
    if (faults.length > 0)
      return problem(line, 'cell_error', faults.map((fault) => fault.en).join(' '), faults.map((fault) => fault.ar).join(' '), values);
    return { line, values };
  }
}

/** The header's cells as text: '' where a cell holds nothing or a fault. */
function header(row: SheetRow): string[] {
  const names: string[] = [];
  for (let column = 1; column < row.cells.length; column++) {
    const value = row.cells[column] ?? null;
    names.push(value instanceof CellFault || value === null ? '' : String(value));
  }
  return names;
}

function cellFault(fault: CellFault, reference: string, column: string): CellFault {
  return new CellFault(`Cell ${reference} (${column}) holds ${fault.en}.`, `الخلية ${reference} (${column}) تحتوي ${fault.ar}.`);
}
