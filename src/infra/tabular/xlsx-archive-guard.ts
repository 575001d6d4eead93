import { Inflate } from 'fflate';
import { CELL_MAX_CHARS, fileError, FileRowsError, notWorkbook, RECORD_MAX_BYTES, sizeText } from './file-refusal.js';

/** The most a workbook may unpack to, its parts together: the largest file a flow reads (2 GiB), as a CSV file may be. */
export const WORKBOOK_UNPACKED_MAX_BYTES = 2 * 1024 ** 3;
/**
 * The most a part the reader holds in memory may unpack to: the shared strings (every distinct text of
 * the workbook, kept as strings: about five bytes of memory for each byte of short texts; 32 MiB is a
 * million SKUs and a hundred thousand names), the styles, the workbook and its relationships.
 */
export const HELD_PART_MAX_BYTES = 32 * 1024 ** 2;
/**
 * Apache POI's ZipSecureFile defaults: a part may unpack to at most 100 times its packed size (a minimum
 * inflate ratio of 0.01), checked once it has unpacked to 100 KiB. Spreadsheets' XML packs about 5 to 20 to one.
 */
export const INFLATE_RATIO_MAX = 100;
export const INFLATE_RATIO_GRACE_BYTES = 100 * 1024;
/**
 * The longest text or tag the XML of a part the reader parses may hold: a cell's 32,767 characters take
 * at most 7 bytes each there (Excel writes a control character as `_x000D_`), 229,369 bytes.
 */
export const XML_RUN_MAX_BYTES = 256 * 1024;

/** The parts the reader holds whole, by the names a workbook gives them. */
export const WORKBOOK_PART = 'xl/workbook.xml';
export const WORKBOOK_RELS_PART = 'xl/_rels/workbook.xml.rels';
export const SHARED_STRINGS_PART = 'xl/sharedStrings.xml';
export const STYLES_PART = 'xl/styles.xml';
const HELD_PARTS = new Set([WORKBOOK_PART, WORKBOOK_RELS_PART, SHARED_STRINGS_PART, STYLES_PART]);
/** What the guard takes as a worksheet (its path need not start with it), as exceljs did. */
const WORKSHEET = /xl\/worksheets\/sheet\d+[.]xml/;
/** Packed bytes to give `take` at a time: deflate unpacks a byte to at most 1,032, so to at most about 4 MiB. */
export const ARCHIVE_SLICE_BYTES = 4096;
/**
 * Packed bytes that may pass without unpacking to anything: a stored deflate block (up to 64 KiB) unpacks
 * only once whole; more is not what a spreadsheet program writes (bytes after deflate's end are ignored).
 */
const IDLE_PACKED_MAX_BYTES = 256 * 1024;

const LOCAL_FILE = 0x04034b50;
const CENTRAL_DIRECTORY = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const DATA_DESCRIPTOR = Buffer.from([0x50, 0x4b, 0x07, 0x08]);
/** What follows a local file header's signature, up to its name: 26 bytes. */
const LOCAL_HEADER_BYTES = 26;
/** A data descriptor with its signature, as streaming unzips read it. */
const DESCRIPTOR_BYTES = 16;

type Stage =
  | { read: 'signature' }
  | { read: 'header' }
  | {
      read: 'names';
      flags: number;
      method: number;
      /** The sizes in the header; undefined when a ZIP64 extra field gives them. */
      packedSize: number | undefined;
      unpackedSize: number | undefined;
      nameLength: number;
      extraLength: number;
    }
  | { read: 'data'; left: number }
  | { read: 'data until descriptor' }
  | { read: 'descriptor' }
  | { read: 'nothing more' };

/** Whether the guard takes the part `name` for a worksheet: it checks its rows and hands out its XML. */
export function isWorksheetPart(name: string): boolean {
  return WORKSHEET.test(name);
}

/** Where a part's unpacked bytes go, as they unpack: `write` with each piece, `end` once the part is whole. */
export interface ArchivePart {
  write(data: Uint8Array): void;
  end(): void;
}

/**
 * Reads an XLSX file's archive as its bytes come, unpacking each part as it passes, and hands out the
 * XML of the parts a reader parses (the workbook, its relationships, the shared strings, the styles and
 * the worksheets) to the `ArchivePart` that `open` gives for it, once checked: a part that unpacks past
 * its limit or past INFLATE_RATIO_MAX times its packed size refuses the file (`file_too_large`), as
 * does XML with a text or tag longer than XML_RUN_MAX_BYTES (`cell_too_large`) or a worksheet row longer
 * than RECORD_MAX_BYTES (`record_too_large`); `take` then throws that `FileRowsError`, before any of
 * those bytes is handed out. The archive is read as a streaming unzip reads it: its local records in
 * order, a part's packed bytes by the size its header gives or, when the header leaves it to a data
 * descriptor, up to the descriptor's signature, and nothing after the central directory. An archive the
 * guard cannot read is not a workbook (`format_mismatch`).
 */
export class XlsxArchiveGuard {
  /** The archive's bytes taken so far. */
  bytes = 0;
  private stage: Stage = { read: 'signature' };
  /** A header's bytes while they are gathered. */
  private gathered: Buffer[] = [];
  private gatheredBytes = 0;
  /** The last bytes of a part read up to its data descriptor: the descriptor's signature may begin in them. */
  private held = Buffer.alloc(0);
  private part: PartCheck | undefined;
  private readonly workbook = { unpacked: 0 };

  /** `open(name)`: where the XML of the part `name` goes, or undefined when nobody reads it. */
  constructor(private readonly open: (name: string) => ArchivePart | undefined) {}

  /** The archive's next bytes, best ARCHIVE_SLICE_BYTES at a time: what they unpack to is handed out before `take` returns. */
  take(bytes: Buffer): void {
    this.walk(bytes);
    this.bytes += bytes.length;
  }

  /** The archive's end: one that ends inside a record was cut short, and is not a workbook. */
  end(): void {
    const complete = this.stage.read === 'nothing more' || (this.stage.read === 'signature' && this.gatheredBytes === 0);
    if (!complete) throw notWorkbook();
  }

  private walk(bytes: Buffer): void {
    let at = 0;
    while (at < bytes.length) {
      const stage = this.stage;
      switch (stage.read) {
        case 'signature':
        case 'header':
        case 'names':
        case 'descriptor': {
          const needed = this.fieldBytes(stage) - this.gatheredBytes;
          const taken = bytes.subarray(at, at + needed);
          this.gathered.push(taken);
          this.gatheredBytes += taken.length;
          at += taken.length;
          if (taken.length === needed) {
            const fields = Buffer.concat(this.gathered);
            this.gathered = [];
            this.gatheredBytes = 0;
            this.stage = this.afterFields(stage, fields);
          }
          break;
        }
        case 'data': {
          const taken = bytes.subarray(at, at + stage.left);
          at += taken.length;
          stage.left -= taken.length;
          this.part!.take(taken, stage.left === 0);
          if (stage.left === 0) this.stage = { read: 'signature' };
          break;
        }
        case 'data until descriptor': {
          const rest = this.held.length === 0 ? bytes.subarray(at) : Buffer.concat([this.held, bytes.subarray(at)]);
          const descriptor = rest.indexOf(DATA_DESCRIPTOR);
          if (descriptor === -1) {
            const keep = Math.min(rest.length, DATA_DESCRIPTOR.length - 1);
            this.part!.take(rest.subarray(0, rest.length - keep), false);
            this.held = Buffer.from(rest.subarray(rest.length - keep));
            return;
          }
          this.part!.take(rest.subarray(0, descriptor), true);
          this.held = Buffer.alloc(0);
          this.stage = { read: 'descriptor' };
          return this.walk(rest.subarray(descriptor));
        }
        case 'nothing more':
          return;
      }
    }
  }

  private fieldBytes(stage: Stage): number {
    if (stage.read === 'signature') return 4;
    if (stage.read === 'header') return LOCAL_HEADER_BYTES;
    if (stage.read === 'names') return stage.nameLength + stage.extraLength;
    return DESCRIPTOR_BYTES;
  }

  private afterFields(stage: Stage, fields: Buffer): Stage {
    switch (stage.read) {
      case 'signature': {
        const signature = fields.readUInt32LE(0);
        if (signature === LOCAL_FILE) return { read: 'header' };
        // No part is read after the central directory begins.
        if (signature === CENTRAL_DIRECTORY || signature === END_OF_CENTRAL_DIRECTORY) return { read: 'nothing more' };
        throw notWorkbook();
      }
      case 'header': {
        const size = (offset: number) => {
          const value = fields.readUInt32LE(offset);
          return value === 0xffffffff ? undefined : value;
        };
        return {
          read: 'names',
          flags: fields.readUInt16LE(2),
          method: fields.readUInt16LE(4),
          packedSize: size(14),
          unpackedSize: size(18),
          nameLength: fields.readUInt16LE(22),
          extraLength: fields.readUInt16LE(24),
        };
      }
      case 'names': {
        const name = fields.toString('utf8', 0, stage.nameLength);
        const zip64 =
          stage.packedSize === undefined || stage.unpackedSize === undefined ? zip64Sizes(fields.subarray(stage.nameLength)) : undefined;
        const packedSize = stage.packedSize ?? zip64?.packed;
        if (packedSize === undefined) throw notWorkbook();
        this.part = new PartCheck(name, stage.method !== 0, this.workbook, stage.unpackedSize ?? zip64?.unpacked ?? 0, this.open);
        // The size in the header, unless it is 0 and a data descriptor follows the data.
        if ((stage.flags & 0x08) === 0 || packedSize > 0) {
          if (packedSize > 0) return { read: 'data', left: packedSize };
          this.part.end(); // an empty part
          return { read: 'signature' };
        }
        return { read: 'data until descriptor' };
      }
      case 'descriptor':
        return { read: 'signature' };
      default:
        throw new Error(`no fields to read at ${stage.read}`);
    }
  }
}

/** The sizes a ZIP64 extra field gives (unpacked, then packed), for a header's 0xFFFFFFFF. */
function zip64Sizes(extra: Buffer): { unpacked: number; packed: number } | undefined {
  for (let at = 0; at + 4 <= extra.length; at += 4 + extra.readUInt16LE(at + 2)) {
    if (extra.readUInt16LE(at) === 0x0001 && at + 20 <= extra.length)
      return { unpacked: Number(extra.readBigUInt64LE(at + 4)), packed: Number(extra.readBigUInt64LE(at + 12)) };
  }
  return undefined;
}

/** One part of the archive as it unpacks: its size, its ratio, and its XML when the reader parses it. */
class PartCheck {
  private packed = 0;
  private unpacked = 0;
  /** Packed bytes since the part last unpacked to something. */
  private idle = 0;
  private ended = false;
  private readonly inflate: Inflate | undefined;
  private readonly limit: number;
  private readonly xml: XmlScan | undefined;
  /** Where the part's checked XML goes. */
  private readonly out: ArchivePart | undefined;
  /** What `out` threw, to pass on through fflate as it is. */
  private outFailure: unknown;

  constructor(
    readonly name: string,
    deflated: boolean,
    private readonly workbook: { unpacked: number },
    /** The unpacked size the header declares (0 when a data descriptor gives it): what unpacks is counted still. */
    declaredSize: number,
    open: (name: string) => ArchivePart | undefined,
  ) {
    // Every part whose method is not 0 (stored) is inflated.
    this.inflate = deflated ? new Inflate((data) => this.unpack(data)) : undefined;
    this.limit = HELD_PARTS.has(name) ? HELD_PART_MAX_BYTES : WORKBOOK_UNPACKED_MAX_BYTES;
    if (declaredSize > this.limit) throw this.tooLarge(declaredSize);
    this.xml = HELD_PARTS.has(name) || WORKSHEET.test(name) ? new XmlScan(name, WORKSHEET.test(name)) : undefined;
    this.out = this.xml === undefined ? undefined : open(name);
  }

  take(packed: Buffer, last: boolean): void {
    if (this.ended) return;
    this.packed += packed.length;
    if (this.inflate === undefined) {
      this.unpack(packed);
      if (last) this.end();
      return;
    }
    const before = this.unpacked;
    try {
      this.inflate.push(packed, last);
    } catch (error) {
      // The refusals of `unpack`, and what `out` throws, come through fflate; anything else is fflate's: the bytes are not deflate data.
      throw error instanceof FileRowsError || (this.outFailure !== undefined && error === this.outFailure) ? error : notWorkbook();
    }
    this.idle = this.unpacked === before ? this.idle + packed.length : 0;
    if (this.idle > IDLE_PACKED_MAX_BYTES) throw notWorkbook();
    if (last) this.end();
  }

  /** The part is whole. */
  end(): void {
    this.ended = true;
    this.out?.end();
  }

  private unpack(data: Uint8Array): void {
    this.unpacked += data.length;
    this.workbook.unpacked += data.length;
    if (this.unpacked > this.limit || this.workbook.unpacked > WORKBOOK_UNPACKED_MAX_BYTES) throw this.tooLarge(this.unpacked);
    if (this.unpacked > INFLATE_RATIO_GRACE_BYTES && this.unpacked > INFLATE_RATIO_MAX * this.packed) throw this.bomb();
    if (data.length === 0) return;
    this.xml?.scan(Buffer.from(data.buffer, data.byteOffset, data.length));
    try {
      this.out?.write(data);
    } catch (error) {
      this.outFailure = error;
      throw error;
    }
  }

  private tooLarge(unpacked: number): FileRowsError {
    if (unpacked <= this.limit) {
      const most = sizeText(WORKBOOK_UNPACKED_MAX_BYTES);
      return fileError(
        'file_too_large',
        `The workbook unpacks to more than ${most.en}, the most a file may be.`,
        `يتجاوز حجم المصنّف بعد فك ضغطه ${most.ar}، وهو أقصى حجم للملف.`,
      );
    }
    const most = sizeText(this.limit);
    return fileError(
      'file_too_large',
      `The workbook's ${this.name} unpacks to more than ${most.en}, the most it may (it is held in memory while the file is read).`,
      `يتجاوز حجم ${this.name} في المصنّف بعد فك ضغطه ${most.ar}، وهو أقصى ما يُسمح به (يُحفظ في الذاكرة أثناء قراءة الملف).`,
    );
  }

  private bomb(): FileRowsError {
    return fileError(
      'file_too_large',
      `The workbook's ${this.name} unpacks to more than ${INFLATE_RATIO_MAX} times its packed size, as no spreadsheet does (a "zip bomb").`,
      `يتضخم ${this.name} في المصنّف عند فك ضغطه إلى أكثر من ${INFLATE_RATIO_MAX} ضعف حجمه المضغوط، ولا يحدث هذا في جداول البيانات (ملف "قنبلة zip").`,
    );
  }
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
/** Enough of a tag to tell a comment, CDATA or a processing instruction, and a row's name and `r` attribute. */
const HEAD_BYTES = 64;
const ROW_NUMBER = /\sr=["'](\d+)["']/;
const BANG = 0x21;
const QUESTION = 0x3f;
const COLON = 0x3a;

/** What ends a markup that may hold `<` and `>`: its last bytes before the `>`, and its shortest length (after the `<`). */
const SPECIAL_MARKUP = [
  { opens: Buffer.from('!--'), closes: Buffer.from('--'), shortest: 5 },
  { opens: Buffer.from('![CDATA['), closes: Buffer.from(']]'), shortest: 10 },
  { opens: Buffer.from('?'), closes: Buffer.from('?'), shortest: 2 },
];

/**
 * A part's XML as it unpacks, scanned for the lengths the reader's parser (saxes) would hold in memory: a
 * text run or a markup (a tag, a comment, CDATA) over XML_RUN_MAX_BYTES, and in a worksheet a row over
 * RECORD_MAX_BYTES from its start tag to its end tag. Linear: it looks at each `<` and `>` only.
 */
class XmlScan {
  /** Bytes of the part scanned before the current data. */
  private offset = 0;
  private inMarkup = false;
  /** Where the current markup's `<` is in the part. */
  private markupStart = 0;
  /** Bytes of the current text run, or of the current markup after its `<`. */
  private length = 0;
  private readonly head = Buffer.alloc(HEAD_BYTES);
  private headLength = 0;
  /** The current markup's last two bytes in earlier data, for an end (`-->`, `]]>`, `/>`) split between chunks. */
  private readonly tail = Buffer.alloc(2);
  private rowStart = -1;
  private row = 0;

  constructor(
    private readonly part: string,
    private readonly rows: boolean,
  ) {}

  scan(data: Buffer): void {
    let at = 0;
    while (at < data.length) {
      if (!this.inMarkup) {
        const lt = data.indexOf(LT, at);
        this.length += (lt === -1 ? data.length : lt) - at;
        if (this.length > XML_RUN_MAX_BYTES) throw this.runTooLong();
        if (lt === -1) break;
        this.inMarkup = true;
        this.markupStart = this.offset + lt;
        this.length = 0;
        this.headLength = 0;
        this.tail.fill(0);
        at = lt + 1;
        continue;
      }
      const gt = data.indexOf(GT, at);
      const end = gt === -1 ? data.length : gt;
      for (let from = at; from < end && this.headLength < HEAD_BYTES; from++) this.head[this.headLength++] = data[from];
      this.length += end - at;
      if (this.length > XML_RUN_MAX_BYTES) throw this.runTooLong();
      if (gt === -1) break;
      at = gt + 1;
      if (this.endsMarkup(data, gt)) {
        this.inMarkup = false;
        this.length = 0;
        if (this.rows) this.rowTag(this.offset + gt + 1, this.byteBefore(data, gt, 1) === SLASH);
      }
    }
    if (this.inMarkup) this.keepTail(data, Math.max(0, this.markupStart + 1 - this.offset));
    this.offset += data.length;
    if (this.rowStart !== -1 && this.offset - this.rowStart > RECORD_MAX_BYTES) throw this.rowTooLong();
  }

  /** Whether the `>` at `gt` ends the current markup: a tag's first `>`, a comment's `-->`, CDATA's `]]>`, a processing instruction's `?>`. */
  private endsMarkup(data: Buffer, gt: number): boolean {
    const head = this.head.subarray(0, this.headLength);
    if (head[0] !== BANG && head[0] !== QUESTION) return true;
    const special = SPECIAL_MARKUP.find((markup) => head.subarray(0, markup.opens.length).equals(markup.opens));
    if (special === undefined) return true; // a declaration (<!DOCTYPE …>)
    if (this.length < special.shortest) return false;
    const closes = special.closes;
    for (let back = 1; back <= closes.length; back++) if (this.byteBefore(data, gt, back) !== closes[closes.length - back]) return false;
    return true;
  }

  /** The markup's byte `back` bytes before `data[gt]`, from earlier data when need be. */
  private byteBefore(data: Buffer, gt: number, back: number): number {
    return gt - back >= 0 ? data[gt - back] : this.tail[2 + gt - back];
  }

  /** Keeps the markup's last two bytes, `data[from]` on being the markup's. */
  private keepTail(data: Buffer, from: number): void {
    const count = Math.min(2, data.length - from);
    if (count === 1) this.tail[0] = this.tail[1];
    if (count > 0) data.copy(this.tail, 2 - count, data.length - count);
  }

  /** A worksheet's `<row …>` starts a row, `</row>` ends it (with any namespace prefix: `<x:row>`). */
  private rowTag(end: number, selfClosing: boolean): void {
    const head = this.head.subarray(0, this.headLength);
    const closing = head[0] === SLASH;
    const start = closing ? 1 : 0;
    const stop = nameEnd(head);
    const isRow =
      stop - start >= 3 &&
      head[stop - 3] === 0x72 &&
      head[stop - 2] === 0x6f &&
      head[stop - 1] === 0x77 &&
      (stop - start === 3 || head[stop - 4] === COLON);
    if (!isRow) return;
    if (closing) {
      if (this.rowStart !== -1 && end - this.rowStart > RECORD_MAX_BYTES) throw this.rowTooLong();
      this.rowStart = -1;
      return;
    }
    const number = ROW_NUMBER.exec(head.toString('latin1'));
    this.row = number ? Number(number[1]) : this.row + 1;
    if (!selfClosing) this.rowStart = this.markupStart;
  }

  private runTooLong(): FileRowsError {
    const most = sizeText(XML_RUN_MAX_BYTES);
    const cell = CELL_MAX_CHARS.toLocaleString('en');
    return fileError(
      'cell_too_large',
      `The workbook's ${this.part} holds a text or a tag longer than ${most.en}, and a cell holds at most ${cell} characters.`,
      `يحتوي ${this.part} في المصنّف نصاً أو وسماً أطول من ${most.ar}، والخلية لا تتسع لأكثر من ${cell} حرفاً.`,
    );
  }

  private rowTooLong(): FileRowsError {
    return fileError(
      'record_too_large',
      `Row ${this.row} of the workbook's ${this.part} is longer than 1 MiB.`,
      `الصف ${this.row} في ${this.part} من المصنّف أطول من 1 ميغابايت.`,
    );
  }
}

/** Where a tag's name ends in its first bytes: at white space, `/` or their end. */
function nameEnd(head: Buffer): number {
  for (let at = 1; at < head.length; at++) {
    const byte = head[at];
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === SLASH) return at;
  }
  return head.length;
}
