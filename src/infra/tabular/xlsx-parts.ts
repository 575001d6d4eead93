import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { finished } from 'node:stream/promises';
import { notWorkbook } from './file-refusal.js';
import {
  isWorksheetPart,
  SHARED_STRINGS_PART,
  STYLES_PART,
  WORKBOOK_PART,
  WORKBOOK_RELS_PART,
  type ArchivePart,
} from './xlsx-archive-guard.js';
import { SheetPart, type SheetContext, type SheetRow } from './xlsx-sheet.js';
import { localName, XmlPart } from './xlsx-xml.js';

/**
 * The parts of a workbook the reader needs, as the archive guard hands them out (`open`), in the order of
 * the archive: the workbook (its first tab, its date system), its relationships (where that tab's
 * worksheet is, whether there are shared strings and styles), the shared strings and the styles, held in
 * memory (the guard bounds them), and the first tab's worksheet. The worksheet is read as it unpacks when
 * all it refers to was read before it; otherwise (Excel writes the shared strings after the worksheets)
 * it is spilled to a temporary file as it unpacks, and read back from there once the archive is read
 * (`spilledRows`). While the first tab is not known yet, every worksheet is spilled, and the others are
 * removed once it is. `dispose` removes what is left.
 */
export class WorkbookParts {
  private workbook: WorkbookReader | undefined;
  private relationships: RelationshipsReader | undefined;
  private sharedStrings: SharedStringsReader | undefined;
  private styles: StylesReader | undefined;
  /** The first tab's worksheet part, once the workbook and its relationships are read. */
  private firstSheet: string | undefined;
  /** The first tab's worksheet, when read as it unpacks. */
  private sheet: SheetPart | undefined;
  private readonly spills = new Map<string, Spill>();
  private removals: Promise<void>[] = [];

  /** Where the guard hands out the part `name`: its reader, a temporary file, or nowhere. */
  readonly open = (name: string): ArchivePart | undefined => {
    const settle = () => this.settle();
    switch (name) {
      case WORKBOOK_PART:
        return this.workbook === undefined ? (this.workbook = new WorkbookReader(settle)) : undefined;
      case WORKBOOK_RELS_PART:
        return this.relationships === undefined ? (this.relationships = new RelationshipsReader(settle)) : undefined;
      case SHARED_STRINGS_PART:
        return this.sharedStrings === undefined ? (this.sharedStrings = new SharedStringsReader()) : undefined;
      case STYLES_PART:
        return this.styles === undefined ? (this.styles = new StylesReader()) : undefined;
    }
    if (!isWorksheetPart(name) || this.spills.has(name) || this.sheet !== undefined) return undefined;
    if (this.firstSheet !== undefined && name !== this.firstSheet) return undefined;
    if (this.firstSheet !== undefined && this.ready()) return (this.sheet = new SheetPart(this.context()));
    const spill = new Spill();
    this.spills.set(name, spill);
    return spill;
  };

  /** Whether the first tab was read as it unpacked, to its end. */
  get sheetRead(): boolean {
    return this.sheet?.ended === true;
  }

  /** The rows of the first tab read as it unpacked since the last call. */
  takeRows(): SheetRow[] {
    return this.sheet?.take() ?? [];
  }

  /** Waits until the temporary files have taken what they were given, and the ones not needed are removed. */
  async drained(): Promise<void> {
    const removals = this.removals;
    this.removals = [];
    await Promise.all(removals);
    for (const spill of this.spills.values()) await spill.drained();
  }

  /** Once the whole archive is read: the rows of the first tab, read back from its temporary file. */
  async *spilledRows(): AsyncGenerator<SheetRow[]> {
    const spill = this.firstSheet === undefined ? undefined : this.spills.get(this.firstSheet);
    const sharedStringsMissing = this.relationships?.types.has('sharedStrings') === true && this.sharedStrings?.ended !== true;
    if (spill === undefined || !spill.ended || sharedStringsMissing) throw notWorkbook();
    await spill.written();
    const sheet = new SheetPart(this.context());
    for await (const chunk of createReadStream(spill.path)) {
      sheet.write(chunk as Buffer);
      yield sheet.take();
    }
    sheet.end();
    yield sheet.take();
  }

  async dispose(): Promise<void> {
    const removals = [...this.removals, ...[...this.spills.values()].map((spill) => spill.remove())];
    this.spills.clear();
    await Promise.all(removals);
  }

  /** Once the workbook and its relationships are read: the first tab's worksheet, and the others' files removed. */
  private settle(): void {
    if (this.workbook?.ended !== true || this.relationships?.ended !== true) return;
    const id = this.workbook.firstSheet;
    const part = id === undefined ? undefined : this.relationships.targets.get(id);
    if (part === undefined || !isWorksheetPart(part)) throw notWorkbook();
    this.firstSheet = part;
    for (const [name, spill] of this.spills) {
      if (name === part) continue;
      this.spills.delete(name);
      this.removals.push(spill.remove());
    }
  }

  /** Whether all the first tab's worksheet refers to is read. */
  private ready(): boolean {
    const types = this.relationships?.types;
    return (
      this.workbook?.ended === true &&
      types !== undefined &&
      (!types.has('sharedStrings') || this.sharedStrings?.ended === true) &&
      (!types.has('styles') || this.styles?.ended === true)
    );
  }

  private context(): SheetContext {
    return {
      sharedStrings: this.sharedStrings?.ended === true ? this.sharedStrings.strings : [],
      dateStyles: this.styles?.ended === true ? this.styles.dateStyles() : [],
      date1904: this.workbook?.date1904 === true,
    };
  }
}

/** A worksheet's XML kept in a temporary file as it unpacks, until it can be read. */
class Spill implements ArchivePart {
  readonly path = join(tmpdir(), `xlsx-sheet-${randomUUID()}.xml`);
  ended = false;
  private readonly file = createWriteStream(this.path, { flags: 'wx', mode: 0o600 });
  private failure: Error | undefined;

  constructor() {
    this.file.on('error', (error) => {
      this.failure ??= error;
    });
  }

  write(data: Uint8Array): void {
    this.file.write(data);
  }

  end(): void {
    this.ended = true;
    this.file.end();
  }

  async drained(): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    if (this.file.writableNeedDrain) await once(this.file, 'drain');
  }

  /** Waits until the whole worksheet is in the file. */
  async written(): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    await finished(this.file);
  }

  /** Removes the file, once closed: still opening, it could otherwise be created after. */
  async remove(): Promise<void> {
    if (!this.file.closed) {
      const closed = new Promise<void>((resolve) => this.file.once('close', () => resolve()));
      this.file.destroy();
      await closed;
    }
    await rm(this.path, { force: true }).catch(() => {}); // housekeeping: the rows are read or refused
  }
}

/** xl/workbook.xml: its first tab (the relationship of its first `<sheet>`) and its date system. */
class WorkbookReader extends XmlPart {
  firstSheet: string | undefined;
  date1904 = false;
  private sheets = 0;

  constructor(private readonly onRead: () => void) {
    super();
  }

  protected override done(): void {
    this.onRead();
  }

  protected override open(name: string, attributes: Record<string, string>): void {
    if (name === 'workbookPr') this.date1904 = attributes.date1904 === '1' || attributes.date1904 === 'true';
    if (name === 'sheet' && this.sheets++ === 0) {
      const id = Object.keys(attributes).find((key) => key.includes(':') && localName(key) === 'id');
      this.firstSheet = id === undefined ? undefined : attributes[id];
    }
  }
}

/** xl/_rels/workbook.xml.rels: the parts the workbook's relationships name, and their types. */
class RelationshipsReader extends XmlPart {
  /** A relationship's part by its id: `worksheets/sheet1.xml` is `xl/worksheets/sheet1.xml`. */
  readonly targets = new Map<string, string>();
  /** The last segment of each relationship's type: `worksheet`, `sharedStrings`, `styles`. */
  readonly types = new Set<string>();

  constructor(private readonly onRead: () => void) {
    super();
  }

  protected override done(): void {
    this.onRead();
  }

  protected override open(name: string, attributes: Record<string, string>): void {
    if (name !== 'Relationship' || attributes.TargetMode === 'External') return;
    const { Id: id, Target: target, Type: type } = attributes;
    if (id !== undefined && target !== undefined)
      this.targets.set(id, target.startsWith('/') ? posix.normalize(target).slice(1) : posix.normalize(`xl/${target}`));
    if (type !== undefined) this.types.add(type.slice(type.lastIndexOf('/') + 1));
  }
}

/** xl/sharedStrings.xml: each `<si>`'s text, its rich text runs joined, phonetic runs left out; null when empty. */
class SharedStringsReader extends XmlPart {
  readonly strings: (string | null)[] = [];
  private current: string | undefined;
  private phonetic = 0;
  private collecting = false;

  protected override open(name: string): void {
    if (name === 'si') this.current = '';
    else if (name === 'rPh') this.phonetic++;
    else if (name === 't') this.collecting = this.current !== undefined && this.phonetic === 0;
  }

  protected override text(text: string): void {
    if (this.collecting) this.current += text;
  }

  protected override close(name: string): void {
    if (name === 't') this.collecting = false;
    else if (name === 'rPh') this.phonetic--;
    else if (name === 'si') {
      this.strings.push(this.current === '' || this.current === undefined ? null : this.current);
      this.current = undefined;
    }
  }
}

/**
 * Excel's built-in number formats that show a date or time (14 to 22: `mm-dd-yy` … `m/d/yy h:mm`; 45 to
 * 47: `mm:ss`, `[h]:mm:ss`, `mmss.0`).
 */
const BUILT_IN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** xl/styles.xml: which cell styles (`<cellXfs>`, by index) show their number as a date. */
class StylesReader extends XmlPart {
  private readonly formats = new Map<number, string>();
  private readonly styles: number[] = [];
  private inFormats = false;
  private inStyles = false;

  dateStyles(): boolean[] {
    return this.styles.map((id) => (this.formats.has(id) ? isDateFormat(this.formats.get(id)!) : BUILT_IN_DATE_FORMATS.has(id)));
  }

  protected override open(name: string, attributes: Record<string, string>): void {
    if (name === 'numFmts') this.inFormats = true;
    else if (name === 'cellXfs') this.inStyles = true;
    else if (name === 'numFmt' && this.inFormats) this.formats.set(Number.parseInt(attributes.numFmtId, 10), attributes.formatCode ?? '');
    else if (name === 'xf' && this.inStyles) this.styles.push(Number.parseInt(attributes.numFmtId ?? '0', 10));
  }

  protected override close(name: string): void {
    if (name === 'numFmts') this.inFormats = false;
    else if (name === 'cellXfs') this.inStyles = false;
  }
}

/** Whether a number format shows a date or time: a date or time code outside quotes, brackets and escapes. */
function isDateFormat(format: string): boolean {
  return /[ymdhMsb]/.test(
    format
      .replace(/\\./g, '')
      .replace(/"[^"]*"/g, '')
      .replace(/\[[^\]]*]/g, ''),
  );
}
