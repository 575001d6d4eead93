import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { csvWriter } from '../../src/infra/tabular/csv-writer.js';
import { jsonlWriter } from '../../src/infra/tabular/jsonl-writer.js';
import type { CellValue } from '../../src/infra/tabular/table-rows.js';
import { xlsxWriter } from '../../src/infra/tabular/xlsx-writer.js';
import { openReportFile } from '../../src/insights/exports/report-file.js';
import type { TableRow } from '../../src/insights/query/report-rows.js';

const ROWS = 200_000;
const BATCH = 1000;
/** Rows a writer may have pulled while its destination takes nothing: a few batches and the streams' buffers, not the table. */
const PULLED_WHILE_STALLED_MAX = 40_000;

/** A destination that takes the first bytes, then holds its write callback until released: a full disk, a stalled upload. */
class StalledDestination extends Writable {
  readonly chunks: Buffer[] = [];
  private held: (() => void) | undefined;
  private stalled = true;

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(chunk);
    if (this.stalled) this.held = done;
    else done();
  }

  release(): void {
    this.stalled = false;
    this.held?.();
  }
}

function row(index: number): CellValue[] {
  return [`SKU-${index}`, `عطر العود رقم ${index}`, index * 1.5, index % 2 === 0];
}

/** The rows in batches, counting those pulled. */
function source(counter: { pulled: number }) {
  return (async function* () {
    for (let start = 0; start < ROWS; start += BATCH) {
      const batch = Array.from({ length: BATCH }, (_, offset) => row(start + offset));
      counter.pulled += batch.length;
      yield batch;
    }
  })();
}

/** Resolves once `read()` has not changed for a while. */
async function settled(read: () => number): Promise<number> {
  let last = -1;
  for (let quiet = 0; quiet < 6;) {
    await sleep(50);
    const now = read();
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
  return last;
}

/** A writer of rows of some kind: the tabular writers, and an Insights report file. */
interface RowsWriter<Row> {
  readonly content: Readable;
  write(rows: Row[]): Promise<void>;
  end(): Promise<void>;
}

/** Writes ROWS rows into a stalled destination: rows stop being pulled, then all arrive once it is released. */
async function writeStalled<Row>(writer: RowsWriter<Row>, batches: AsyncIterable<Row[]>, counter: { pulled: number }) {
  const destination = new StalledDestination({ highWaterMark: 16 * 1024 });
  const delivered = pipeline(writer.content, destination);
  const writing = (async () => {
    for await (const batch of batches) await writer.write(batch);
    await writer.end();
  })();
  const pulledWhileStalled = await settled(() => counter.pulled);
  destination.release();
  await writing;
  await delivered;
  return { pulledWhileStalled, bytes: Buffer.concat(destination.chunks) };
}

async function xlsxRowCount(bytes: Buffer): Promise<{ rows: number; last: unknown[] }> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer);
  const sheet = workbook.worksheets[0];
  return { rows: sheet.rowCount - 1, last: (sheet.getRow(sheet.rowCount).values as unknown[]).slice(1) };
}

describe('tabular writers wait for their destination', () => {
  it('CSV: stops pulling rows while the destination is stalled, then writes them all', async () => {
    const counter = { pulled: 0 };
    const result = await writeStalled(csvWriter({ header: ['sku', 'name', 'price', 'active'] }), source(counter), counter);
    expect(result.pulledWhileStalled).toBeLessThan(PULLED_WHILE_STALLED_MAX);
    const records = parse(result.bytes) as string[][];
    expect(records).toHaveLength(ROWS + 1);
    expect(records[ROWS]).toEqual(row(ROWS - 1).map(String));
  });

  it('JSON lines: stops pulling rows while the destination is stalled, then writes them all', async () => {
    const counter = { pulled: 0 };
    const result = await writeStalled(jsonlWriter({ columns: ['sku', 'name', 'price', 'active'] }), source(counter), counter);
    expect(result.pulledWhileStalled).toBeLessThan(PULLED_WHILE_STALLED_MAX);
    const lines = result.bytes.toString('utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(ROWS);
    expect(Object.values(JSON.parse(lines[ROWS - 1]))).toEqual(row(ROWS - 1));
  });

  it('XLSX (data hub exports): stops pulling rows while the destination is stalled, then writes a whole workbook', async () => {
    const counter = { pulled: 0 };
    const columns = ['sku', 'name', 'price', 'active'].map((header) => ({ header, width: 20 }));
    const result = await writeStalled(xlsxWriter({ columns, sheetName: 'Export' }), source(counter), counter);
    expect(result.pulledWhileStalled).toBeLessThan(PULLED_WHILE_STALLED_MAX);
    expect(await xlsxRowCount(result.bytes)).toEqual({ rows: ROWS, last: row(ROWS - 1) });
  });

  it('XLSX (Insights reports): stops pulling rows while the destination is stalled, then writes a whole workbook', async () => {
    const counter = { pulled: 0 };
    const file = openReportFile({
      format: 'xlsx',
      columns: [
        { name: 'query', kind: 'dimension', type: 'text', label_en: 'Search query', label_ar: 'عبارة البحث' },
        { name: 'searches', kind: 'measure', type: 'count', label_en: 'Searches', label_ar: 'عمليات البحث' },
      ],
      language: 'ar',
      currency: 'SAR',
    });
    const batches = (async function* () {
      for await (const batch of source(counter))
        yield batch.map((cells): TableRow => ({ query: cells[1], searches: cells[0] === null ? 0 : 1 }));
    })();
    const result = await writeStalled(file, batches, counter);
    expect(result.pulledWhileStalled).toBeLessThan(PULLED_WHILE_STALLED_MAX);
    expect(await xlsxRowCount(result.bytes)).toEqual({ rows: ROWS, last: [row(ROWS - 1)[1], 1] });
  });
});
