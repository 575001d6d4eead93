import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Bilingual } from '../../common/bilingual.js';

export const SOURCE_FORMATS = ['csv', 'jsonl', 'xlsx'] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];

/** The most a header may take before the file is refused: a header line, not a 2 GiB file without line breaks. */
export const HEADER_MAX_BYTES = 1024 * 1024;
/** JSON lines name their fields in each record: the first records' keys together are the file's fields. */
export const JSONL_RECORDS_READ = 100;

/** Why a file's fields could not be read, as the merchant reads it. */
export class FileFieldsError extends Error {
  constructor(
    readonly code: 'file_empty' | 'header_unreadable',
    readonly reason: Bilingual,
  ) {
    super(`${code}: ${reason.en}`);
  }
}

const EMPTY = new FileFieldsError('file_empty', { en: 'The file is empty.', ar: 'الملف فارغ.' });

/**
 * The field names a file offers a mapping, read from its start only: a CSV's header row (UTF-8, with
 * or without a byte order mark, RFC 4180 quoting), the keys of the first JSON lines' objects in the
 * order first seen, or the first row of an XLSX file's first worksheet. The stream is left unread past
 * what that needed and destroyed.
 */
export async function readFileFields(content: Readable, format: SourceFormat): Promise<string[]> {
  try {
    const fields = format === 'csv' ? await csvHeader(content) : format === 'jsonl' ? await jsonlKeys(content) : await xlsxHeader(content);
    return checked(fields);
  } finally {
    content.destroy();
  }
}

function checked(fields: string[]): string[] {
  const names = fields.map((field) => field.normalize('NFC').trim());
  if (names.length === 0) throw EMPTY;
  const blank = names.findIndex((name) => name === '');
  if (blank !== -1) throw unreadable(`column ${blank + 1} has no name`, `العمود ${blank + 1} بلا اسم`);
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw unreadable(`the column "${name}" appears twice`, `العمود "${name}" مكرر`);
    seen.add(name);
  }
  return names;
}

function unreadable(en: string, ar: string): FileFieldsError {
  return new FileFieldsError('header_unreadable', { en: `The header could not be read: ${en}.`, ar: `تعذّرت قراءة الترويسة: ${ar}.` });
}

async function csvHeader(content: Readable): Promise<string[]> {
  const parser = content.pipe(parse({ bom: true, to: 1, relax_column_count: true, max_record_size: HEADER_MAX_BYTES }));
  try {
    for await (const record of parser as AsyncIterable<string[]>) return record;
  } catch (error) {
    throw unreadable((error as Error).message, 'ليست ملف CSV صالحاً');
  }
  throw EMPTY;
}

async function jsonlKeys(content: Readable): Promise<string[]> {
  const keys = new Set<string>();
  let records = 0;
  let bytes = 0;
  const lines = createInterface({ input: content, crlfDelay: Infinity });
  for await (const raw of lines) {
    bytes += raw.length;
    if (bytes > HEADER_MAX_BYTES) throw unreadable('the first lines are too long', 'الأسطر الأولى طويلة جداً');
    const line = raw.replace(/^\uFEFF/, '').trim();
    if (line === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw unreadable(`line ${records + 1} is not JSON`, `السطر ${records + 1} ليس JSON`);
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record))
      throw unreadable(`line ${records + 1} is not a JSON object`, `السطر ${records + 1} ليس كائن JSON`);
    for (const key of Object.keys(record)) keys.add(key);
    if (++records >= JSONL_RECORDS_READ) break;
  }
  lines.close();
  return [...keys];
}

async function xlsxHeader(content: Readable): Promise<string[]> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(content, { worksheets: 'emit', sharedStrings: 'cache', styles: 'ignore' });
  try {
    for await (const sheet of reader) {
      for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
        const values = (row.values as ExcelJS.CellValue[]).slice(1);
        return values.map((value) => textOf(value));
      }
      return [];
    }
  } catch (error) {
    if (error instanceof FileFieldsError) throw error;
    throw unreadable('it is not an XLSX workbook', 'ليس مصنّف XLSX');
  }
  return [];
}

/** A header cell as text: rich text joined, a formula's result, a number or date as written. */
function textOf(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') {
    if ('richText' in value) return value.richText.map((part) => part.text).join('');
    if ('result' in value) return textOf(value.result as ExcelJS.CellValue);
    if ('text' in value) return String(value.text);
    if (value instanceof Date) return value.toISOString().slice(0, 10);
  }
  return String(value);
}
