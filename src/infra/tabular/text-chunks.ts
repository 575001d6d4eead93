import { isAscii, isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { fileError, type FileRowsError } from './file-refusal.js';
import type { FileEncoding } from './formats.js';

export const LF = 0x0a;
export const CR = 0x0d;
export const QUOTE = 0x22;
/** Enough of the file's start to tell a byte order mark or a zip archive. */
const OPENING_BYTES = 4;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const NO_BYTES = Buffer.alloc(0);
/** Of the non-ASCII letters of text that is not UTF-8, the share in the Arabic block that says "Windows-1256". */
const ARABIC_SHARE = 0.7;
const ARABIC_LETTER = /[\u0600-\u06ff]/g;
const NON_ASCII = /[^\x00-\x7f]/g;

/**
 * The file's text as UTF-8 bytes without a byte order mark, checked as it passes: a zip archive, a
 * UTF-16 file, NUL bytes or (for UTF-8) a byte sequence that is not UTF-8 refuses the file rather
 * than yield replacement characters. The chunks are the stream's own (UTF-8) or decoded ones.
 */
export async function* utf8Chunks(content: Readable, encoding: FileEncoding): AsyncGenerator<Buffer> {
  const text = encoding === 'utf-8' ? new Utf8Text() : new Windows1256Text();
  for await (const chunk of content as AsyncIterable<Buffer | string>) {
    const bytes = text.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (bytes.length > 0) yield bytes;
  }
  const rest = text.end();
  if (rest.length > 0) yield rest;
}

abstract class FileText {
  /** Line breaks passed, for the line an error names. */
  protected lines = 0;
  /** The file's first bytes while there are too few to tell what the file is. */
  private opening: Buffer | undefined = NO_BYTES;

  write(chunk: Buffer): Buffer {
    if (this.opening === undefined) return this.checked(chunk);
    const start = this.opening.length === 0 ? chunk : Buffer.concat([this.opening, chunk]);
    if (start.length < OPENING_BYTES) {
      this.opening = start;
      return NO_BYTES;
    }
    this.opening = undefined;
    return this.checked(this.afterOpening(start));
  }

  end(): Buffer {
    const rest = this.opening === undefined ? NO_BYTES : this.checked(this.afterOpening(this.opening));
    this.opening = undefined;
    this.finish();
    return rest;
  }

  protected abstract decode(chunk: Buffer): Buffer;
  protected abstract finish(): void;
  /** Meets a UTF-8 byte order mark at the start of the file. */
  protected abstract startsWithBom(): void;

  private afterOpening(start: Buffer): Buffer {
    if (start.subarray(0, 4).equals(ZIP_SIGNATURE))
      throw fileError(
        'format_mismatch',
        "The file is a zip archive (an XLSX workbook?), not text: set the flow's format to xlsx.",
        'الملف أرشيف zip (مصنّف XLSX؟) وليس نصاً: اضبط صيغة التدفق على xlsx.',
      );
    if ((start[0] === 0xff && start[1] === 0xfe) || (start[0] === 0xfe && start[1] === 0xff))
      throw fileError(
        'encoding_invalid',
        'The file is UTF-16 text (Excel\'s "Unicode Text"), not UTF-8: save it as "CSV UTF-8".',
        'الملف نص بترميز UTF-16 ("نص Unicode" في Excel) وليس UTF-8: احفظه بصيغة "CSV UTF-8".',
      );
    if (!start.subarray(0, 3).equals(UTF8_BOM)) return start;
    this.startsWithBom();
    return start.subarray(3);
  }

  private checked(chunk: Buffer): Buffer {
    const nul = chunk.indexOf(0);
    if (nul !== -1)
      throw fileError(
        'format_mismatch',
        `The file holds binary data (a NUL byte at line ${this.lineAt(chunk, nul)}), not text.`,
        `الملف يحتوي بيانات ثنائية (بايت NUL في السطر ${this.lineAt(chunk, nul)}) وليس نصاً.`,
      );
    const bytes = this.decode(chunk);
    this.lines += breaksIn(chunk, chunk.length);
    return bytes;
  }

  protected lineAt(chunk: Buffer, offset: number): number {
    return this.lines + breaksIn(chunk, offset) + 1;
  }
}

function breaksIn(chunk: Buffer, end: number): number {
  let count = 0;
  for (let at = chunk.indexOf(LF); at !== -1 && at < end; at = chunk.indexOf(LF, at + 1)) count++;
  return count;
}

/** UTF-8 checked as it passes, a character split between chunks included. */
class Utf8Text extends FileText {
  /** The start of a character the next chunk ends. */
  private split: Buffer | undefined;

  protected startsWithBom(): void {}

  protected decode(chunk: Buffer): Buffer {
    let rest = chunk;
    if (this.split !== undefined) {
      const needed = sequenceLength(this.split[0]) - this.split.length;
      if (chunk.length < needed) {
        this.split = Buffer.concat([this.split, chunk]);
        return chunk;
      }
      if (!isUtf8(Buffer.concat([this.split, chunk.subarray(0, needed)]))) throw this.invalid(chunk, 0);
      this.split = undefined;
      rest = chunk.subarray(needed);
    }
    const whole = rest.length - splitTail(rest);
    if (!isUtf8(rest.subarray(0, whole))) throw this.invalid(chunk, chunk.length - rest.length + firstInvalid(rest.subarray(0, whole)));
    if (whole < rest.length) this.split = Buffer.from(rest.subarray(whole));
    return chunk;
  }

  protected finish(): void {
    if (this.split !== undefined) throw notUtf8(this.lines + 1, this.split);
  }

  private invalid(chunk: Buffer, offset: number): FileRowsError {
    return notUtf8(this.lineAt(chunk, offset), chunk.subarray(Math.max(0, offset - 1024), offset + 64 * 1024));
  }
}

/** How many bytes the UTF-8 sequence `lead` starts takes (a bad lead byte fails the check later). */
function sequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

/** How many bytes at the end of `bytes` begin a character that is not complete yet. */
function splitTail(bytes: Buffer): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back];
    if (byte < 0x80) return 0;
    if (byte >= 0xc0) return sequenceLength(byte) > back ? back : 0;
  }
  return 0;
}

/** The offset of the first byte that is not UTF-8 (a U+FFFD the file itself holds is passed over). */
function firstInvalid(bytes: Buffer): number {
  const text = bytes.toString('utf8');
  for (let at = text.indexOf('\ufffd'); at !== -1; at = text.indexOf('\ufffd', at + 1)) {
    const offset = Buffer.byteLength(text.slice(0, at));
    if (!bytes.subarray(offset, offset + 3).equals(Buffer.from('\ufffd'))) return offset;
  }
  return bytes.length;
}

function notUtf8(line: number, sample: Buffer): FileRowsError {
  if (looksLikeWindows1256(sample))
    return fileError(
      'encoding_invalid',
      `The file is not UTF-8 text (line ${line}): it looks like Arabic Windows text (Windows-1256). Set the flow's encoding to windows-1256, or save the file as "CSV UTF-8".`,
      `الملف ليس نصاً بترميز UTF-8 (السطر ${line}): يبدو نصاً عربياً بترميز Windows-1256. اضبط ترميز التدفق على windows-1256، أو احفظ الملف بصيغة "CSV UTF-8".`,
    );
  return fileError(
    'encoding_invalid',
    `The file is not UTF-8 text (line ${line}). Save it as UTF-8 (in Excel: "CSV UTF-8"), or set the flow's encoding to the one the file is in.`,
    `الملف ليس نصاً بترميز UTF-8 (السطر ${line}). احفظه بترميز UTF-8 (في Excel: "CSV UTF-8")، أو اضبط ترميز التدفق على ترميز الملف.`,
  );
}

/** Whether text that is not UTF-8 reads, as Windows-1256, as mostly Arabic letters. */
function looksLikeWindows1256(sample: Buffer): boolean {
  const text = iconv.decode(sample, 'windows-1256');
  const foreign = text.match(NON_ASCII)?.length ?? 0;
  const arabic = text.match(ARABIC_LETTER)?.length ?? 0;
  return foreign > 0 && arabic / foreign >= ARABIC_SHARE;
}

/** Windows-1256 (Arabic Windows, a byte a character) decoded to UTF-8. */
class Windows1256Text extends FileText {
  private readonly decoder = iconv.getDecoder('windows-1256');
  private checkedNotUtf8 = false;

  protected startsWithBom(): void {
    throw utf8NotWindows1256();
  }

  protected decode(chunk: Buffer): Buffer {
    // Arabic Windows text is almost never valid UTF-8; Arabic UTF-8 read as Windows-1256 would be gibberish.
    if (!this.checkedNotUtf8) {
      const whole = chunk.subarray(0, chunk.length - splitTail(chunk));
      if (!isAscii(whole)) {
        if (isUtf8(whole)) throw utf8NotWindows1256();
        this.checkedNotUtf8 = true;
      }
    }
    return Buffer.from(this.decoder.write(chunk), 'utf8');
  }

  protected finish(): void {
    this.decoder.end();
  }
}

function utf8NotWindows1256(): FileRowsError {
  return fileError(
    'encoding_invalid',
    "The file is UTF-8 text, but the flow's encoding is windows-1256: set it to utf-8.",
    'الملف نص بترميز UTF-8، لكن ترميز التدفق windows-1256: اضبطه على utf-8.',
  );
}
