import { isBlank } from '../../common/arabic-text.js';
import { CELL_MAX_CHARS, fileError, type FileRowsError } from './file-refusal.js';

/** A cell's value as a tabular file holds it: JSON lines may hold lists; the other formats hold scalars. */
export type CellValue = string | number | boolean | null | CellValue[];
export type Scalar = Exclude<CellValue, CellValue[]>;

/** Empty: no value, or text of spaces (and invisible marks) only. */
export function isEmptyScalar(value: Scalar): boolean {
  return value === null || (typeof value === 'string' && isBlank(value));
}

/** Empty: no value, text of spaces (and invisible marks) only, or a list whose items are all empty. */
export function isEmptyCell(value: CellValue): boolean {
  return Array.isArray(value) ? value.every(isEmptyCell) : isEmptyScalar(value);
}

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

/** What a format's reader yields, a batch (a chunk's rows) at a time: the header first (`[]` when there is none), then the rows. */
export type RowsItem = string[] | SourceRow | RowProblem;

export function problem(line: number, code: string, en: string, ar: string, values?: Record<string, CellValue>): RowProblem {
  return { line, code, message_en: en, message_ar: ar, values };
}

export function tooLarge(line: number): FileRowsError {
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
export function headerNames(cells: string[], format: 'csv' | 'xlsx'): string[] {
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
export function checkCell(value: CellValue, where: () => { en: string; ar: string }): void {
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

export function columnLetters(column: number): string {
  let letters = '';
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  return letters;
}

export function isBlankText(text: string): boolean {
  return text === '' || text.trim() === '';
}

export function extraColumns(line: number, count: number, width: number, values: Record<string, CellValue>): RowProblem {
  return problem(
    line,
    'extra_columns',
    `The record has ${count} values, but the header names ${width} columns.`,
    `في السجل ${count} قيمة، لكن الترويسة تسمي ${width} عموداً.`,
    values,
  );
}
