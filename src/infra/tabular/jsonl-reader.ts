import { RECORD_MAX_BYTES } from './file-refusal.js';
import { checkCell, isBlankText, problem, tooLarge, type CellValue, type RowProblem, type RowsItem, type SourceRow } from './table-rows.js';
import { CR, LF, QUOTE } from './text-chunks.js';

export interface TextLine {
  line: number;
  text: string;
}

/** The lines of UTF-8 text, LF or CRLF ended, a chunk's at a time; a line longer than RECORD_MAX_BYTES refuses the file. */
export async function* textLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<TextLine[]> {
  let line = 0;
  let rest: Buffer | undefined;
  for await (const chunk of chunks) {
    const bytes = rest === undefined ? chunk : Buffer.concat([rest, chunk]);
    const lines: TextLine[] = [];
    let from = 0;
    for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, from)) {
      if (at - from > RECORD_MAX_BYTES) throw tooLarge(line + 1);
      lines.push({ line: ++line, text: lineText(bytes, from, at) });
      from = at + 1;
    }
    rest = from < bytes.length ? bytes.subarray(from) : undefined;
    if (rest !== undefined && rest.length > RECORD_MAX_BYTES) throw tooLarge(line + 1);
    yield lines;
  }
  if (rest !== undefined) yield [{ line: line + 1, text: lineText(rest, 0, rest.length) }];
}

function lineText(bytes: Buffer, from: number, to: number): string {
  return bytes.toString('utf8', from, to > from && bytes[to - 1] === CR ? to - 1 : to);
}

/** Why a JSON line is not a record. */
export class JsonLineFault {
  constructor(
    readonly kind: 'not_json' | 'not_object' | 'too_deep',
    readonly en: string,
    readonly ar: string,
  ) {}
}

const JSON_DETAIL_LENGTH = 100;

/**
 * The deepest a JSON line's objects and arrays may nest (the line's own object is level 1): records
 * nest a few levels, and a nested value becomes its JSON text, which V8 writes recursively.
 */
export const JSON_DEPTH_MAX = 64;

/** A JSON line's object as cell values (see `readRows`), or why the line is not one. */
export function jsonLineValues(text: string): Record<string, CellValue> | JsonLineFault {
  if (nestsDeeperThan(text, JSON_DEPTH_MAX))
    return new JsonLineFault(
      'too_deep',
      `The line's objects and arrays nest deeper than ${JSON_DEPTH_MAX} levels.`,
      `تتداخل الكائنات والمصفوفات في السطر لأكثر من ${JSON_DEPTH_MAX} مستوى.`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const detail = (error as Error).message.slice(0, JSON_DETAIL_LENGTH);
    return new JsonLineFault('not_json', `The line is not JSON (${detail}).`, 'السطر ليس JSON صالحاً.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    return new JsonLineFault('not_object', `The line holds ${kind}, not a JSON object.`, 'السطر لا يحتوي كائن JSON.');
  }
  return cellValues(hasLongInteger(parsed) ? withLongIntegers(text) : (parsed as Record<string, unknown>));
}

/** Whether `{` and `[` outside strings nest deeper than `depth` in the text: linear, and only for a line with that many of them. */
function nestsDeeperThan(text: string, depth: number): boolean {
  let brackets = 0;
  for (let at = text.indexOf('{'); at !== -1 && brackets <= depth; at = text.indexOf('{', at + 1)) brackets++;
  for (let at = text.indexOf('['); at !== -1 && brackets <= depth; at = text.indexOf('[', at + 1)) brackets++;
  if (brackets <= depth) return false;
  let open = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === BACKSLASH) at++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++open > depth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) open--;
  }
  return false;
}

const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function cellValues(record: Record<string, unknown>): Record<string, CellValue> {
  for (const key of Object.keys(record)) {
    const value = record[key];
    // defineProperty: a "__proto__" key is the record's own, as JSON.parse made it.
    if (typeof value === 'object' && value !== null)
      Object.defineProperty(record, key, { value: jsonCell(value), enumerable: true, writable: true });
  }
  return record as Record<string, CellValue>;
}

function isLongInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);
}

function hasLongInteger(record: object): boolean {
  return Object.values(record).some(isLongInteger);
}

/** The line parsed again with integers past 2^53 kept as their digits: a barcode read as a number would lose its last ones. */
function withLongIntegers(text: string): Record<string, unknown> {
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    isLongInteger(value) && context?.source !== undefined ? context.source : value,
  ) as Record<string, unknown>;
}

function jsonCell(value: object): CellValue {
  return Array.isArray(value)
    ? value.map((item: unknown) => (typeof item === 'object' && item !== null ? jsonCell(item) : (item as CellValue)))
    : JSON.stringify(value);
}

export async function* jsonlItems(chunks: AsyncIterable<Buffer>): AsyncGenerator<RowsItem[]> {
  yield [[]];
  for await (const lines of textLines(chunks)) yield lines.filter(({ text }) => !isBlankText(text)).map(jsonlItem);
}

function jsonlItem({ line, text }: TextLine): SourceRow | RowProblem {
  const values = jsonLineValues(text);
  if (values instanceof JsonLineFault)
    return problem(line, values.kind === 'too_deep' ? 'nesting_too_deep' : 'not_json_object', values.en, values.ar);
  for (const key of Object.keys(values))
    checkCell(values[key], () => ({ en: `The value of "${key}" on line ${line}`, ar: `قيمة "${key}" في السطر ${line}` }));
  return { line, values };
}
