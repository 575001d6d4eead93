import type { Readable } from 'node:stream';
import type { Bilingual } from '../../common/bilingual.js';
import { FileRowsError } from './file-refusal.js';
import type { FileEncoding, SourceFormat } from './formats.js';
import { JSON_DEPTH_MAX, JsonLineFault, jsonLineValues, textLines } from './jsonl-reader.js';
import { readRows } from './read-rows.js';
import { utf8Chunks } from './text-chunks.js';

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
 * The field names a file offers a mapping, read from its start only, as a run reads them
 * (`readRows`): a CSV's header record (its delimiter, `,`, `;` or tab, told from it), the keys of the
 * first JSON lines' objects in the order first seen, or the first row of an XLSX file's first
 * worksheet. The stream is left unread past what that needed and destroyed.
 */
export async function readFileFields(content: Readable, format: SourceFormat, encoding: FileEncoding = 'utf-8'): Promise<string[]> {
  try {
    return checked(format === 'jsonl' ? await jsonlKeys(content, encoding) : await header(content, format, encoding));
  } catch (error) {
    if (error instanceof FileRowsError) throw new FileFieldsError('header_unreadable', error.reason);
    throw error;
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

async function header(content: Readable, format: 'csv' | 'xlsx', encoding: FileEncoding): Promise<string[]> {
  const rows = readRows(content, { format, encoding });
  try {
    return await rows.header;
  } finally {
    await rows[Symbol.asyncIterator]().return?.();
  }
}

async function jsonlKeys(content: Readable, encoding: FileEncoding): Promise<string[]> {
  const keys = new Set<string>();
  let records = 0;
  let bytes = 0;
  for await (const lines of textLines(utf8Chunks(content, encoding))) {
    for (const { line, text } of lines) {
      bytes += text.length;
      if (bytes > HEADER_MAX_BYTES) throw unreadable('the first lines are too long', 'الأسطر الأولى طويلة جداً');
      if (text.trim() === '') continue;
      for (const key of Object.keys(jsonObject(line, text))) keys.add(key);
      if (++records >= JSONL_RECORDS_READ) return [...keys];
    }
  }
  return [...keys];
}

function jsonObject(line: number, text: string): Record<string, unknown> {
  const values = jsonLineValues(text);
  if (!(values instanceof JsonLineFault)) return values;
  if (values.kind === 'not_json') throw unreadable(`line ${line} is not JSON`, `السطر ${line} ليس JSON`);
  if (values.kind === 'too_deep')
    throw unreadable(`line ${line} nests deeper than ${JSON_DEPTH_MAX} levels`, `السطر ${line} متداخل لأكثر من ${JSON_DEPTH_MAX} مستوى`);
  throw unreadable(`line ${line} is not a JSON object`, `السطر ${line} ليس كائن JSON`);
}
