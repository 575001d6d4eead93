import { notWorkbook } from './file-refusal.js';
import { isBlankText, type CellValue } from './table-rows.js';
import { XmlPart } from './xlsx-xml.js';

/** A cell that holds no value to import: an error such as #N/A, or a formula never calculated. */
export class CellFault {
  constructor(
    readonly en: string,
    readonly ar: string,
  ) {}
}

export type CellReading = CellValue | CellFault;

/** A worksheet row as its XML gives it. */
export interface SheetRow {
  /** Its row number (`<row r>`), the line a problem names. */
  line: number;
  /** Its cells' readings by column, 1-based, sparse: a cell without a value is left out. */
  cells: CellReading[];
  /** The last column whose cell holds more than blank text (a formula's result counts whatever it is); 0: a blank row. */
  filled: number;
}

/** What a worksheet's cells refer to: the workbook's shared strings, which styles show dates, its date system. */
export interface SheetContext {
  sharedStrings: readonly (string | null)[];
  dateStyles: readonly boolean[];
  date1904: boolean;
}

/** Excel's last column, XFD. */
const COLUMNS_MAX = 16_384;
const DAY_MS = 86_400_000;

const ERROR_CELL = new CellFault('an error', 'خطأ');
const NO_RESULT = new CellFault(
  'a formula whose result was never saved (open the file in Excel and save it again)',
  'صيغة لم تُحفظ نتيجتها (افتح الملف في Excel واحفظه مجدداً)',
);

interface OpenCell {
  column: number;
  /** `<c t>`: `s` shared string, `inlineStr`, `str` a formula's text, `b`, `e` error, `d` ISO date, else a number. */
  type: string | undefined;
  style: number;
  formula: boolean;
  /** The text of `<v>`, or of an inline string's `<t>` runs; undefined when the cell has none. */
  value: string | undefined;
}

/**
 * A worksheet's rows as its XML comes (`<sheetData>`'s `<row>`s and their `<c>`ells), gathered until
 * `take` hands them out. Rows and cells are placed by their references, a missing one following the
 * one before.
 */
export class SheetPart extends XmlPart {
  private rows: SheetRow[] = [];
  private inSheetData = false;
  private row: SheetRow | undefined;
  private lastLine = 0;
  private lastColumn = 0;
  private cell: OpenCell | undefined;
  private inInline = false;
  /** Depth in a phonetic run (`<rPh>`), whose text is not the cell's. */
  private phonetic = 0;
  private collecting = false;

  constructor(private readonly context: SheetContext) {
    super();
  }

  /** The rows read since the last call. */
  take(): SheetRow[] {
    const rows = this.rows;
    this.rows = [];
    return rows;
  }

  protected override open(name: string, attributes: Record<string, string>): void {
    switch (name) {
      case 'sheetData':
        this.inSheetData = true;
        break;
      case 'row':
        if (!this.inSheetData) break;
        this.row = { line: integerOf(attributes.r) ?? this.lastLine + 1, cells: [], filled: 0 };
        this.lastColumn = 0;
        break;
      case 'c':
        if (this.row === undefined) break;
        this.cell = {
          column: columnOf(attributes.r) ?? this.lastColumn + 1,
          type: attributes.t,
          style: integerOf(attributes.s) ?? 0,
          formula: false,
          value: undefined,
        };
        break;
      case 'f':
        if (this.cell !== undefined) this.cell.formula = true;
        break;
      case 'v':
        if (this.cell === undefined) break;
        this.cell.value = '';
        this.collecting = true;
        break;
      case 'is':
        if (this.cell === undefined) break;
        this.cell.value ??= '';
        this.inInline = true;
        break;
      case 'rPh':
        if (this.inInline) this.phonetic++;
        break;
      case 't':
        if (this.inInline && this.phonetic === 0) this.collecting = true;
        break;
    }
  }

  protected override text(text: string): void {
    if (this.collecting && this.cell !== undefined) this.cell.value += text;
  }

  protected override close(name: string): void {
    switch (name) {
      case 'sheetData':
        this.inSheetData = false;
        break;
      case 'v':
      case 't':
        this.collecting = false;
        break;
      case 'rPh':
        if (this.inInline) this.phonetic--;
        break;
      case 'is':
        this.inInline = false;
        break;
      case 'c':
        if (this.row !== undefined && this.cell !== undefined) this.place(this.row, this.cell);
        this.cell = undefined;
        this.collecting = false;
        break;
      case 'row':
        if (this.row === undefined) break;
        this.rows.push(this.row);
        this.lastLine = this.row.line;
        this.row = undefined;
        break;
    }
  }

  private place(row: SheetRow, cell: OpenCell): void {
    this.lastColumn = cell.column;
    const reading = cell.formula ? this.result(cell) : cell.value === undefined ? null : this.value(cell, cell.value);
    if (reading === null) return;
    row.cells[cell.column] = reading;
    if (cell.formula || !(typeof reading === 'string' && isBlankText(reading))) row.filled = Math.max(row.filled, cell.column);
  }

  /** A formula's saved result: none when the file was saved without calculating it. */
  private result(cell: OpenCell): CellReading {
    if (cell.value === undefined) return NO_RESULT;
    return this.value(cell, cell.value);
  }

  private value(cell: OpenCell, text: string): CellReading {
    switch (cell.type) {
      case 's':
        return this.context.sharedStrings[Number.parseInt(text, 10)] ?? null;
      case 'inlineStr':
      case 'str':
        return text;
      case 'e':
        return new CellFault(`the error ${text}`, `الخطأ ${text}`);
      case 'b':
        return text.trim() === '1' || text.trim() === 'true';
      case 'd': {
        // An ISO 8601 date; a date-time without an offset is read as UTC, as a serial date is.
        const iso = text.trim();
        return isoDate(new Date(!iso.includes('T') || /(Z|[+-]\d\d:?\d\d)$/i.test(iso) ? iso : `${iso}Z`));
      }
      default: {
        const number = Number.parseFloat(text);
        if (!Number.isFinite(number)) return ERROR_CELL;
        if (this.context.dateStyles[cell.style] !== true) return number;
        return isoDate(new Date(Math.round((number - 25569 + (this.context.date1904 ? 1462 : 0)) * DAY_MS)));
      }
    }
  }
}

/** A date as ISO 8601: `yyyy-MM-dd` at midnight, else the UTC date-time. */
function isoDate(date: Date): CellReading {
  const time = date.getTime();
  if (Number.isNaN(time)) return new CellFault('a date that cannot be read', 'تاريخاً لا يمكن قراءته');
  return time % DAY_MS === 0 ? date.toISOString().slice(0, 10) : date.toISOString();
}

function integerOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const number = Number.parseInt(text, 10);
  return Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}

/** The column of a cell reference (`AB12` → 28); undefined when it names none; past XFD, the file is not a workbook. */
function columnOf(reference: string | undefined): number | undefined {
  if (reference === undefined) return undefined;
  let column = 0;
  for (let at = 0; at < reference.length; at++) {
    const code = reference.charCodeAt(at);
    const letter = code >= 65 && code <= 90 ? code - 64 : code >= 97 && code <= 122 ? code - 96 : 0;
    if (letter === 0) break;
    column = column * 26 + letter;
    if (column > COLUMNS_MAX) throw notWorkbook();
  }
  return column === 0 ? undefined : column;
}
