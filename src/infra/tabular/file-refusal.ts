import type { Bilingual } from '../../common/bilingual.js';

/** The longest line or record a file may hold: longer, the file is refused before it is held in memory. */
export const RECORD_MAX_BYTES = 1024 * 1024;

/** The most characters a cell may hold, in every format: Excel's own limit for a cell. */
export const CELL_MAX_CHARS = 32_767;

export type FileRowsErrorCode =
  'header_invalid' | 'csv_malformed' | 'encoding_invalid' | 'record_too_large' | 'cell_too_large' | 'file_too_large' | 'format_mismatch';

/** The file as a whole cannot be read: nothing of it may be imported, not even the rows read before. */
export class FileRowsError extends Error {
  constructor(
    readonly code: FileRowsErrorCode,
    readonly reason: Bilingual,
  ) {
    super(`${code}: ${reason.en}`);
  }
}

export function fileError(code: FileRowsErrorCode, en: string, ar: string): FileRowsError {
  return new FileRowsError(code, { en, ar });
}

/** A size as the merchant reads it: `64 MiB`, `256 KiB`. */
export function sizeText(bytes: number): { en: string; ar: string } {
  const [amount, en, ar] =
    bytes >= 1024 ** 3
      ? [bytes / 1024 ** 3, 'GiB', 'غيغابايت']
      : bytes >= 1024 ** 2
        ? [bytes / 1024 ** 2, 'MiB', 'ميغابايت']
        : [bytes / 1024, 'KiB', 'كيلوبايت'];
  return { en: `${amount} ${en}`, ar: `${amount} ${ar}` };
}

export function notWorkbook(): FileRowsError {
  return fileError(
    'format_mismatch',
    'The file is not an XLSX workbook (with a worksheet): save it from Excel as "Excel Workbook (.xlsx)", or set the flow\'s format.',
    'الملف ليس مصنّف XLSX (فيه ورقة عمل): احفظه من Excel بصيغة "مصنّف Excel (.xlsx)"، أو اضبط صيغة التدفق.',
  );
}
