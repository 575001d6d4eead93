import type { Bilingual } from '../../common/bilingual.js';
import type { Direction } from '../definitions/directions.js';
import type { DateRange } from './ranges.js';

/** A column of a report's answer and of its file: a dimension or a measure, its type and its labels. */
export interface ReportColumnDoc {
  name: string;
  kind: 'dimension' | 'measure';
  type: string;
  label_en: string;
  label_ar: string;
  /** Measure columns: whether a rise is good news. */
  direction?: Direction;
}

/** A row of a report's table: dimension values, the `labels` of those that have names, measures. */
export type TableRow = Record<string, unknown> & { labels?: Record<string, Bilingual> };

/**
 * Rows a batch at a time: what an export reads from its cursor (or a page). Measured with a million-row
 * export (day × customer): reading 5,000 at a time, the service's heap grew by 150–250 MB before a full
 * collection (peak RSS about 580 MB); 1,000 at a time, it stayed near its idle size (peak RSS about 330 MB),
 * as fast.
 */
export const EXPORT_BATCH_ROWS = 1000;

/**
 * A report's or builder query's whole table, for a file: every row, never a page, read a batch at a
 * time so that the table is never in memory as a whole.
 */
export interface ReportRows {
  /** The report's name (`builder` for a builder query). */
  report: string;
  range: DateRange;
  currency: string;
  /** The table's own columns, dimensions first. */
  columns: ReportColumnDoc[];
  /** How many rows `batches` gives, counted before they are read. */
  totalRows: number;
  batches: AsyncIterable<TableRow[]>;
}
